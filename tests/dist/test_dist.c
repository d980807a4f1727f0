/*
 * ls_p?gesv on every grid named on the command line (PxQ, using the first
 * P*Q ranks) against LAPACK on rank 0: nb in {2, 32}, n in {1, 7, 64, 255,
 * 1000}, a sub-matrix at ia = ja = nb + 1, single precision, a singular
 * matrix (info on every rank = LAPACK's), ipiv = LAPACK's, and illegal
 * descriptors (ScaLAPACK's -(i*100+j) on every rank), getrs with trans 'T'
 * and 'C' against LAPACK's getrs on the gathered factors. One MAGMA-style row
 * per case on rank 0; exit status = failures.
 *   --fault R   expects LS_DIST_FAULT_ALLOC=R: every rank must get LS_ENOMEM
 *               naming rank R, and return (no hang)
 *   --die R     rank R exits mid-solve: mpirun must end every rank
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linsolve_dist.h"
#include "testutil.h"

static int rank_, size_;

/* xorshift: the same matrix on whichever rank asks */
static double rnd(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0 - 0.5;
}

static void fill(double *x, size_t n, unsigned long long seed)
{
    unsigned long long s = seed * 2654435761ULL + 88172645463325252ULL;
    for (size_t i = 0; i < n; ++i)
        x[i] = rnd(&s);
}

static double norm_inf(int m, int n, const double *a, int lda)
{
    double best = 0;
    for (int i = 0; i < m; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j)
            s += fabs(a[i + (size_t)j * lda]);
        best = s > best ? s : best;
    }
    return best;
}

/* ||B - A X||inf / (n ||A||inf ||X||inf eps), all n x n / n x k, ld n */
static double scaled_residual(int n, int k, const double *A, const double *B, const double *X,
                              double eps)
{
    double *R = lt_doubles((size_t)n * k);
    memcpy(R, B, sizeof(double) * (size_t)n * k);
    for (int c = 0; c < k; ++c)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
                R[i + (size_t)c * n] -= A[i + (size_t)j * n] * X[j + (size_t)c * n];
    double r = norm_inf(n, k, R, n), a = norm_inf(n, n, A, n), x = norm_inf(n, k, X, n);
    free(R);
    if (a == 0 || x == 0)
        return r == 0 ? 0 : INFINITY;
    return r / ((double)n * a * x * eps);
}

typedef struct gcase {
    int n, nrhs, nb, off, single, singular_col; /* off: sub(A) at ia = ja = off + 1 */
} gcase;

/* Every rank of the grid's communicator must hold the same value. */
static int same_everywhere(MPI_Comm comm, int v)
{
    int lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, comm);
    return lo == hi;
}

/* One gesv; returns 1 on failure (counted on rank 0 only). */
static int run_case(ls_grid *g, const gcase *c, const char *gname)
{
    int P, Q, myr, myc;
    ls_grid_info(g, &P, &Q, &myr, &myc);
    MPI_Comm comm = ls_grid_comm(g);
    int grank;
    MPI_Comm_rank(comm, &grank);
    const int n = c->n, k = c->nrhs, nb = c->nb, N = n + c->off;
    const int rsrc = (c->off / nb + P - 1) % P ? 0 : P - 1; /* not always process 0 */
    const int csrc = Q > 1 ? 1 : 0;
    double *G = NULL, *GB = NULL;
    if (grank == 0) {
        G = lt_doubles((size_t)N * N);
        GB = lt_doubles((size_t)N * k);
        fill(G, (size_t)N * N, (unsigned long long)(n * 31 + nb));
        fill(GB, (size_t)N * k, (unsigned long long)(n * 37 + 5));
        if (c->singular_col > 0) /* an exactly zero column: U(j,j) = 0 */
            for (int i = 0; i < N; ++i)
                G[i + (size_t)(c->off + c->singular_col - 1) * N] = 0;
    }
    int lr = ls_numroc(N, nb, myr, rsrc, P), lc = ls_numroc(N, nb, myc, csrc, Q);
    int lcb = ls_numroc(k, 4, myc, 0, Q);
    int desca[LS_DESC_LEN], descb[LS_DESC_LEN];
    int bad = ls_descinit(desca, N, N, nb, nb, rsrc, csrc, g, lr > 1 ? lr : 1) != 0;
    bad |= ls_descinit(descb, N, k, nb, 4, rsrc, 0, g, lr > 1 ? lr : 1) != 0;
    double *A = lt_doubles((size_t)(lr ? lr : 1) * (lc ? lc : 1));
    double *B = lt_doubles((size_t)(lr ? lr : 1) * (lcb ? lcb : 1));
    int *ipiv = lt_xmalloc(sizeof(int) * (size_t)(lr + nb));
    float *As = NULL, *Bs = NULL;
    int st = ls_pdscatter(0, G, N, A, desca, g);
    st |= ls_pdscatter(0, GB, N, B, descb, g);
    int info = -12345, gst = 0;
    double t0 = MPI_Wtime();
    if (c->single) {
        float *GS = NULL, *GBS = NULL;
        if (grank == 0) {
            GS = lt_xmalloc(sizeof(float) * (size_t)N * N);
            GBS = lt_xmalloc(sizeof(float) * (size_t)N * k);
            for (size_t i = 0; i < (size_t)N * N; ++i)
                GS[i] = (float)G[i];
            for (size_t i = 0; i < (size_t)N * k; ++i)
                GBS[i] = (float)GB[i];
        }
        As = lt_xmalloc(sizeof(float) * (size_t)(lr ? lr : 1) * (lc ? lc : 1));
        Bs = lt_xmalloc(sizeof(float) * (size_t)(lr ? lr : 1) * (lcb ? lcb : 1));
        st |= ls_psscatter(0, GS, N, As, desca, g) | ls_psscatter(0, GBS, N, Bs, descb, g);
        t0 = MPI_Wtime();
        gst = ls_psgesv(n, k, As, c->off + 1, c->off + 1, desca, ipiv, Bs, c->off + 1, 1, descb,
                        &info, g);
        float *XS = grank == 0 ? lt_xmalloc(sizeof(float) * (size_t)N * k) : NULL;
        ls_psgather(0, XS, N, Bs, descb, g);
        if (grank == 0)
            for (size_t i = 0; i < (size_t)N * k; ++i)
                GB[i] = XS[i]; /* GB now holds X */
        free(GS);
        free(GBS);
        free(XS);
    } else {
        gst = ls_pdgesv(n, k, A, c->off + 1, c->off + 1, desca, ipiv, B, c->off + 1, 1, descb,
                        &info, g);
    }
    double t = MPI_Wtime() - t0;
    int st_info = info;
    int consistent = same_everywhere(comm, info);
    /* the pivots, as global rows relative to sub(A), from process column 0 */
    int *gp = lt_xmalloc(sizeof(int) * (size_t)(n + 1));
    for (int r = 0; r < n; ++r) {
        int gr = c->off + r;
        gp[r] = 0;
        if (myc == 0 && (gr / nb + rsrc) % P == myr)
            gp[r] = ipiv[(gr / (nb * P)) * nb + gr % nb] - c->off;
    }
    MPI_Allreduce(MPI_IN_PLACE, gp, n, MPI_INT, MPI_MAX, comm);
    double *X = grank == 0 ? lt_doubles((size_t)N * k) : NULL;
    if (!c->single)
        ls_pdgather(0, X, N, B, descb, g);
    int fail = 0;
    if (grank == 0) {
        if (c->single)
            memcpy(X, GB, sizeof(double) * (size_t)N * k);
        /* LAPACK on the same sub(A) */
        double *S = lt_doubles((size_t)n * n), *SB = lt_doubles((size_t)n * k);
        double *XS = lt_doubles((size_t)n * k);
        for (int j = 0; j < n; ++j)
            memcpy(S + (size_t)j * n, G + (size_t)(c->off + j) * N + c->off, sizeof(double) * n);
        int *rp = lt_xmalloc(sizeof(int) * (size_t)n);
        double *F = lt_doubles((size_t)n * n);
        memcpy(F, S, sizeof(double) * (size_t)n * n);
        int rinfo = c->single ? 0 : (int)LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, F, n, rp);
        if (c->single) {
            float *FS = lt_xmalloc(sizeof(float) * (size_t)n * n);
            for (size_t i = 0; i < (size_t)n * n; ++i)
                FS[i] = (float)S[i];
            rinfo = (int)LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, FS, n, rp);
            free(FS);
        }
        int piv_diff = 0;
        for (int r = 0; r < n; ++r)
            piv_diff += gp[r] != rp[r];
        double res = 0;
        if (c->singular_col == 0) {
            /* the original B: regenerate (GB holds X in single) */
            double *B0 = lt_doubles((size_t)N * k);
            fill(B0, (size_t)N * k, (unsigned long long)(n * 37 + 5));
            for (int j = 0; j < k; ++j) {
                memcpy(SB + (size_t)j * n, B0 + (size_t)j * N + c->off, sizeof(double) * n);
                memcpy(XS + (size_t)j * n, X + (size_t)j * N + c->off, sizeof(double) * n);
            }
            free(B0);
            res = scaled_residual(n, k, S, SB, XS, c->single ? 0x1p-24 : 0x1p-53);
        }
        int ok = st == 0 && gst == st_info && consistent && st_info == rinfo && piv_diff == 0 && res <= LS_TEST_TOL;
        char method[64];
        snprintf(method, sizeof method, "gesv nb=%d%s%s", nb, c->off ? " ia=nb+1" : "",
                 c->singular_col ? " singular" : "");
        double fl = 2.0 * n * (double)n * n / 3.0 + 2.0 * n * (double)n * k;
        fail = lt_row(n, k, method, gname, c->single ? "s" : "d", t, t > 0 ? fl / t / 1e9 : 0,
                      res, ok);
        if (!ok)
            printf("      status %d/%d info %d (LAPACK %d, same on all ranks: %s), %d pivots differ\n",
                   st, gst, st_info, rinfo, consistent ? "yes" : "no", piv_diff);
        free(S);
        free(SB);
        free(XS);
        free(rp);
        free(F);
    }
    free(G);
    free(GB);
    free(A);
    free(B);
    free(As);
    free(Bs);
    free(ipiv);
    free(gp);
    free(X);
    return fail;
}

/* getrf, then getrs with trans 'T' or 'C' on the distributed factors,
 * against LAPACK's getrs on the gathered factors and pivots (the same
 * factors: X must agree to rounding) and the residual of A^T X = B.
 * Returns 1 on failure (counted on rank 0 only). */
static int run_trans(ls_grid *g, int n, int k, int nb, int off, int single, char trans,
                     const char *gname)
{
    int P, Q, myr, myc, grank;
    ls_grid_info(g, &P, &Q, &myr, &myc);
    MPI_Comm comm = ls_grid_comm(g);
    MPI_Comm_rank(comm, &grank);
    const int N = n + off, rsrc = P > 1 ? 1 : 0, csrc = 0;
    double *G = lt_doubles((size_t)N * N), *GB = lt_doubles((size_t)N * k);
    fill(G, (size_t)N * N, (unsigned long long)(n * 41 + nb));
    fill(GB, (size_t)N * k, (unsigned long long)(n * 43 + 1));
    if (single) /* the same values in both precisions */
        for (size_t i = 0; i < (size_t)N * N; ++i)
            G[i] = (float)G[i];
    if (single)
        for (size_t i = 0; i < (size_t)N * k; ++i)
            GB[i] = (float)GB[i];
    int lr = ls_numroc(N, nb, myr, rsrc, P), lc = ls_numroc(N, nb, myc, csrc, Q);
    int lcb = ls_numroc(k, 2, myc, 0, Q), lld = lr > 1 ? lr : 1;
    int da[LS_DESC_LEN], db[LS_DESC_LEN], info = -1, st;
    ls_descinit(da, N, N, nb, nb, rsrc, csrc, g, lld);
    ls_descinit(db, N, k, nb, 2, rsrc, 0, g, lld);
    size_t la = (size_t)lld * (lc ? lc : 1), lb = (size_t)lld * (lcb ? lcb : 1);
    double *A = lt_doubles(la), *B = lt_doubles(lb);
    float *As = lt_xmalloc(sizeof(float) * la), *Bs = lt_xmalloc(sizeof(float) * lb);
    float *GS = lt_xmalloc(sizeof(float) * (size_t)N * N), *GBS = lt_xmalloc(sizeof(float) * (size_t)N * k);
    int *ipiv = lt_xmalloc(sizeof(int) * (size_t)(lr + nb));
    for (size_t i = 0; i < (size_t)N * N; ++i)
        GS[i] = (float)G[i];
    for (size_t i = 0; i < (size_t)N * k; ++i)
        GBS[i] = (float)GB[i];
    const int o = off + 1;
    double t0 = MPI_Wtime(), t;
    int info2 = -1;
    if (single) {
        st = ls_psscatter(0, GS, N, As, da, g) | ls_psscatter(0, GBS, N, Bs, db, g);
        st |= ls_psgetrf(n, n, As, o, o, da, ipiv, &info, g);
        t0 = MPI_Wtime();
        st |= ls_psgetrs(trans, n, k, As, o, o, da, ipiv, Bs, o, 1, db, &info2, g);
        t = MPI_Wtime() - t0;
        st |= ls_psgather(0, GS, N, As, da, g) | ls_psgather(0, GBS, N, Bs, db, g);
    } else {
        st = ls_pdscatter(0, G, N, A, da, g) | ls_pdscatter(0, GB, N, B, db, g);
        st |= ls_pdgetrf(n, n, A, o, o, da, ipiv, &info, g);
        t0 = MPI_Wtime();
        st |= ls_pdgetrs(trans, n, k, A, o, o, da, ipiv, B, o, 1, db, &info2, g);
        t = MPI_Wtime() - t0;
    }
    double *F = lt_doubles((size_t)N * N), *X = lt_doubles((size_t)N * k);
    if (!single)
        st |= ls_pdgather(0, F, N, A, da, g) | ls_pdgather(0, X, N, B, db, g);
    /* the pivots, relative to sub(A), from process column 0 */
    int *gp = lt_xmalloc(sizeof(int) * (size_t)(n + 1));
    for (int r = 0; r < n; ++r) {
        int gr = off + r;
        gp[r] = 0;
        if (myc == 0 && (gr / nb + rsrc) % P == myr)
            gp[r] = ipiv[(gr / (nb * P)) * nb + gr % nb] - off;
    }
    MPI_Allreduce(MPI_IN_PLACE, gp, n, MPI_INT, MPI_MAX, comm);
    int fail = 0;
    if (grank == 0) {
        double *S = lt_doubles((size_t)n * n), *SB = lt_doubles((size_t)n * k);
        double *XS = lt_doubles((size_t)n * k), *XR = lt_doubles((size_t)n * k);
        float *FS = lt_xmalloc(sizeof(float) * (size_t)n * n), *XRS = lt_xmalloc(sizeof(float) * (size_t)n * k);
        /* A^T of sub(A) (for the residual), B, X, and LAPACK's X from the
         * gathered factors */
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                S[j + (size_t)i * n] = G[off + i + (size_t)(off + j) * N];
                FS[i + (size_t)j * n] = single ? GS[off + i + (size_t)(off + j) * N]
                                               : (float)0;
            }
        double *FD = lt_doubles((size_t)n * n);
        for (int j = 0; j < n; ++j)
            memcpy(FD + (size_t)j * n, F + (size_t)(off + j) * N + off, sizeof(double) * n);
        for (int c = 0; c < k; ++c)
            for (int i = 0; i < n; ++i) {
                SB[i + (size_t)c * n] = GB[off + i + (size_t)c * N];
                XS[i + (size_t)c * n] = single ? GBS[off + i + (size_t)c * N]
                                               : X[off + i + (size_t)c * N];
                XR[i + (size_t)c * n] = SB[i + (size_t)c * n];
                XRS[i + (size_t)c * n] = (float)SB[i + (size_t)c * n];
            }
        int rinfo;
        if (single) {
            rinfo = (int)LAPACKE_sgetrs(LAPACK_COL_MAJOR, trans, n, k, FS, n, gp, XRS, n);
            for (size_t i = 0; i < (size_t)n * k; ++i)
                XR[i] = XRS[i];
        } else {
            rinfo = (int)LAPACKE_dgetrs(LAPACK_COL_MAJOR, trans, n, k, FD, n, gp, XR, n);
        }
        double d = 0, s = 0;
        for (size_t i = 0; i < (size_t)n * k; ++i) {
            d = fabs(XS[i] - XR[i]) > d ? fabs(XS[i] - XR[i]) : d;
            s = fabs(XR[i]) > s ? fabs(XR[i]) : s;
        }
        d = s > 0 ? d / s : d;
        const double eps = single ? 0x1p-24 : 0x1p-53;
        double res = scaled_residual(n, k, S, SB, XS, eps);
        /* the same factors and pivots: X agrees to rounding, amplified by
         * at most about cond(A) (random, n <= 255: well below 1e4) */
        int ok = st == 0 && info == 0 && info2 == 0 && rinfo == 0 && d <= 1e4 * eps &&
                 res <= LS_TEST_TOL;
        char method[64];
        snprintf(method, sizeof method, "getrs %c nb=%d%s", trans, nb, off ? " ia=nb+1" : "");
        double fl = 2.0 * n * (double)n * k;
        fail = lt_row(n, k, method, gname, single ? "s" : "d", t, t > 0 ? fl / t / 1e9 : 0, res,
                      ok);
        if (!ok)
            printf("      status %d info %d/%d (LAPACK %d), max|X - X(LAPACK)|/max|X| = %.3g\n",
                   st, info, info2, rinfo, d);
        free(S), free(SB), free(XS), free(XR), free(FS), free(XRS), free(FD);
    }
    free(G), free(GB), free(A), free(B), free(As), free(Bs), free(GS), free(GBS), free(ipiv);
    free(F), free(X), free(gp);
    return fail;
}

/* Illegal arguments: the same ScaLAPACK info on every rank, no crash. */
static int run_bad(ls_grid *g, const char *gname)
{
    int P, Q, myr, myc, grank;
    ls_grid_info(g, &P, &Q, &myr, &myc);
    MPI_Comm comm = ls_grid_comm(g);
    MPI_Comm_rank(comm, &grank);
    const int n = 16, nb = 4;
    int lr = ls_numroc(n, nb, myr, 0, P), lc = ls_numroc(n, nb, myc, 0, Q);
    double *A = lt_doubles((size_t)lr * lc + 1), *B = lt_doubles((size_t)lr + 1);
    int ipiv[64], fails = 0;
    struct {
        const char *what;
        int entry, value, bentry, bvalue, n, nrhs, ia, expect;
    } cs[] = {
        {"DTYPE_A = 2", LS_DESC_DTYPE, 2, -1, 0, n, 1, 1, -601},
        {"CTXT_A wrong", LS_DESC_CTXT, 12345678, -1, 0, n, 1, 1, -602},
        {"MB_A = 0", LS_DESC_MB, 0, -1, 0, n, 1, 1, -605},
        {"NB_A != MB_A", LS_DESC_NB, 8, -1, 0, n, 1, 1, -606},
        {"RSRC_A = P", LS_DESC_RSRC, P, -1, 0, n, 1, 1, -607},
        {"LLD_A too small", LS_DESC_LLD, 0, -1, 0, n, 1, 1, -609},
        {"n > M_A", -1, 0, -1, 0, n + 1, 1, 1, -603},
        {"n < 0", -1, 0, -1, 0, -1, 1, 1, -1},
        {"nrhs < 0", -1, 0, -1, 0, n, -1, 1, -2},
        {"ia not on a block boundary", -1, 0, -1, 0, 8, 1, 2, -4},
        {"MB_B != NB_A", -1, 0, LS_DESC_MB, 2, n, 1, 1, -1105},
        {"DTYPE_B = 0", -1, 0, LS_DESC_DTYPE, 0, n, 1, 1, -1101},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; ++i) {
        int da[LS_DESC_LEN], db[LS_DESC_LEN], info = 0;
        ls_descinit(da, n, n, nb, nb, 0, 0, g, lr > 1 ? lr : 1);
        ls_descinit(db, n, 1, nb, 1, 0, 0, g, lr > 1 ? lr : 1);
        if (cs[i].entry >= 0)
            da[cs[i].entry] = cs[i].value;
        if (cs[i].bentry >= 0)
            db[cs[i].bentry] = cs[i].bvalue;
        int st = ls_pdgesv(cs[i].n, cs[i].nrhs, A, cs[i].ia, cs[i].ia, da, ipiv, B, cs[i].ia, 1,
                           db, &info, g);
        int ok = st == cs[i].expect && info == cs[i].expect && same_everywhere(comm, info);
        int all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
        if (grank == 0)
            fails += lt_check(all_ok, "%s %s: info %d (expected %d)", gname, cs[i].what, info,
                              cs[i].expect);
    }
    /* getrs: trans letter */
    int da[LS_DESC_LEN], db[LS_DESC_LEN], info = 0;
    ls_descinit(da, n, n, nb, nb, 0, 0, g, lr > 1 ? lr : 1);
    ls_descinit(db, n, 1, nb, 1, 0, 0, g, lr > 1 ? lr : 1);
    int st = ls_pdgetrs('X', n, 1, A, 1, 1, da, ipiv, B, 1, 1, db, &info, g);
    if (grank == 0)
        fails += lt_check(st == -1 && info == -1, "%s getrs trans 'X': info %d", gname, info);
    free(A);
    free(B);
    return fails;
}

static int parse_grid(const char *s, int *P, int *Q)
{
    return sscanf(s, "%dx%d", P, Q) == 2 && *P >= 1 && *Q >= 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    int fails = 0, fault = -1, die = -1, quick = 0;
    if (rank_ == 0)
        lt_header();
    for (int a = 1; a < argc; ++a) {
        int P, Q;
        if (!strcmp(argv[a], "--fault") && a + 1 < argc) {
            fault = atoi(argv[++a]);
            continue;
        }
        if (!strcmp(argv[a], "--die") && a + 1 < argc) {
            die = atoi(argv[++a]);
            continue;
        }
        if (!strcmp(argv[a], "--quick")) {
            quick = 1;
            continue;
        }
        if (parse_grid(argv[a], &P, &Q) != 0 || P * Q > size_) {
            if (rank_ == 0)
                fprintf(stderr, "test_dist: bad grid '%s' for %d ranks\n", argv[a], size_);
            fails++;
            continue;
        }
        ls_grid *g = NULL;
        int st = ls_grid_create(&g, MPI_COMM_WORLD, P, Q);
        if (st != 0) {
            fails++;
            continue;
        }
        if (ls_grid_comm(g) != MPI_COMM_NULL) {
            char gname[32];
            snprintf(gname, sizeof gname, "mpi %dx%d", P, Q);
            /* LS_DIST_TEST_BACKEND=cuda: the same cases on the CUDA engine,
             * skipped (77) where it cannot open */
            const char *be = getenv("LS_DIST_TEST_BACKEND");
            int cuda = be && !strcmp(be, "cuda"); /* rank 0's word: every rank or none */
            MPI_Bcast(&cuda, 1, MPI_INT, 0, ls_grid_comm(g));
            if (cuda) {
                st = ls_grid_set_backend(g, LS_BACKEND_CUDA, -1);
                if (st == LS_EUNAVAIL) {
                    if (rank_ == 0)
                        printf("SKIP: no CUDA engine: %s\n", ls_grid_error(g));
                    ls_grid_destroy(g);
                    MPI_Finalize();
                    return 77;
                }
                if (st != 0) {
                    if (rank_ == 0)
                        printf("cuda engine: %s -> FAILED\n", ls_grid_error(g));
                    fails++;
                    ls_grid_destroy(g);
                    continue;
                }
                if (rank_ == 0)
                    printf("engine: %s\n", ls_grid_engine_name(g));
                snprintf(gname, sizeof gname, "cuda %dx%d", P, Q);
            }
            int grank;
            MPI_Comm_rank(ls_grid_comm(g), &grank);
            if (fault >= 0 || die >= 0) {
                gcase c = {200, 1, 16, 0, 0, 0};
                if (die >= 0 && grank == die) {
                    fprintf(stderr, "test_dist: rank %d exits on purpose (--die)\n", grank);
                    _exit(3);
                }
                if (die >= 0) {
                    run_case(g, &c, gname); /* never returns on the survivors: mpirun ends them */
                } else {
                    int n = c.n, lr = ls_numroc(n, 16, 0, 0, P), info = 0;
                    int d[LS_DESC_LEN];
                    ls_descinit(d, n, n, 16, 16, 0, 0, g, n);
                    double *A = lt_doubles((size_t)n * n), *B = lt_doubles((size_t)n);
                    int *ip = lt_xmalloc(sizeof(int) * (size_t)(n + 16));
                    int db[LS_DESC_LEN];
                    ls_descinit(db, n, 1, 16, 16, 0, 0, g, n);
                    (void)lr;
                    st = ls_pdgesv(n, 1, A, 1, 1, d, ip, B, 1, 1, db, &info, g);
                    char want[32];
                    snprintf(want, sizeof want, "rank %d ", fault);
                    int ok = st == LS_ENOMEM && strstr(ls_grid_error(g), want) != NULL;
                    printf("rank %d: status %d (%s): %s -> %s\n", grank, st, ls_status_name(st),
                           ls_grid_error(g), ok ? "ok" : "FAILED");
                    int all_ok = 0;
                    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ls_grid_comm(g));
                    fails += !all_ok;
                    free(A);
                    free(B);
                    free(ip);
                }
            } else {
                static const int ns[] = {1, 7, 64, 255, 1000}, nbs[] = {2, 32};
                for (int b = 0; b < 2; ++b)
                    for (int i = 0; i < 5; ++i) {
                        if (quick && ns[i] > 255)
                            continue;
                        gcase c = {ns[i], 3, nbs[b], 0, 0, 0};
                        fails += run_case(g, &c, gname);
                    }
                gcase extra[] = {
                    {64, 2, 8, 8, 0, 0},   /* sub(A) at ia = ja = 9 */
                    {255, 2, 32, 0, 1, 0}, /* single precision */
                    {100, 1, 8, 0, 0, 37}, /* column 37 zero: info 37 */
                    {64, 1, 2, 0, 0, 64},  /* the last column zero */
                };
                for (size_t i = 0; i < sizeof extra / sizeof extra[0]; ++i)
                    fails += run_case(g, &extra[i], gname);
                /* the transposed solve, both precisions, a sub-matrix too */
                static const int tns[] = {1, 7, 64, 255};
                for (int b = 0; b < 2; ++b)
                    for (int i = 0; i < 4; ++i)
                        fails += run_trans(g, tns[i], 3, nbs[b], 0, 0, i % 2 ? 'C' : 'T', gname);
                fails += run_trans(g, 255, 2, 32, 0, 1, 'T', gname);
                fails += run_trans(g, 100, 2, 8, 0, 1, 'c', gname);
                fails += run_trans(g, 64, 2, 8, 8, 0, 'T', gname);
                fails += run_trans(g, 64, 2, 8, 8, 1, 't', gname);
                fails += run_bad(g, gname);
            }
        }
        ls_grid_destroy(g);
    }
    MPI_Bcast(&fails, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return fails > 125 ? 125 : fails;
}
