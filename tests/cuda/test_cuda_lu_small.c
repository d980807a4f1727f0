/* The device LU for small n (one launch of one thread-block cluster) at
 * every size where its shape changes, and one past its limit: n = 1, 2,
 * the cluster-size steps (about 32 columns a block: 32/33, 64/65, ...),
 * where each precision's matrix stops fitting shared memory and the
 * in-place form takes over (FP64 512/513, FP32 about 800), and the limit
 * 1024 with 1023 and 1025. For each n, FP64 and FP32, through the public
 * device API:
 *  - gesv with nrhs 1 and 7 (one fused launch) on a random matrix, one
 *    with a zero diagonal (pivoting needed) and a randsvd one of condition
 *    1e12 (1e6 in FP32);
 *  - getrf, then getrs 'N' and 'T', on the random matrix;
 *  - gesv and getrf on a matrix with an exactly zero column: info at that
 *    column, as the CPU's LAPACK says, and B left as it was.
 * Checks: info equal to the CPU LAPACK getrf's; scaled residual
 * ||B - op(A) X||inf / (n ||A||inf ||X||inf eps) <= 30; ipiv equal to the
 * CPU's unless the first difference is a near tie (the CPU's multiplier of
 * the GPU's pivot row at that step has magnitude within 1e-3 of 1, i.e.
 * rounding may pick either). Leading dimensions are larger than n. */
#include "cuda_testlib.h"

#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LDA_PAD 3
#define LDB_PAD 1

typedef struct lus_case {
    ls_precision p;
    int n, nrhs;
    const double *A;  /* n x n, ld n, already rounded to p */
    const double *B;  /* n x nrhs, ld n, rounded to p */
    const double *LU; /* the CPU's factors of A (ld n) */
    const int *ipiv_ref;
    int info_ref;
    const char *what;
} lus_case;

static size_t es_of(ls_precision p) { return p == LS_DOUBLE ? sizeof(double) : sizeof(float); }
static double eps_of(ls_precision p) { return p == LS_DOUBLE ? DBL_EPSILON / 2 : FLT_EPSILON / 2; }

/* The n x nc double block src (ld lds) as precision p into dst (ld ldd). */
static void pack(ls_precision p, int n, int nc, const double *src, int lds, void *dst, int ldd)
{
    for (int j = 0; j < nc; j++)
        for (int i = 0; i < n; i++) {
            double v = src[i + (size_t)j * lds];
            if (p == LS_DOUBLE)
                ((double *)dst)[i + (size_t)j * ldd] = v;
            else
                ((float *)dst)[i + (size_t)j * ldd] = (float)v;
        }
}

static void unpack(ls_precision p, int n, int nc, const void *src, int lds, double *dst, int ldd)
{
    for (int j = 0; j < nc; j++)
        for (int i = 0; i < n; i++)
            dst[i + (size_t)j * ldd] = p == LS_DOUBLE ? ((const double *)src)[i + (size_t)j * lds]
                                                      : ((const float *)src)[i + (size_t)j * lds];
}

/* ||B - op(A) X||inf / (n ||A||inf ||X||inf eps), all ld n. */
static double residual(ls_precision p, int trans, int n, int nrhs, const double *A,
                       const double *B, const double *X)
{
    double anorm = 0, xnorm = 0, rnorm = 0;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += fabs(A[i + (size_t)j * n]);
        anorm = s > anorm ? s : anorm;
    }
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < n; i++) {
            double r = B[i + (size_t)c * n], x = fabs(X[i + (size_t)c * n]);
            for (int j = 0; j < n; j++)
                r -= (trans ? A[j + (size_t)i * n] : A[i + (size_t)j * n]) * X[j + (size_t)c * n];
            rnorm = fabs(r) > rnorm || r != r ? fabs(r) : rnorm;
            xnorm = x > xnorm || x != x ? x : xnorm;
        }
    double d = (double)n * anorm * xnorm * eps_of(p);
    return d > 0 ? rnorm / d : (rnorm == 0 ? 0 : INFINITY);
}

/* 1 when ipiv equals the reference, or differs first at a near tie. */
static int pivots_agree(const lus_case *t, const int *ipiv, int *first_diff)
{
    int n = t->n, k = 0;
    while (k < n && ipiv[k] == t->ipiv_ref[k])
        k++;
    *first_diff = k < n ? k : -1;
    if (k == n)
        return 1;
    int pos = ipiv[k] - 1; /* the GPU's pivot row, where the CPU's swaps from k on put it */
    if (pos < k || pos >= n)
        return 0;
    for (int s = k; s < n; s++) {
        int r = t->ipiv_ref[s] - 1;
        if (r == pos)
            pos = s;
        else if (s == pos)
            pos = r;
    }
    return fabs(t->LU[pos + (size_t)k * n]) >= 1 - 1e-3;
}

static void *dev_alloc(size_t bytes)
{
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc of %zu bytes failed\n", bytes);
        exit(2);
    }
    return d;
}

/* One solve through the device API: mode 0 gesv, 1 getrf + getrs 'N',
 * 2 getrf + getrs 'T'. Returns the number of failures (0 or 1). */
static int run_case(ls_context *ctx, const lus_case *t, int mode)
{
    const ls_precision p = t->p;
    const int n = t->n, nrhs = t->nrhs, lda = n + LDA_PAD, ldb = n + LDB_PAD;
    const size_t es = es_of(p);
    void *hA = ct_alloc((size_t)lda * n, es), *hB = ct_alloc((size_t)ldb * nrhs, es);
    double *X = ct_alloc((size_t)n * nrhs, sizeof *X);
    int *ipiv = ct_alloc((size_t)n, sizeof *ipiv), info = -1, st = 0, fails = 0, diff = -1;
    void *dA = dev_alloc((size_t)lda * n * es), *dB = dev_alloc((size_t)ldb * nrhs * es);
    char label[64];
    pack(p, n, n, t->A, n, hA, lda);
    pack(p, n, nrhs, t->B, n, hB, ldb);
    cudaMemcpy(dA, hA, (size_t)lda * n * es, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, (size_t)ldb * nrhs * es, cudaMemcpyHostToDevice);
    if (mode == 0) {
        st = p == LS_DOUBLE ? ls_dgesv_gpu(n, nrhs, dA, lda, ipiv, dB, ldb, &info, ctx)
                            : ls_sgesv_gpu(n, nrhs, dA, lda, ipiv, dB, ldb, &info, ctx);
    } else {
        st = p == LS_DOUBLE ? ls_dgetrf_gpu(n, n, dA, lda, ipiv, &info, ctx)
                            : ls_sgetrf_gpu(n, n, dA, lda, ipiv, &info, ctx);
        if (st == 0) {
            char tr = mode == 1 ? 'N' : 'T';
            int sinfo = 0;
            st = p == LS_DOUBLE
                     ? ls_dgetrs_gpu(tr, n, nrhs, dA, lda, ipiv, dB, ldb, &sinfo, ctx)
                     : ls_sgetrs_gpu(tr, n, nrhs, dA, lda, ipiv, dB, ldb, &sinfo, ctx);
        }
    }
    cudaMemcpy(hB, dB, (size_t)ldb * nrhs * es, cudaMemcpyDeviceToHost);
    unpack(p, n, nrhs, hB, ldb, X, n);
    snprintf(label, sizeof label, "%s %s", mode == 0 ? "gesv" : mode == 1 ? "getrf+getrs N"
                                                                          : "getrf+getrs T",
             t->what);
    const char *prec = p == LS_DOUBLE ? "double" : "single";
    if (t->info_ref > 0) {
        /* singular: info as LAPACK's, pivots as LAPACK's, gesv leaves B alone */
        int same_b = 1;
        for (size_t e = 0; mode == 0 && e < (size_t)n * nrhs; e++)
            same_b &= X[e] == t->B[e];
        int ok = st == t->info_ref && info == t->info_ref && pivots_agree(t, ipiv, &diff) &&
                 same_b;
        fails += lt_check(ok, "n %d nrhs %d %s %s: status %d info %d (CPU %d), ipiv differs at %d, "
                              "B %s",
                          n, nrhs, prec, label, st, info, t->info_ref, diff,
                          same_b ? "kept" : "CHANGED");
    } else {
        double r = st == 0 && info == 0 ? residual(p, mode == 2, n, nrhs, t->A, t->B, X) : NAN;
        /* randsvd's singular values down to 1/cond make near-ties of rounding
         * size likely, most of all in FP32: there the residual is the test */
        int piv_ok = !strcmp(t->what, "randsvd") || pivots_agree(t, ipiv, &diff);
        fails += lt_row(n, nrhs, label, "cuda", prec, 0, 0, r, st == 0 && info == 0 && r <= 30 &&
                                                               piv_ok);
        if (!piv_ok || st != 0 || info != 0)
            printf("    status %d (%s) info %d, ipiv differs from the CPU's at %d (not a tie)\n",
                   st, ls_strerror(st), info, diff);
    }
    cudaFree(dA);
    cudaFree(dB);
    free(hA);
    free(hB);
    free(X);
    free(ipiv);
    return fails;
}

/* The CPU's getrf of A (rounded to p) in precision p: factors (as double)
 * into LU, pivots, info. */
static int cpu_getrf(ls_precision p, int n, const double *A, double *LU, int *ipiv)
{
    void *w = ct_alloc((size_t)n * n, es_of(p));
    int info = 0;
    pack(p, n, n, A, n, w, n);
    if (p == LS_DOUBLE)
        ls_dgetrf(n, n, w, n, ipiv, &info, NULL);
    else
        ls_sgetrf(n, n, w, n, ipiv, &info, NULL);
    unpack(p, n, n, w, n, LU, n);
    free(w);
    return info;
}

static int run_size(ls_context *ctx, ls_precision p, int n, uint64_t seed)
{
    static const struct {
        ls_gen_kind kind;
        const char *what;
    } kinds[] = {{LS_GEN_RANDOM, "random"},
                 {LS_GEN_ZERODIAG, "zero diagonal"},
                 {LS_GEN_RANDSVD, "randsvd"},
                 {LS_GEN_SINGULAR, "singular"}};
    const int nrhs_max = 7;
    double *A = ct_alloc((size_t)n * n, sizeof *A), *LU = ct_alloc((size_t)n * n, sizeof *LU);
    double *B = ct_alloc((size_t)n * nrhs_max, sizeof *B);
    double *Bw = ct_alloc((size_t)n * nrhs_max, sizeof *Bw); /* B rounded to p */
    int *ipiv_ref = ct_alloc((size_t)n, sizeof *ipiv_ref), fails = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        double cond = p == LS_DOUBLE ? 1e12 : 1e6;
        if (n == 1 && kinds[k].kind == LS_GEN_ZERODIAG)
            continue; /* a 1 x 1 zero diagonal is singular, not a pivoting test */
        ls_generate(kinds[k].kind, n, A, n, seed + k, cond);
        ls_fill_random(n, nrhs_max, B, n, seed + 100 + k);
        pack(p, n, n, A, n, LU, n); /* round A and B to p: both sides see the same data */
        unpack(p, n, n, LU, n, A, n);
        pack(p, n, nrhs_max, B, n, Bw, n);
        unpack(p, n, nrhs_max, Bw, n, B, n);
        int info_ref = cpu_getrf(p, n, A, LU, ipiv_ref);
        if (kinds[k].kind == LS_GEN_SINGULAR && info_ref <= 0) {
            fails += lt_check(0, "n %d: the singular matrix has CPU info %d", n, info_ref);
            continue;
        }
        for (int nrhs = 1; nrhs <= nrhs_max; nrhs += nrhs_max - 1) {
            lus_case t = {p, n, nrhs, A, B, LU, ipiv_ref, info_ref, kinds[k].what};
            fails += run_case(ctx, &t, 0);
            if (kinds[k].kind == LS_GEN_RANDOM || kinds[k].kind == LS_GEN_SINGULAR) {
                fails += run_case(ctx, &t, 1);
                if (info_ref == 0)
                    fails += run_case(ctx, &t, 2);
            }
        }
    }
    free(A);
    free(Bw);
    free(LU);
    free(B);
    free(ipiv_ref);
    return fails;
}

int main(int argc, char **argv)
{
    /* every n where the cluster or the last panel changes shape, one on
     * either side, and where each precision stops fitting */
    static const int sizes[] = {1,   2,   31,  32,  33,  63,  64,  65,  127, 128, 129, 159,
                                160, 161, 255, 256, 257, 383, 384, 385, 511, 512, 513, 639,
                                640, 641, 799, 800, 801, 1023, 1024, 1025};
    ls_context *ctx = ct_open_or_skip();
    int fails = 0, quick = argc > 1 && !strcmp(argv[1], "--quick");
    const char *env = getenv("LS_CUDA_LU_SMALL_BLOCKS"), *inp = getenv("LS_CUDA_LU_SMALL_IN_PLACE");
    printf("cluster size: %s; in place: %s\n", env ? env : "chosen by n",
           inp && !strcmp(inp, "1") ? "always" : "where the matrix does not fit");
    lt_header();
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (quick && sizes[s] > 160)
            break;
        for (int prec = 0; prec < 2; prec++)
            fails += run_size(ctx, prec == 0 ? LS_DOUBLE : LS_SINGLE, sizes[s],
                              0x5eedull * (uint64_t)(s + 1));
    }
    ls_context_destroy(ctx);
    printf("%d failure(s)\n", fails);
    return fails > 255 ? 255 : fails;
}
