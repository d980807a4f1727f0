/*
 * ls_check_batched_gpu, the fused residual and finiteness check on device
 * memory, against ls_scaled_residual and isfinite on the host, system by
 * system: FP64 and FP32; A, B and X all column-major, all row-major, and
 * A row-major with B and X column-major (padded leading dimensions);
 * n in {1, 7, 9, 32, 33, 64, 1000} (every shape of work: small groups,
 * column tiles, warp rows), nrhs in {1, 5}, batch in {1, 3, 1000} (n =
 * 1000: 1 and 3). Cases on each: B = A X rounded (clean), one X perturbed
 * (its index must be found), NaN in A (residual NaN, first non-finite
 * index), NaN in B, Inf in B, a huge X (as a nearly singular solve gives),
 * dX NULL (finiteness only). Also: the same A for every system (strideA
 * 0), no systems, and the -i numbering.
 * One row per case; exit status the number of failures (at most 76), 77
 * without a CUDA device.
 */
#include "cuda_testlib.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cuda_ok_at(cudaError_t e, const char *what, int line)
{
    if (e != cudaSuccess) {
        printf("test_cuda_check.c:%d: %s: %s\n", line, what, cudaGetErrorString(e));
        exit(2);
    }
}
#define CUDA_OK(call) cuda_ok_at((call), #call, __LINE__)

static uint64_t rnd_u64(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rnd_uniform(uint64_t *s) { return (double)(rnd_u64(s) >> 11) * 0x1.0p-52 - 1.0; }

/* One strided stack of rows x cols matrices in the working precision. */
typedef struct mat {
    ls_layout layout;
    int rows, cols, ld;
    long long stride;
    size_t count; /* elements of the buffer */
    int single;
    void *h, *d;
} mat;

static void mat_make(mat *m, ls_layout l, int rows, int cols, int pad, int batch, int single,
                     int shared)
{
    m->layout = l;
    m->rows = rows, m->cols = cols;
    m->ld = (l == LS_ROW_MAJOR ? cols : rows) + pad;
    if (m->ld < 1)
        m->ld = 1;
    long long one = (long long)m->ld * (l == LS_ROW_MAJOR ? rows : cols);
    m->stride = shared ? 0 : one;
    m->count = (size_t)(shared ? one : one * batch);
    m->single = single;
    m->h = ct_alloc(m->count ? m->count : 1, single ? sizeof(float) : sizeof(double));
    memset(m->h, 0, (m->count ? m->count : 1) * (single ? sizeof(float) : sizeof(double)));
    CUDA_OK(cudaMalloc(&m->d, (m->count ? m->count : 1) * (single ? 4 : 8)));
}

static size_t at(const mat *m, int s, int i, int j)
{
    size_t off = (size_t)((long long)s * m->stride);
    return off + (m->layout == LS_ROW_MAJOR ? (size_t)i * m->ld + j : (size_t)j * m->ld + i);
}

static double get(const mat *m, int s, int i, int j)
{
    size_t k = at(m, s, i, j);
    return m->single ? (double)((float *)m->h)[k] : ((double *)m->h)[k];
}

static void set(mat *m, int s, int i, int j, double v)
{
    size_t k = at(m, s, i, j);
    if (m->single)
        ((float *)m->h)[k] = (float)v;
    else
        ((double *)m->h)[k] = v;
}

static void upload(mat *m)
{
    CUDA_OK(cudaMemcpy(m->d, m->h, m->count * (m->single ? 4 : 8), cudaMemcpyHostToDevice));
}

static void mat_free(mat *m)
{
    free(m->h);
    cudaFree(m->d);
}

/* system s as column-major doubles */
static void dense(const mat *m, int s, double *out)
{
    for (int j = 0; j < m->cols; j++)
        for (int i = 0; i < m->rows; i++)
            out[i + (size_t)j * m->rows] = get(m, s, i, j);
}

typedef struct expect {
    double worst;
    int worst_at, first_bad;
    double *ratio; /* per system */
} expect;

/* The host's answer: ls_scaled_residual and isfinite system by system. */
static void reference(const mat *A, const mat *B, const mat *X, int n, int nrhs, int batch,
                      double eps, expect *e)
{
    double *a = ct_alloc((size_t)n * n + 1, sizeof *a);
    double *b = ct_alloc((size_t)n * nrhs + 1, sizeof *b);
    double *x = ct_alloc((size_t)n * nrhs + 1, sizeof *x);
    e->worst = -1, e->worst_at = -1, e->first_bad = -1;
    for (int s = 0; s < batch; s++) {
        int sa = A->stride ? s : 0;
        dense(A, sa, a);
        dense(B, s, b);
        dense(X, s, x);
        int bad = 0;
        for (size_t k = 0; k < (size_t)n * n; k++)
            bad |= !isfinite(a[k]);
        for (size_t k = 0; k < (size_t)n * nrhs; k++)
            bad |= !isfinite(b[k]);
        if (bad && e->first_bad < 0)
            e->first_bad = s;
        double r = ls_scaled_residual(n, nrhs, a, n, x, n, b, n, eps);
        e->ratio[s] = r;
        int worse = e->worst_at < 0 || (isnan(r) && !isnan(e->worst)) ||
                    (!isnan(r) && !isnan(e->worst) && r > e->worst);
        if (worse)
            e->worst = r, e->worst_at = s;
    }
    free(a), free(b), free(x);
}

static int failures = 0;

/* Run the check and compare; exact: the worst index must be the host's. */
static void run_case(ls_context *ctx, const char *label, ls_precision p, mat *A, mat *B, mat *X,
                     int use_x, int n, int nrhs, int batch, int exact, double *dout,
                     expect *e)
{
    double out[4] = {-7, -7, -7, -7};
    upload(A), upload(B), upload(X);
    reference(A, B, X, n, nrhs, batch, ls_eps(p), e);
    int st = ls_check_batched_gpu(p, n, nrhs, A->layout, A->d, A->ld, A->stride, B->layout, B->d,
                                  B->ld, B->stride, X->layout, use_x ? X->d : NULL, X->ld,
                                  X->stride, batch, dout, ctx);
    CUDA_OK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    int ok = st == 0;
    ok &= out[2] == (e->first_bad >= 0 ? 1.0 : 0.0) && out[3] == (double)e->first_bad;
    double tol_abs = p == LS_DOUBLE ? 3.0 : 1e-6; /* FP64: both sums round (<= 1 unit each) */
    if (!use_x) {
        ok &= out[0] == 0.0 && out[1] == -1.0;
    } else if (isnan(e->worst) || isinf(e->worst)) {
        ok &= (isnan(e->worst) ? isnan(out[0]) : out[0] == e->worst) &&
              out[1] == (double)e->worst_at;
    } else {
        ok &= fabs(out[0] - e->worst) <= tol_abs + 1e-9 * e->worst;
        if (exact)
            ok &= out[1] == (double)e->worst_at;
        else /* near-ties may fall either way: the system named must be as bad */
            ok &= out[1] >= 0 && out[1] < batch &&
                  fabs(e->ratio[(int)out[1]] - e->worst) <= 2 * tol_abs;
    }
    if (!ok)
        failures++;
    printf("%5d %4d %5d  %s  %-28s  status %d  device %.6g @ %g  host %.6g @ %d  bad %g @ %g "
           "(host %d)  %s\n",
           n, nrhs, batch, p == LS_DOUBLE ? "d" : "s", label, st, out[0], out[1], e->worst,
           e->worst_at, out[2], out[3], e->first_bad, ok ? "ok" : "failed");
}

static void config(ls_context *ctx, ls_precision p, int combo, int n, int nrhs, int batch,
                   double *dout)
{
    static const char *const combos[] = {"col/col/col", "row/row/row", "row/col/col pad",
                                         "shared A"};
    int single = p == LS_SINGLE;
    ls_layout la = combo == 1 || combo == 2 ? LS_ROW_MAJOR : LS_COL_MAJOR;
    ls_layout lb = combo == 1 ? LS_ROW_MAJOR : LS_COL_MAJOR;
    int pad = combo == 2 ? 3 : 0;
    mat A, B, X;
    mat_make(&A, la, n, n, pad, batch, single, combo == 3);
    mat_make(&B, lb, n, nrhs, pad, batch, single, 0);
    mat_make(&X, lb, n, nrhs, pad, batch, single, 0);
    uint64_t seed = 0x5EED0000ull + (uint64_t)(n * 131 + nrhs * 7 + batch + combo * 1000003);
    for (int s = 0; s < (combo == 3 ? 1 : batch); s++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                set(&A, s, i, j, rnd_uniform(&seed) + (i == j ? n : 0));
    for (int s = 0; s < batch; s++)
        for (int i = 0; i < n; i++)
            for (int c = 0; c < nrhs; c++)
                set(&X, s, i, c, rnd_uniform(&seed));
    /* B = A X in FP64, rounded to the working precision */
    for (int s = 0; s < batch; s++)
        for (int i = 0; i < n; i++)
            for (int c = 0; c < nrhs; c++) {
                double v = 0;
                for (int k = 0; k < n; k++)
                    v += get(&A, combo == 3 ? 0 : s, i, k) * get(&X, s, k, c);
                set(&B, s, i, c, v);
            }
    expect e;
    e.ratio = ct_alloc((size_t)batch, sizeof(double));
    char label[64];
    int mid = batch / 2, last = batch - 1, third = batch / 3;
#define LABEL(what) (snprintf(label, sizeof label, "%s %s", combos[combo], what), label)
    run_case(ctx, LABEL("clean"), p, &A, &B, &X, 1, n, nrhs, batch, 0, dout, &e);
    double keep = get(&X, mid, 0, 0);
    set(&X, mid, 0, 0, keep * (1 + 1e-3) + 1e-3);
    run_case(ctx, LABEL("X perturbed"), p, &A, &B, &X, 1, n, nrhs, batch, 1, dout, &e);
    set(&X, mid, 0, 0, keep);
    /* NaN in A: two systems, the first found; shared A: all of them */
    int sa_last = combo == 3 ? 0 : last, sa_third = combo == 3 ? 0 : third;
    double a0 = get(&A, sa_last, n - 1, 0), a1 = get(&A, sa_third, 0, n - 1);
    set(&A, sa_last, n - 1, 0, NAN);
    set(&A, sa_third, 0, n - 1, NAN);
    run_case(ctx, LABEL("NaN in A"), p, &A, &B, &X, 1, n, nrhs, batch, 1, dout, &e);
    run_case(ctx, LABEL("NaN in A, no X"), p, &A, &B, &X, 0, n, nrhs, batch, 1, dout, &e);
    set(&A, sa_last, n - 1, 0, a0);
    set(&A, sa_third, 0, n - 1, a1);
    double b0 = get(&B, last, n / 2, nrhs - 1);
    set(&B, last, n / 2, nrhs - 1, NAN);
    run_case(ctx, LABEL("NaN in B"), p, &A, &B, &X, 1, n, nrhs, batch, 1, dout, &e);
    set(&B, last, n / 2, nrhs - 1, INFINITY);
    run_case(ctx, LABEL("Inf in B"), p, &A, &B, &X, 1, n, nrhs, batch, 1, dout, &e);
    run_case(ctx, LABEL("Inf in B, no X"), p, &A, &B, &X, 0, n, nrhs, batch, 1, dout, &e);
    set(&B, last, n / 2, nrhs - 1, b0);
    /* a nearly singular solve's answer: huge, and B far from A X */
    double huge = single ? 1e30 : 1e150;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < nrhs; c++)
            set(&X, third, i, c, get(&X, third, i, c) * huge);
    run_case(ctx, LABEL("huge X"), p, &A, &B, &X, 1, n, nrhs, batch, 1, dout, &e);
    run_case(ctx, LABEL("clean, no X"), p, &A, &B, &X, 0, n, nrhs, batch, 1, dout, &e);
#undef LABEL
    free(e.ratio);
    mat_free(&A), mat_free(&B), mat_free(&X);
}

/* Quick returns and the -i numbering. */
static void arguments(ls_context *ctx, double *dout)
{
    double out[4] = {-7, -7, -7, -7}, host[16] = {0};
    double *d = NULL;
    CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(double)));
    CUDA_OK(cudaMemset(d, 0, 64 * sizeof(double)));
    const ls_layout C = LS_COL_MAJOR, R = LS_ROW_MAJOR;
    const ls_precision D = LS_DOUBLE;
#define CHK(...) ls_check_batched_gpu(__VA_ARGS__, ctx)
    struct {
        const char *what;
        int want, st;
    } c[] = {
        {"prec 7", -1, CHK((ls_precision)7, 4, 1, C, d, 4, 16, C, d, 4, 4, C, d, 4, 4, 1, dout)},
        {"n -1", -2, CHK(D, -1, 1, C, d, 4, 16, C, d, 4, 4, C, d, 4, 4, 1, dout)},
        {"nrhs -1", -3, CHK(D, 4, -1, C, d, 4, 16, C, d, 4, 4, C, d, 4, 4, 1, dout)},
        {"layoutA 5", -4, CHK(D, 4, 1, (ls_layout)5, d, 4, 16, C, d, 4, 4, C, d, 4, 4, 1, dout)},
        {"dA NULL", -5, CHK(D, 4, 1, C, NULL, 4, 16, C, d, 4, 4, C, d, 4, 4, 1, dout)},
        {"dA host", -5, CHK(D, 4, 1, C, host, 4, 16, C, d, 4, 4, C, d, 4, 4, 1, dout)},
        {"ldda 3", -6, CHK(D, 4, 1, C, d, 3, 16, C, d, 4, 4, C, d, 4, 4, 1, dout)},
        {"strideA -1", -7, CHK(D, 4, 1, C, d, 4, -1, C, d, 4, 4, C, d, 4, 4, 1, dout)},
        {"dB NULL", -9, CHK(D, 4, 1, C, d, 4, 16, C, NULL, 4, 4, C, d, 4, 4, 1, dout)},
        {"lddb 3 (col)", -10, CHK(D, 4, 1, C, d, 4, 16, C, d, 3, 4, C, d, 4, 4, 1, dout)},
        {"lddb 1 (row, nrhs 2)", -10, CHK(D, 4, 2, C, d, 4, 16, R, d, 1, 8, R, d, 2, 8, 1, dout)},
        {"dX host", -13, CHK(D, 4, 1, C, d, 4, 16, C, d, 4, 4, C, host, 4, 4, 1, dout)},
        {"lddx 3", -14, CHK(D, 4, 1, C, d, 4, 16, C, d, 4, 4, C, d, 3, 4, 1, dout)},
        {"strideX -4", -15, CHK(D, 4, 1, C, d, 4, 16, C, d, 4, 4, C, d, 4, -4, 1, dout)},
        {"batch -1", -16, CHK(D, 4, 1, C, d, 4, 16, C, d, 4, 4, C, d, 4, 4, -1, dout)},
        {"dout NULL", -17, CHK(D, 4, 1, C, d, 4, 16, C, d, 4, 4, C, d, 4, 4, 1, NULL)},
        {"dout host", -17, CHK(D, 4, 1, C, d, 4, 16, C, d, 4, 4, C, d, 4, 4, 1, out)},
        {"dX NULL accepted", 0, CHK(D, 4, 1, C, d, 4, 16, C, d, 4, 4, C, NULL, 0, -9, 1, dout)},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        int ok = c[k].st == c[k].want;
        failures += !ok;
        printf("args  %-24s  status %d (want %d)  %s\n", c[k].what, c[k].st, c[k].want,
               ok ? "ok" : "failed");
    }
    /* nothing to check: 0, -1, 0, -1 written all the same */
    for (int k = 0; k < 2; k++) {
        CUDA_OK(cudaMemset(dout, 0x7f, 4 * sizeof(double)));
        int st = k ? CHK(LS_SINGLE, 5, 1, C, NULL, 5, 25, C, NULL, 5, 5, C, d, 5, 5, 0, dout)
                   : CHK(D, 0, 1, C, NULL, 1, 0, C, NULL, 1, 0, C, d, 1, 0, 9, dout);
        CUDA_OK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
        int ok = st == 0 && out[0] == 0 && out[1] == -1 && out[2] == 0 && out[3] == -1;
        failures += !ok;
        printf("args  %-24s  status %d  %g %g %g %g  %s\n", k ? "batch 0" : "n 0", st, out[0],
               out[1], out[2], out[3], ok ? "ok" : "failed");
    }
#undef CHK
    cudaFree(d);
}

int main(void)
{
    ls_context *ctx = ct_open_or_skip();
    double *dout = NULL;
    CUDA_OK(cudaMalloc((void **)&dout, 4 * sizeof(double)));
    static const int ns[] = {1, 7, 9, 32, 33, 64, 1000};
    static const int batches[] = {1, 3, 1000};
    printf("    N NRHS BATCH  p  case\n");
    arguments(ctx, dout);
    for (int pi = 0; pi < 2; pi++) {
        ls_precision p = pi ? LS_SINGLE : LS_DOUBLE;
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
                int n = ns[ni], batch = batches[bi];
                if (n == 1000 && batch > 3)
                    continue; /* 8 GB of A on the host: the shapes are covered at n = 64 */
                for (int nrhs = 1; nrhs <= 5; nrhs += 4)
                    for (int combo = 0; combo < 4; combo++) {
                        /* a shared A needs systems; 5 rhs: both layouts of B */
                        if ((combo == 3 && batch == 1) || (nrhs > 1 && combo % 2))
                            continue;
                        config(ctx, p, combo, n, nrhs, batch, dout);
                    }
            }
    }
    cudaFree(dout);
    ls_context_destroy(ctx);
    printf("%d failure(s)\n", failures);
    return failures > 76 ? 76 : failures;
}
