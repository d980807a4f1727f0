/*
 * Batched getrf / getrs / gesv (ls_?*_batched) against per-system LAPACK.
 *   --backend cpu|cuda|opencl   the context (cuda, opencl: exit 77 without a device)
 *   --sweep     batch {1, 7, 1000} x n {1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64, 65,
 *               100, 128, 129, 513} x nrhs {1, 3} (and 2 for n <= 32) x
 *               FP64/FP32 x column/row-major,
 *               through gesv; the big orders' batch is capped so the sweep
 *               stays fast. Each system: info as LAPACK's, scaled residual
 *               <= 30; FP64: pivots equal to LAPACK's.
 *   --factor    getrf_batched then getrs_batched with trans N and T
 *   --getrs-edges  (with --factor) the orders where the CUDA solve's kernel
 *               changes instead: a thread's rows 1, 2, 4, then shared memory
 *   --singular  a stack mixing singular, zero, ill-conditioned and plain
 *               systems: each singular one flagged at LAPACK's column with
 *               its B kept, its neighbours solved
 *   --no-pivots gesv with ipiv NULL (as the planner calls it), singular
 *               systems interleaved: a row-major stack may then be factored
 *               as A^T, so info need only be nonzero where LAPACK's is
 *   --args      -i numbering, batch = 0, the _gpu routines' refusals
 *   --device    (cuda) the _gpu routines on device memory, same checks
 *   --max-n N   only the orders up to N (for a kernel forced on small n)
 * Exit status: the number of failures (at most 76), 77 skipped.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#ifdef LS_HAVE_LAPACKE
#include <lapacke.h>
#endif

static ls_context *g_ctx;
static const char *g_backend = "cpu";
static int g_device; /* run through the _gpu routines */
static int g_max_n = 1 << 30; /* orders above are skipped */
static int g_getrs_edges;      /* --getrs-edges */

/* ---- the stack under test: logical matrices kept in double ---------- */
typedef struct stack {
    int n, nrhs, batch;
    ls_precision prec;
    ls_layout layout;
    double *A0, *B0; /* logical, column-major, compact, per system */
    void *A, *B;     /* as passed: working precision, in layout */
    int *ipiv, *info;
    int skip_pivots; /* Hilbert's near-ties may round either way */
    int no_pivots;   /* gesv with ipiv NULL: info checked for nonzero only */
} stack;

static uint64_t rnd_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rnd(uint64_t *s)
{
    return (double)(rnd_u64(s) >> 11) * 0x1.0p-52 - 1.0;
}

static size_t es_of(ls_precision p)
{
    return p == LS_SINGLE ? sizeof(float) : sizeof(double);
}

/* Position of (i, j) of a system in the passed arrays. */
static size_t a_at(const stack *s, int b, int i, int j)
{
    size_t nn = (size_t)s->n * s->n;
    return b * nn + (s->layout == LS_ROW_MAJOR ? (size_t)i * s->n + j : i + (size_t)j * s->n);
}

static size_t b_at(const stack *s, int b, int i, int r)
{
    size_t nb = (size_t)s->n * s->nrhs;
    return b * nb + (s->layout == LS_ROW_MAJOR ? (size_t)i * s->nrhs + r : i + (size_t)r * s->n);
}

static double get(const stack *s, const void *M, size_t k)
{
    return s->prec == LS_SINGLE ? ((const float *)M)[k] : ((const double *)M)[k];
}

static void put(const stack *s, void *M, size_t k, double v)
{
    if (s->prec == LS_SINGLE)
        ((float *)M)[k] = (float)v;
    else
        ((double *)M)[k] = v;
}

/* Rounded to the working precision, so the reference solves the same A. */
static double round_to(ls_precision p, double v)
{
    return p == LS_SINGLE ? (double)(float)v : v;
}

static void stack_make(stack *s, int n, int nrhs, int batch, ls_precision p, ls_layout layout,
                       uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->n = n, s->nrhs = nrhs, s->batch = batch, s->prec = p, s->layout = layout;
    size_t na = (size_t)batch * n * n, nb = (size_t)batch * n * nrhs;
    s->A0 = lt_doubles(na);
    s->B0 = lt_doubles(nb);
    s->A = lt_xmalloc(na * es_of(p));
    s->B = lt_xmalloc(nb * es_of(p));
    s->ipiv = lt_xmalloc(sizeof(int) * ((size_t)batch * n + 1));
    s->info = lt_xmalloc(sizeof(int) * ((size_t)batch + 1));
    for (size_t k = 0; k < na; k++)
        s->A0[k] = round_to(p, rnd(&seed));
    for (size_t k = 0; k < nb; k++)
        s->B0[k] = round_to(p, rnd(&seed));
    for (int b = 0; b < batch; b++)
        s->info[b] = -777;
}

/* A0/B0 (logical) -> A/B (as passed). */
static void stack_store(stack *s)
{
    int n = s->n;
    for (int b = 0; b < s->batch; b++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                put(s, s->A, a_at(s, b, i, j), s->A0[(size_t)b * n * n + i + (size_t)j * n]);
        for (int r = 0; r < s->nrhs; r++)
            for (int i = 0; i < n; i++)
                put(s, s->B, b_at(s, b, i, r), s->B0[(size_t)b * n * s->nrhs + i + (size_t)r * n]);
    }
}

static void stack_free(stack *s)
{
    free(s->A0), free(s->B0), free(s->A), free(s->B), free(s->ipiv), free(s->info);
}

/* ---- the call under test, host or device arrays -------------------- */
enum { OP_GESV, OP_GETRF, OP_GETRS };

/* Copies of the host arrays on the device and back (--device). */
static int dev_roundtrip(stack *s, int op, char trans)
{
    size_t es = es_of(s->prec), na = (size_t)s->batch * s->n * s->n,
           nb = (size_t)s->batch * s->n * s->nrhs;
    void *dA = NULL, *dB = NULL, *dp = NULL, *di = NULL;
    int st = ls_device_malloc(g_ctx, &dA, na * es + 8);
    st = st ? st : ls_device_malloc(g_ctx, &dB, nb * es + 8);
    st = st ? st : ls_device_malloc(g_ctx, &dp, ((size_t)s->batch * s->n + 1) * sizeof(int));
    st = st ? st : ls_device_malloc(g_ctx, &di, ((size_t)s->batch + 1) * sizeof(int));
    st = st ? st : ls_device_copy(g_ctx, dA, s->A, na * es);
    st = st ? st : ls_device_copy(g_ctx, dB, s->B, nb * es);
    st = st ? st : ls_device_copy(g_ctx, dp, s->ipiv, (size_t)s->batch * s->n * sizeof(int));
    if (s->no_pivots)
        ls_device_free(g_ctx, dp), dp = NULL;
    int n = s->n, nrhs = s->nrhs, rm = s->layout == LS_ROW_MAJOR;
    int ldb = rm ? (nrhs > 1 ? nrhs : 1) : (n > 1 ? n : 1), lda = n > 1 ? n : 1;
    long long sA = (long long)n * n, sB = (long long)n * nrhs;
    if (!st) {
        int dbl = s->prec == LS_DOUBLE;
        if (op == OP_GESV)
            st = dbl ? ls_dgesv_batched_gpu(s->layout, n, nrhs, dA, lda, sA, dp, dB, ldb, sB, di,
                                            s->batch, g_ctx)
                     : ls_sgesv_batched_gpu(s->layout, n, nrhs, dA, lda, sA, dp, dB, ldb, sB, di,
                                            s->batch, g_ctx);
        else if (op == OP_GETRF)
            st = dbl ? ls_dgetrf_batched_gpu(s->layout, n, dA, lda, sA, dp, di, s->batch, g_ctx)
                     : ls_sgetrf_batched_gpu(s->layout, n, dA, lda, sA, dp, di, s->batch, g_ctx);
        else
            st = dbl ? ls_dgetrs_batched_gpu(s->layout, trans, n, nrhs, dA, lda, sA, dp, dB, ldb,
                                             sB, di, s->batch, g_ctx)
                     : ls_sgetrs_batched_gpu(s->layout, trans, n, nrhs, dA, lda, sA, dp, dB, ldb,
                                             sB, di, s->batch, g_ctx);
    }
    st = st ? st : ls_device_synchronize(g_ctx);
    st = st ? st : ls_device_copy(g_ctx, s->A, dA, na * es);
    st = st ? st : ls_device_copy(g_ctx, s->B, dB, nb * es);
    if (dp)
        st = st ? st : ls_device_copy(g_ctx, s->ipiv, dp, (size_t)s->batch * s->n * sizeof(int));
    st = st ? st : ls_device_copy(g_ctx, s->info, di, (size_t)s->batch * sizeof(int));
    ls_device_free(g_ctx, dA), ls_device_free(g_ctx, dB), ls_device_free(g_ctx, dp);
    ls_device_free(g_ctx, di);
    return st;
}

static int run_op(stack *s, int op, char trans)
{
    if (g_device)
        return dev_roundtrip(s, op, trans);
    int n = s->n, nrhs = s->nrhs, rm = s->layout == LS_ROW_MAJOR;
    int ldb = rm ? (nrhs > 1 ? nrhs : 1) : (n > 1 ? n : 1), lda = n > 1 ? n : 1;
    long long sA = (long long)n * n, sB = (long long)n * nrhs;
    int dbl = s->prec == LS_DOUBLE, *piv = s->no_pivots ? NULL : s->ipiv;
    if (op == OP_GESV)
        return dbl ? ls_dgesv_batched(s->layout, n, nrhs, s->A, lda, sA, piv, s->B, ldb, sB,
                                      s->info, s->batch, g_ctx)
                   : ls_sgesv_batched(s->layout, n, nrhs, s->A, lda, sA, piv, s->B, ldb, sB,
                                      s->info, s->batch, g_ctx);
    if (op == OP_GETRF)
        return dbl ? ls_dgetrf_batched(s->layout, n, s->A, lda, sA, s->ipiv, s->info, s->batch,
                                       g_ctx)
                   : ls_sgetrf_batched(s->layout, n, s->A, lda, sA, s->ipiv, s->info, s->batch,
                                       g_ctx);
    return dbl ? ls_dgetrs_batched(s->layout, trans, n, nrhs, s->A, lda, sA, s->ipiv, s->B, ldb,
                                   sB, s->info, s->batch, g_ctx)
               : ls_sgetrs_batched(s->layout, trans, n, nrhs, s->A, lda, sA, s->ipiv, s->B, ldb,
                                   sB, s->info, s->batch, g_ctx);
}

/* ---- reference and checks ------------------------------------------ */
/* LAPACK's getrf of system b (column-major, in the working precision). */
static int ref_getrf(const stack *s, int b, int *ipiv)
{
    int n = s->n, info = 0;
    const double *A0 = s->A0 + (size_t)b * n * n;
    if (n == 0)
        return 0;
#ifdef LS_HAVE_LAPACKE
    if (s->prec == LS_SINGLE) {
        float *F = lt_xmalloc(sizeof(float) * n * n);
        for (int k = 0; k < n * n; k++)
            F[k] = (float)A0[k];
        info = LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, F, n, ipiv);
        free(F);
    } else {
        double *D = lt_doubles((size_t)n * n);
        memcpy(D, A0, sizeof(double) * n * n);
        info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, D, n, ipiv);
        free(D);
    }
#else
    double *D = lt_doubles((size_t)n * n);
    memcpy(D, A0, sizeof(double) * n * n);
    ls_dgetrf(n, n, D, n, ipiv, &info, NULL);
    free(D);
#endif
    return info;
}

/* ||B - op(A) X||inf / (n ||A||inf ||X||inf eps) of system b, in double. */
static double residual(const stack *s, int b, char trans)
{
    int n = s->n, nrhs = s->nrhs;
    const double *A0 = s->A0 + (size_t)b * n * n, *B0 = s->B0 + (size_t)b * n * nrhs;
    double anorm = 0, xnorm = 0, rnorm = 0;
    for (int i = 0; i < n; i++) {
        double row = 0;
        for (int j = 0; j < n; j++)
            row += fabs(A0[i + (size_t)j * n]);
        anorm = row > anorm ? row : anorm;
    }
    for (int r = 0; r < nrhs; r++)
        for (int i = 0; i < n; i++) {
            double acc = B0[i + (size_t)r * n];
            for (int j = 0; j < n; j++) {
                double a = trans == 'N' ? A0[i + (size_t)j * n] : A0[j + (size_t)i * n];
                acc -= a * get(s, s->B, b_at(s, b, j, r));
            }
            double x = fabs(get(s, s->B, b_at(s, b, i, r)));
            if (isnan(acc) || isnan(x))
                return INFINITY;
            xnorm = x > xnorm ? x : xnorm;
            rnorm = fabs(acc) > rnorm ? fabs(acc) : rnorm;
        }
    if (rnorm == 0)
        return 0;
    double d = n * anorm * xnorm * ls_eps(s->prec);
    return d > 0 ? rnorm / d : INFINITY;
}

/* Every system against LAPACK: info, pivots (FP64), residual or kept B. */
static int check_stack(const stack *s, const char *what, int st, char trans, int want_solved)
{
    int bad_info = 0, bad_piv = 0, bad_res = 0, bad_kept = 0, n = s->n;
    double worst = 0;
    int *ref = lt_xmalloc(sizeof(int) * (n + 1));
    for (int b = 0; st == 0 && b < s->batch; b++) {
        int info = ref_getrf(s, b, ref);
        int want = want_solved == 2 ? 0 : info;
        if (s->no_pivots ? (s->info[b] > 0) != (want > 0) || s->info[b] < 0 : s->info[b] != want) {
            if (bad_info++ < 3)
                printf("  system %d: info %d, LAPACK %d\n", b, s->info[b], info);
        }
        if (s->prec == LS_DOUBLE && want_solved != 2 && info == 0 && !s->skip_pivots &&
            !s->no_pivots &&
            memcmp(ref, s->ipiv + (size_t)b * n, sizeof(int) * n) != 0)
            bad_piv++;
        if (!want_solved)
            continue;
        if (info == 0 || want_solved == 2) {
            double r = residual(s, b, trans);
            worst = r > worst ? r : worst;
            bad_res += !(r <= LS_TEST_TOL);
        } else {
            for (int r = 0; r < s->nrhs; r++)
                for (int i = 0; i < n; i++)
                    bad_kept += get(s, s->B, b_at(s, b, i, r)) !=
                                round_to(s->prec, s->B0[(size_t)b * n * s->nrhs + i + (size_t)r * n]);
        }
    }
    free(ref);
    int ok = st == 0 && !bad_info && !bad_piv && !bad_res && !bad_kept;
    printf("%6d %5d %6d  %-10s %-7s %-6s %-4s %12.3e  %s", n, s->nrhs, s->batch, what, g_backend,
           s->prec == LS_SINGLE ? "single" : "double", s->layout == LS_ROW_MAJOR ? "C" : "F",
           worst, ok ? "ok" : "failed");
    if (!ok)
        printf("  (status %d %s; info %d, pivots %d, residual %d, kept-B %d systems wrong)", st,
               ls_status_name(st), bad_info, bad_piv, bad_res, bad_kept);
    printf("\n");
    fflush(stdout);
    return !ok;
}

static void header(void)
{
    printf("%6s %5s %6s  %-10s %-7s %-6s %-4s %12s  %s\n", "N", "NRHS", "BATCH", "routine",
           "backend", "prec", "ord", "max resid", "status");
}

/* ---- modes ---------------------------------------------------------- */
static int sweep(void)
{
    static const int batches[] = {1, 7, 1000};
    static const int orders[] = {1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64, 65, 100, 128, 129, 513};
    int fails = 0;
    uint64_t seed = 1;
    for (size_t ni = 0; ni < sizeof orders / sizeof orders[0] && orders[ni] <= g_max_n; ni++)
        for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
            int n = orders[ni];
            /* about 3e8 flops a case at most, but never fewer than 7 systems */
            double cap = 3e8 / ((double)n * n * n);
            int batch = batches[bi] < cap ? batches[bi] : (cap > 7 ? (int)cap : 7);
            if (batch > batches[bi])
                batch = batches[bi];
            if (bi > 0 && batch <= batches[bi - 1])
                continue; /* capped to a size already run */
            /* nrhs 2 too where the register kernel has a variant for it */
            for (int nrhs = 1; nrhs <= 3; nrhs += n <= 32 ? 1 : 2)
                for (int p = 0; p < 2; p++)
                    for (int l = 0; l < 2; l++) {
                        stack s;
                        stack_make(&s, n, nrhs, batch, p ? LS_SINGLE : LS_DOUBLE,
                                   l ? LS_ROW_MAJOR : LS_COL_MAJOR, seed++);
                        stack_store(&s);
                        int st = run_op(&s, OP_GESV, 'N');
                        fails += check_stack(&s, "gesv", st, 'N', 1);
                        stack_free(&s);
                    }
        }
    return fails;
}

static int factor_then_solve(void)
{
    static const int usual[] = {1, 3, 4, 5, 17, 32, 33, 70, 129, 300, 0};
    /* k_batched_getrs.cu: 256 threads at most, 1, 2 or 4 rows a thread up
     * to 1024, shared memory above */
    static const int edges[] = {255, 256, 257, 511, 512, 513, 767, 1024, 1025, 0};
    const int *orders = g_getrs_edges ? edges : usual;
    int fails = 0;
    uint64_t seed = 99;
    for (size_t ni = 0; orders[ni] && orders[ni] <= g_max_n; ni++)
        for (int p = 0; p < 2; p++)
            for (int l = 0; l < 2; l++)
                for (int t = 0; t < 2; t++) {
                    int n = orders[ni], batch = n > 500 ? 2 : n > 100 ? 5 : 40;
                    stack s;
                    stack_make(&s, n, 2, batch, p ? LS_SINGLE : LS_DOUBLE,
                               l ? LS_ROW_MAJOR : LS_COL_MAJOR, seed++);
                    stack_store(&s);
                    int st = run_op(&s, OP_GETRF, 'N');
                    if (st == 0) {
                        for (int b = 0; b < batch; b++)
                            s.info[b] = -777;
                        st = run_op(&s, OP_GETRS, t ? 'T' : 'N');
                    }
                    fails += check_stack(&s, t ? "getrf+rs T" : "getrf+rs N", st, t ? 'T' : 'N',
                                         2);
                    stack_free(&s);
                }
    return fails;
}

/* Singular (a zero column, a zero last column, all zeros),
 * ill-conditioned (Hilbert) and plain systems interleaved; 2 right-hand
 * sides up to n = 8 (solved in the factorization's pass there), else 3. */
static int singular(void)
{
    static const int orders[] = {4, 8, 40, 150};
    int fails = 0;
    for (size_t ni = 0; ni < sizeof orders / sizeof orders[0] && orders[ni] <= g_max_n; ni++)
        for (int p = 0; p < 2; p++)
            for (int l = 0; l < 2; l++) {
                int n = orders[ni], batch = 12;
                stack s;
                stack_make(&s, n, n <= 8 ? 2 : 3, batch, p ? LS_SINGLE : LS_DOUBLE,
                           l ? LS_ROW_MAJOR : LS_COL_MAJOR, 5000 + ni);
                s.skip_pivots = 1;
                for (int b = 0; b < batch; b++) {
                    double *A = s.A0 + (size_t)b * n * n;
                    switch (b % 6) {
                    case 1: /* zero column 3 */
                        for (int i = 0; i < n; i++) A[i + 3 * (size_t)n] = 0;
                        break;
                    case 2: /* Hilbert: ill-conditioned, not singular */
                        for (int j = 0; j < n; j++)
                            for (int i = 0; i < n; i++)
                                A[i + (size_t)j * n] = round_to(s.prec, 1.0 / (i + j + 1));
                        break;
                    case 3: /* zero last column: every LU meets it exactly at column n */
                        for (int i = 0; i < n; i++) A[i + (size_t)(n - 1) * n] = 0;
                        break;
                    case 4: /* all zeros */
                        memset(A, 0, sizeof(double) * n * n);
                        break;
                    default:
                        break;
                    }
                }
                stack_store(&s);
                int st = run_op(&s, OP_GESV, 'N');
                int flagged = 0;
                for (int b = 0; b < batch; b++)
                    flagged += s.info[b] > 0;
                fails += check_stack(&s, "gesv sing", st, 'N', 1);
                /* 3 singular kinds twice */
                fails += lt_check(flagged >= 6, "  n=%d: %d of %d systems flagged singular", n,
                                  flagged, batch);
                stack_free(&s);
            }
    return fails;
}

/* gesv without pivots asked for, nrhs 1 (solved in the factor kernel's
 * pass where it can) and 9 (a separate solve everywhere), a zero column in
 * every third system: each solved or flagged, in both layouts. */
static int no_pivots(void)
{
    static const int orders[] = {5, 8, 33, 64, 65, 128, 129, 300};
    int fails = 0;
    uint64_t seed = 777;
    for (size_t ni = 0; ni < sizeof orders / sizeof orders[0] && orders[ni] <= g_max_n; ni++)
        for (int nrhs = 1; nrhs <= 9; nrhs += 8)
            for (int p = 0; p < 2; p++)
                for (int l = 0; l < 2; l++) {
                    int n = orders[ni], batch = n > 100 ? 6 : 30;
                    stack s;
                    stack_make(&s, n, nrhs, batch, p ? LS_SINGLE : LS_DOUBLE,
                               l ? LS_ROW_MAJOR : LS_COL_MAJOR, seed++);
                    s.no_pivots = 1;
                    for (int b = 1; b < batch; b += 3)
                        for (int i = 0; i < n; i++)
                            s.A0[(size_t)b * n * n + i + (size_t)(b % n) * n] = 0;
                    stack_store(&s);
                    int st = run_op(&s, OP_GESV, 'N');
                    fails += check_stack(&s, "gesv nopiv", st, 'N', 1);
                    stack_free(&s);
                }
    return fails;
}

static int args(void)
{
    int fails = 0, info[4] = {-7, -7, -7, -7}, ipiv[8];
    double A[16] = {0}, B[8] = {0};
    ls_context *c = g_ctx;
#define EXPECT(call, want) \
    fails += lt_check((call) == (want), "%s == %d", #call, (want))
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, NULL, 2, 4, NULL, NULL, 2, 2, NULL, 0, c), 0);
    EXPECT(ls_dgesv_batched((ls_layout)5, 2, 1, A, 2, 4, ipiv, B, 2, 2, info, 2, c), -1);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, -1, 1, A, 2, 4, ipiv, B, 2, 2, info, 2, c), -2);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, -1, A, 2, 4, ipiv, B, 2, 2, info, 2, c), -3);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, NULL, 2, 4, ipiv, B, 2, 2, info, 2, c), -4);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, A, 1, 4, ipiv, B, 2, 2, info, 2, c), -5);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, A, 2, 3, ipiv, B, 2, 2, info, 2, c), -6);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, A, 2, 4, ipiv, NULL, 2, 2, info, 2, c), -8);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, A, 2, 4, ipiv, B, 1, 2, info, 2, c), -9);
    EXPECT(ls_dgesv_batched(LS_ROW_MAJOR, 2, 3, A, 2, 4, ipiv, B, 2, 6, info, 1, c), -9);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, A, 2, 4, ipiv, B, 2, 1, info, 2, c), -10);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, A, 2, 4, ipiv, B, 2, 2, NULL, 2, c), -11);
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, A, 2, 4, ipiv, B, 2, 2, info, -1, c), -12);
    EXPECT(ls_dgetrf_batched(LS_COL_MAJOR, 2, A, 2, 4, NULL, info, 2, c), -6);
    EXPECT(ls_dgetrf_batched(LS_COL_MAJOR, 2, A, 2, 4, ipiv, info, 0, c), 0);
    EXPECT(ls_sgetrs_batched(LS_COL_MAJOR, 'X', 2, 1, (float *)A, 2, 4, ipiv, (float *)B, 2, 2,
                             info, 2, c), -2);
    ipiv[0] = ipiv[2] = 1, ipiv[1] = ipiv[3] = 2;
    float F[8] = {1, 0, 0, 1, 2, 0, 0, 2}, fb[4] = {1, 1, 1, 1};
    EXPECT(ls_sgetrs_batched(LS_ROW_MAJOR, 'N', 2, 1, F, 2, 4, ipiv, fb, 1, 2, info, 2, c), 0);
    fails += lt_check(fb[0] == 1 && fb[2] == 0.5f && info[0] == 0 && info[1] == 0,
                      "row-major getrs with nrhs = 1, ldb = 1");
    fails += lt_check(info[2] == -7, "info untouched past the batch (%d)", info[2]);
    /* batch 1 needs no stride; a singular 2x2 in the pivot-less gesv */
    double S[4] = {1, 2, 2, 4}, b1[2] = {1, 1};
    int i1 = -7;
    EXPECT(ls_dgesv_batched(LS_COL_MAJOR, 2, 1, S, 2, 0, NULL, b1, 2, 0, &i1, 1, c), 0);
    fails += lt_check(i1 == 2 && b1[0] == 1 && b1[1] == 1, "singular 2x2: info %d, B kept", i1);
    if (!g_device) {
        ls_context *cpu = NULL;
        ls_context_create(&cpu, LS_BACKEND_CPU, 0);
        EXPECT(ls_dgesv_batched_gpu(LS_COL_MAJOR, 2, 1, A, 2, 4, ipiv, B, 2, 2, info, 1, NULL),
               LS_EUNAVAIL);
        EXPECT(ls_dgesv_batched_gpu(LS_COL_MAJOR, 2, 1, A, 2, 4, ipiv, B, 2, 2, info, 1, cpu),
               LS_EUNAVAIL);
        ls_context_destroy(cpu);
    }
#undef EXPECT
    return fails;
}

int main(int argc, char **argv)
{
    int do_sweep = 0, do_factor = 0, do_sing = 0, do_args = 0, do_nopiv = 0;
    ls_backend_kind kind = LS_BACKEND_CPU;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            g_backend = argv[++i];
            if (ls_backend_parse(g_backend, &kind) != 0)
                return 2;
        } else if (!strcmp(argv[i], "--sweep")) do_sweep = 1;
        else if (!strcmp(argv[i], "--factor")) do_factor = 1;
        else if (!strcmp(argv[i], "--singular")) do_sing = 1;
        else if (!strcmp(argv[i], "--args")) do_args = 1;
        else if (!strcmp(argv[i], "--no-pivots")) do_nopiv = 1;
        else if (!strcmp(argv[i], "--device")) g_device = 1;
        else if (!strcmp(argv[i], "--max-n") && i + 1 < argc) g_max_n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--getrs-edges")) g_getrs_edges = 1;
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (kind != LS_BACKEND_CPU) {
        char why[512];
        if (!lt_backend_available(kind, why, sizeof why)) {
            printf("skipped: no %s device (%s)\n", g_backend, why);
            return 77;
        }
    }
    if (g_device && kind != LS_BACKEND_CUDA) {
        fprintf(stderr, "--device needs --backend cuda\n");
        return 2;
    }
    if (ls_context_create(&g_ctx, kind, 0) != 0) {
        printf("cannot open the %s backend: %s\n", g_backend, ls_context_error(g_ctx));
        return 1;
    }
    header();
    int fails = 0;
    if (do_args) fails += args();
    if (do_sweep) fails += sweep();
    if (do_factor) fails += factor_then_solve();
    if (do_sing) fails += singular();
    if (do_nopiv) fails += no_pivots();
    ls_context_destroy(g_ctx);
    printf("%d failure(s)\n", fails);
    return fails > 76 ? 76 : fails;
}
