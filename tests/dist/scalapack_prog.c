/*
 * A plain ScaLAPACK program (it knows nothing of linsolve), run by
 * scalapack_dropin.sh with and without liblinsolve_scalapack.so preloaded.
 * On a P x Q BLACS grid it fills block-cyclic matrices and calls pdgesv_,
 * psgesv_, pdgetrf_ + pdgetrs_ ('N', 'T' and 'C': the transposed answers
 * also against the linked ScaLAPACK's own pdgetrs_ on the same factors),
 * psgetrf_ + psgetrs_ 'T', pdgesv_ on a sub-matrix on
 * and off the block boundary, pdgesv_ on a singular matrix and pdgesv_
 * with an illegal n. One line per case from process (0,0); the exit status is the
 * number of failed cases.
 *
 *   scalapack_prog P Q
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <link.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BLACS and ScaLAPACK (no header ships with them) */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int notdone);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgesv_(const int *n, const int *nrhs, double *a, const int *ia, const int *ja,
             const int *desca, int *ipiv, double *b, const int *ib, const int *jb,
             const int *descb, int *info);
void psgesv_(const int *n, const int *nrhs, float *a, const int *ia, const int *ja,
             const int *desca, int *ipiv, float *b, const int *ib, const int *jb,
             const int *descb, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *ipiv, int *info);
void pdgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *ia,
              const int *ja, const int *desca, const int *ipiv, double *b, const int *ib,
              const int *jb, const int *descb, int *info, size_t trans_len);

void psgetrf_(const int *m, const int *n, float *a, const int *ia, const int *ja,
              const int *desca, int *ipiv, int *info);
void psgetrs_(const char *trans, const int *n, const int *nrhs, const float *a, const int *ia,
              const int *ja, const int *desca, const int *ipiv, float *b, const int *ib,
              const int *jb, const int *descb, int *info, size_t trans_len);
typedef void pdgetrs_fn(const char *, const int *, const int *, const double *, const int *,
                        const int *, const int *, const int *, double *, const int *,
                        const int *, const int *, int *, size_t);

static int P, Q, myr, myc, ctxt;
static const int NB = 16, ZERO = 0;

/* entries in [-1, 1) from (i, j, seed), the same on every process */
static double entry(int i, int j, int seed)
{
    unsigned long long h = (unsigned long long)i * 0x9e3779b97f4a7c15ULL ^
                           (unsigned long long)j * 0xc2b2ae3d27d4eb4fULL ^
                           (unsigned long long)seed * 0x165667b19e3779f9ULL;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    return (double)(h >> 11) / 4503599627370496.0 - 1.0;
}

/* a distributed m x n matrix and its global copy (column-major, ld m) */
typedef struct dmat {
    int m, n, lr, lc, desc[9];
    double *g, *l;
} dmat;

static dmat make(int m, int n, int seed, int zero_col)
{
    dmat d = {.m = m, .n = n};
    d.lr = numroc_(&m, &NB, &myr, &ZERO, &P);
    d.lc = numroc_(&n, &NB, &myc, &ZERO, &Q);
    int lld = d.lr > 1 ? d.lr : 1, info;
    descinit_(d.desc, &m, &n, &NB, &NB, &ZERO, &ZERO, &ctxt, &lld, &info);
    d.g = calloc((size_t)m * n, sizeof(double));
    d.l = calloc((size_t)lld * (d.lc > 1 ? d.lc : 1), sizeof(double));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double v = j == zero_col ? 0.0 : entry(i, j, seed);
            d.g[i + (size_t)j * m] = v;
            if ((i / NB) % P == myr && (j / NB) % Q == myc)
                d.l[(i / (NB * P)) * NB + i % NB + (size_t)((j / (NB * Q)) * NB + j % NB) * lld] = v;
        }
    return d;
}

/* the global matrix from the local pieces (every process gets it) */
static void collect(dmat *d)
{
    memset(d->g, 0, sizeof(double) * (size_t)d->m * d->n);
    int lld = d->desc[8];
    for (int j = 0; j < d->n; ++j)
        for (int i = 0; i < d->m; ++i)
            if ((i / NB) % P == myr && (j / NB) % Q == myc)
                d->g[i + (size_t)j * d->m] =
                    d->l[(i / (NB * P)) * NB + i % NB + (size_t)((j / (NB * Q)) * NB + j % NB) * lld];
    MPI_Allreduce(MPI_IN_PLACE, d->g, d->m * d->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void release(dmat *d)
{
    free(d->g);
    free(d->l);
}

/* ||B - op(A) X||inf / (n ||A||inf ||X||inf eps) for sub-matrices at (o, o)
 * of A (lda) and at row o of B and X (ldb), n x n and n x k. */
static double resid(int n, int k, const double *A, int lda, const double *B, const double *X,
                    int ldb, int o, int trans, double eps)
{
    double rn = 0, an = 0, xn = 0;
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j)
            s += fabs(A[o + i + (size_t)(o + j) * lda]);
        an = s > an ? s : an;
        for (int c = 0; c < k; ++c) {
            double r = B[o + i + (size_t)c * ldb];
            for (int j = 0; j < n; ++j) {
                double a = trans ? A[o + j + (size_t)(o + i) * lda] : A[o + i + (size_t)(o + j) * lda];
                r -= a * X[o + j + (size_t)c * ldb];
            }
            rn = fabs(r) > rn ? fabs(r) : rn;
        }
    }
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int c = 0; c < k; ++c)
            s += fabs(X[o + i + (size_t)c * ldb]);
        xn = s > xn ? s : xn;
    }
    return an == 0 || xn == 0 ? (rn == 0 ? 0 : INFINITY) : rn / (n * an * xn * eps);
}

static int failures;

/* every process must have the same info */
static void report(const char *name, int n, int info, int want_info, double r)
{
    int lo = info, hi = info;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int ok = lo == hi && info == want_info && r <= 30.0;
    failures += !ok;
    if (myr == 0 && myc == 0)
        printf("%-16s n=%-4d grid=%dx%d info=%d (want %d, %s on all) resid=%.2e %s\n", name, n, P,
               Q, info, want_info, lo == hi ? "same" : "NOT the same", r, ok ? "ok" : "failed");
}

static void case_gesv(int n, int nrhs)
{
    dmat a = make(n, n, 1, -1), b = make(n, nrhs, 2, -1);
    int *ipiv = malloc(sizeof(int) * (size_t)(a.lr + NB));
    int one = 1, info = -99;
    double *A0 = malloc(sizeof(double) * (size_t)n * n), *B0 = malloc(sizeof(double) * (size_t)n * nrhs);
    memcpy(A0, a.g, sizeof(double) * (size_t)n * n);
    memcpy(B0, b.g, sizeof(double) * (size_t)n * nrhs);
    pdgesv_(&n, &nrhs, a.l, &one, &one, a.desc, ipiv, b.l, &one, &one, b.desc, &info);
    collect(&b);
    report("pdgesv", n, info, 0, resid(n, nrhs, A0, n, B0, b.g, n, 0, 0, DBL_EPSILON));
    free(A0), free(B0), free(ipiv), release(&a), release(&b);
}

/* The single-precision cases: a's local blocks in float, and its global
 * matrix rounded to float (the reference the residual is taken against). */
static size_t local_len(const dmat *a)
{
    return (size_t)a->desc[8] * (size_t)(a->lc > 1 ? a->lc : 1);
}

static float *to_float(const dmat *a)
{
    size_t len = local_len(a);
    float *f = malloc(sizeof(float) * (len ? len : 1));
    for (size_t i = 0; i < len; ++i)
        f[i] = (float)a->l[i];
    return f;
}

static double *global_rounded(const dmat *a)
{
    size_t len = (size_t)a->m * (size_t)a->n;
    double *g = malloc(sizeof(double) * (len ? len : 1));
    for (size_t i = 0; i < len; ++i)
        g[i] = (float)a->g[i];
    return g;
}

static void case_sgesv(int n, int nrhs)
{
    dmat a = make(n, n, 3, -1), b = make(n, nrhs, 4, -1);
    size_t lb = local_len(&b);
    float *as = to_float(&a), *bs = to_float(&b);
    double *A0 = global_rounded(&a), *B0 = global_rounded(&b);
    int *ipiv = malloc(sizeof(int) * (size_t)(a.lr + NB));
    int one = 1, info = -99;
    psgesv_(&n, &nrhs, as, &one, &one, a.desc, ipiv, bs, &one, &one, b.desc, &info);
    for (size_t i = 0; i < lb; ++i)
        b.l[i] = bs[i];
    collect(&b);
    report("psgesv", n, info, 0, resid(n, nrhs, A0, n, B0, b.g, n, 0, 0, FLT_EPSILON));
    free(as), free(bs), free(A0), free(B0), free(ipiv), release(&a), release(&b);
}

/* The linked ScaLAPACK's own pdgetrs_ (not the preloaded one): looked up
 * in the loaded libscalapack itself. */
static int find_scalapack(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    if (strstr(info->dlpi_name, "libscalapack") && !strstr(info->dlpi_name, "linsolve")) {
        void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (h)
            *(void **)out = dlsym(h, "pdgetrs_");
        return *(void **)out != NULL;
    }
    return 0;
}

static pdgetrs_fn *system_pdgetrs(void)
{
    void *f = NULL;
    dl_iterate_phdr(find_scalapack, &f);
    return (pdgetrs_fn *)f;
}

/* max |x - y| / max |y| over m x n (ld m) */
static double rel_diff(int m, int n, const double *x, const double *y)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < (size_t)m * n; ++i) {
        d = fabs(x[i] - y[i]) > d ? fabs(x[i] - y[i]) : d;
        s = fabs(y[i]) > s ? fabs(y[i]) : s;
    }
    return s > 0 ? d / s : d;
}

/* getrf, then getrs 'N', 'T' and 'C' with the same factors; the transposed
 * answers also from the system ScaLAPACK's pdgetrs_ (they must agree to
 * rounding: the same factors, the same pivots) */
static void case_getrf_getrs(int n, int nrhs)
{
    dmat a = make(n, n, 5, -1), b = make(n, nrhs, 6, -1), bt = make(n, nrhs, 7, -1);
    double *A0 = malloc(sizeof(double) * (size_t)n * n), *B0 = malloc(sizeof(double) * (size_t)n * nrhs),
           *BT0 = malloc(sizeof(double) * (size_t)n * nrhs);
    memcpy(A0, a.g, sizeof(double) * (size_t)n * n);
    memcpy(B0, b.g, sizeof(double) * (size_t)n * nrhs);
    memcpy(BT0, bt.g, sizeof(double) * (size_t)n * nrhs);
    int *ipiv = malloc(sizeof(int) * (size_t)(a.lr + NB));
    int one = 1, info = -99;
    pdgetrf_(&n, &n, a.l, &one, &one, a.desc, ipiv, &info);
    report("pdgetrf", n, info, 0, 0.0);
    info = -99;
    pdgetrs_("N", &n, &nrhs, a.l, &one, &one, a.desc, ipiv, b.l, &one, &one, b.desc, &info, 1);
    collect(&b);
    report("pdgetrs N", n, info, 0, resid(n, nrhs, A0, n, B0, b.g, n, 0, 0, DBL_EPSILON));
    pdgetrs_fn *sys = system_pdgetrs();
    if (!sys && myr == 0 && myc == 0)
        printf("the linked ScaLAPACK's pdgetrs_ not found\n");
    failures += !sys;
    const size_t lb = (size_t)bt.desc[8] * (bt.lc > 1 ? bt.lc : 1);
    double *keep = malloc(sizeof(double) * lb), *ref = malloc(sizeof(double) * (size_t)n * nrhs);
    memcpy(keep, bt.l, sizeof(double) * lb);
    for (int c = 0; c < 2 && sys; ++c) {
        const char *tr = c ? "C" : "T";
        memcpy(bt.l, keep, sizeof(double) * lb);
        info = -99;
        sys(tr, &n, &nrhs, a.l, &one, &one, a.desc, ipiv, bt.l, &one, &one, bt.desc, &info, 1);
        collect(&bt);
        memcpy(ref, bt.g, sizeof(double) * (size_t)n * nrhs);
        memcpy(bt.l, keep, sizeof(double) * lb);
        int info2 = -99;
        pdgetrs_(tr, &n, &nrhs, a.l, &one, &one, a.desc, ipiv, bt.l, &one, &one, bt.desc, &info2,
                 1);
        collect(&bt);
        double d = rel_diff(n, nrhs, bt.g, ref);
        char name[40];
        snprintf(name, sizeof name, "pdgetrs %s", tr);
        /* a wrong answer differs by O(1); rounding by about cond(A) eps */
        report(name, n, info2, info, d <= 1e-9 ? resid(n, nrhs, A0, n, BT0, bt.g, n, 0, 1,
                                                        DBL_EPSILON) : INFINITY);
        if (myr == 0 && myc == 0)
            printf("%-16s max|X - X(ScaLAPACK)| / max|X(ScaLAPACK)| = %.2e\n", name, d);
    }
    free(keep), free(ref);
    free(A0), free(B0), free(BT0), free(ipiv), release(&a), release(&b), release(&bt);
}

/* psgetrf_ + psgetrs_ 'T' */
static void case_sgetrs_t(int n, int nrhs)
{
    dmat a = make(n, n, 14, -1), b = make(n, nrhs, 15, -1);
    size_t lb = local_len(&b);
    float *as = to_float(&a), *bs = to_float(&b);
    double *A0 = global_rounded(&a), *B0 = global_rounded(&b);
    int *ipiv = malloc(sizeof(int) * (size_t)(a.lr + NB));
    int one = 1, info = -99;
    psgetrf_(&n, &n, as, &one, &one, a.desc, ipiv, &info);
    report("psgetrf", n, info, 0, 0.0);
    info = -99;
    psgetrs_("T", &n, &nrhs, as, &one, &one, a.desc, ipiv, bs, &one, &one, b.desc, &info, 1);
    for (size_t i = 0; i < lb; ++i)
        b.l[i] = bs[i];
    collect(&b);
    report("psgetrs T", n, info, 0, resid(n, nrhs, A0, n, B0, b.g, n, 0, 1, FLT_EPSILON));
    free(as), free(bs), free(A0), free(B0), free(ipiv), release(&a), release(&b);
}

/* sub(A) = A(off+1 : off+n, off+1 : off+n). off a multiple of NB: solved.
 * Otherwise ScaLAPACK 2.2's pdgesv refuses it (info = -4, IA: sub(A) must
 * start on a block boundary), as liblinsolve_dist does; the drop-in routes
 * it to ScaLAPACK, whose answer the caller gets. */
static void case_sub(const char *name, int n, int nrhs, int off)
{
    int m = n + off;
    dmat a = make(m, m, 8, -1), b = make(m, nrhs, 9, -1);
    double *A0 = malloc(sizeof(double) * (size_t)m * m), *B0 = malloc(sizeof(double) * (size_t)m * nrhs);
    memcpy(A0, a.g, sizeof(double) * (size_t)m * m);
    memcpy(B0, b.g, sizeof(double) * (size_t)m * nrhs);
    int *ipiv = malloc(sizeof(int) * (size_t)(a.lr + NB));
    int ia = off + 1, one = 1, info = -99;
    pdgesv_(&n, &nrhs, a.l, &ia, &ia, a.desc, ipiv, b.l, &ia, &one, b.desc, &info);
    collect(&b);
    if (off % NB == 0)
        report(name, n, info, 0, resid(n, nrhs, A0, m, B0, b.g, m, off, 0, DBL_EPSILON));
    else
        report(name, n, info, -4, 0.0);
    free(A0), free(B0), free(ipiv), release(&a), release(&b);
}

/* column zc (0-based) zero: U(zc+1, zc+1) = 0 exactly, info = zc + 1 */
static void case_singular(int n, int nrhs, int zc)
{
    dmat a = make(n, n, 10, zc), b = make(n, nrhs, 11, -1);
    int *ipiv = malloc(sizeof(int) * (size_t)(a.lr + NB));
    int one = 1, info = -99;
    pdgesv_(&n, &nrhs, a.l, &one, &one, a.desc, ipiv, b.l, &one, &one, b.desc, &info);
    report("pdgesv singular", n, info, zc + 1, 0.0);
    free(ipiv), release(&a), release(&b);
}

static void case_illegal(void)
{
    dmat a = make(8, 8, 12, -1), b = make(8, 1, 13, -1);
    int ipiv[8 + 16], one = 1, bad = -1, info = -99;
    pdgesv_(&bad, &one, a.l, &one, &one, a.desc, ipiv, b.l, &one, &one, b.desc, &info);
    report("pdgesv n=-1", -1, info, -1, 0.0);
    release(&a), release(&b);
}

int main(int argc, char **argv)
{
    int me, np;
    if (argc < 3)
        return fprintf(stderr, "usage: %s P Q\n", argv[0]), 2;
    P = atoi(argv[1]);
    Q = atoi(argv[2]);
    Cblacs_pinfo(&me, &np);
    if (P * Q != np)
        return fprintf(stderr, "need P*Q = %d processes\n", np), 2;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", P, Q);
    Cblacs_gridinfo(ctxt, &P, &Q, &myr, &myc);
    case_gesv(203, 3);
    case_sgesv(150, 2);
    case_getrf_getrs(181, 2);
    case_sgetrs_t(97, 3);
    case_sub("pdgesv sub", 120, 2, 32);
    case_sub("pdgesv unaligned", 120, 2, 7);
    case_singular(100, 1, 36);
    case_illegal();
    case_gesv(64, 1); /* a second call on the same grid: the cached grid */
    Cblacs_gridexit(ctxt);
    Cblacs_exit(0);
    return failures;
}
