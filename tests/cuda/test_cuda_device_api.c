/*
 * The device-resident API (ls_?getrf_gpu, ls_?getrs_gpu, ls_?gesv_gpu,
 * ls_device_*, the context's stream) and the host API on a CUDA context
 * (ls_?gesv; ls_?getrf + ls_?getrs, whose getrs now runs on the GPU),
 * through the public header only; the CUDA runtime makes the test's own
 * device buffers and streams. Modes:
 *   --sweep   random, needs-pivoting, pivot-exact, ill-conditioned and
 *             singular matrices, n in {1 .. 4097}, nrhs in {1, 5},
 *             FP64/FP32, trans N/T, device API (ipiv/info on the device,
 *             on the host, mixed) and host API, ldda > n. Checked: scaled
 *             residual <= 30; ipiv equal to LAPACK's where the pivots are
 *             unambiguous by construction; info at the zero column; the
 *             padding rows of dB untouched.
 *   --async   device ipiv/info: the call returns before the device has
 *             run it (the caller's stream waits on a long memset chain of
 *             another stream, which must still be running afterwards)
 *   --args    -i numbering with info on the device, host memory as dA
 *             refused, quick returns, ls_device_* round trip, 'C' == 'T',
 *             rectangular getrf against LAPACK
 *   --large   one FP32 system with n = 46500 (n*n > 2^31); skips (77)
 *             without the device or host memory
 * Exit status: number of failures (at most 76); 77 without a CUDA device.
 */
#include "cuda_testlib.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef LS_HAVE_LAPACKE
#include <lapacke.h>
#endif

static void cuda_ok_at(cudaError_t e, const char *what, int line)
{
    if (e != cudaSuccess) {
        printf("test_cuda_device_api.c:%d: %s: %s\n", line, what, cudaGetErrorString(e));
        exit(2);
    }
}
#define CUDA_OK(call) cuda_ok_at((call), #call, __LINE__)

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: the test's own deterministic numbers */
static uint64_t rnd_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rnd_uniform(uint64_t *s) /* [-1, 1) */
{
    return (double)(rnd_u64(s) >> 11) * 0x1.0p-52 - 1.0;
}

static size_t es_of(ls_precision p) { return p == LS_DOUBLE ? sizeof(double) : sizeof(float); }

/* count doubles into the working precision (malloc'd) and back */
static void *to_prec(ls_precision p, size_t count, const double *src)
{
    void *d = ct_alloc(count, es_of(p));
    for (size_t i = 0; i < count; i++) {
        if (p == LS_DOUBLE) ((double *)d)[i] = src[i];
        else ((float *)d)[i] = (float)src[i];
    }
    return d;
}

static void from_prec(ls_precision p, size_t count, const void *src, double *dst)
{
    for (size_t i = 0; i < count; i++)
        dst[i] = p == LS_DOUBLE ? ((const double *)src)[i] : (double)((const float *)src)[i];
}

/* ---- test matrices ---- */

enum { K_RANDOM, K_ZERODIAG, K_PIVOT, K_ILLCOND, K_SINGULAR, K_COUNT };
static const char *const kind_names[K_COUNT] = {"random", "zerodiag", "pivot", "illcond",
                                                "singular"};

/* A = P L D U: L unit lower and U unit upper, both with |entries| <= 0.1
 * on 8 off-diagonals (so the product is cheap to form and well
 * conditioned), D random signs with magnitudes from 1 down to 1/cond
 * (geometric; cond 1: [1, 2)), P a random permutation. In partial pivoting
 * the pivot of column k beats every other candidate 10 to 1, so rounding
 * cannot change the choice: the interchanges are P's, by construction. They
 * go to ipiv (1-based, LAPACK's order). */
#define PLU_BAND 8
static void make_plu(int n, double *A, uint64_t seed, double cond, int *ipiv)
{
    uint64_t s = seed;
    double *L = ct_alloc((size_t)n * PLU_BAND, sizeof *L), *U = ct_alloc((size_t)n * PLU_BAND, sizeof *U);
    double *d = ct_alloc((size_t)n, sizeof *d);
    int *perm = ct_alloc((size_t)n, sizeof(int)), *rowat = ct_alloc((size_t)n, sizeof(int));
    int *where = ct_alloc((size_t)n, sizeof(int));
    /* L[i*B + t] = L(i, i-1-t), U[j*B + t] = U(j-1-t, j) */
    for (size_t i = 0; i < (size_t)n * PLU_BAND; i++) {
        L[i] = 0.1 * rnd_uniform(&s);
        U[i] = 0.1 * rnd_uniform(&s);
    }
    for (int k = 0; k < n; k++) {
        double mag = cond > 1.0 && n > 1 ? pow(cond, -(double)k / (n - 1))
                                         : 1.5 + 0.5 * rnd_uniform(&s);
        d[k] = rnd_uniform(&s) < 0 ? -mag : mag;
        perm[k] = k;
    }
    for (int k = n - 1; k > 0; k--) { /* Fisher-Yates */
        int r = (int)(rnd_u64(&s) % (uint64_t)(k + 1)), t = perm[k];
        perm[k] = perm[r];
        perm[r] = t;
    }
    memset(A, 0, sizeof(double) * (size_t)n * n);
    /* M = L D U is banded; row i of M becomes row perm[i] of A */
    for (int i = 0; i < n; i++)
        for (int j = i - PLU_BAND < 0 ? 0 : i - PLU_BAND; j < n && j <= i + PLU_BAND; j++) {
            double m = 0;
            int k0 = i - PLU_BAND > j - PLU_BAND ? i - PLU_BAND : j - PLU_BAND;
            for (int k = k0 < 0 ? 0 : k0; k <= i && k <= j; k++) {
                double l = k == i ? 1.0 : L[(size_t)i * PLU_BAND + (i - 1 - k)];
                double u = k == j ? 1.0 : U[(size_t)j * PLU_BAND + (j - 1 - k)];
                m += l * d[k] * u;
            }
            A[perm[i] + (size_t)j * n] = m;
        }
    /* elimination step k picks M's row k, wherever the earlier swaps put it */
    for (int i = 0; i < n; i++) {
        rowat[perm[i]] = i;
        where[i] = perm[i];
    }
    for (int k = 0; k < n; k++) {
        int r = where[k], other = rowat[k];
        ipiv[k] = r + 1;
        rowat[r] = other;
        where[other] = r;
        rowat[k] = k;
        where[k] = k;
    }
    free(L);
    free(U);
    free(d);
    free(perm);
    free(rowat);
    free(where);
}

/* Fills A (n x n, ld n) of a kind. *ipiv_known: ipiv holds the pivots by
 * construction. Returns the info the factorization must give. */
static int make_kind(int kind, ls_precision p, int n, double *A, int *ipiv, int *ipiv_known)
{
    uint64_t seed = 7001u * (uint64_t)n + 31u * (uint64_t)kind + (uint64_t)p;
    *ipiv_known = 0;
    switch (kind) {
    case K_RANDOM:
        ls_generate(LS_GEN_RANDOM, n, A, n, seed, 0.0);
        return 0;
    case K_ZERODIAG:
        ls_generate(LS_GEN_ZERODIAG, n, A, n, seed, 0.0);
        return n <= 1024 ? ct_reference_info(p, n, A) : 0; /* n = 1 is singular */
    case K_PIVOT:
        make_plu(n, A, seed, 1.0, ipiv);
        *ipiv_known = 1;
        return 0;
    case K_ILLCOND:
        /* randsvd costs 8 n^3 on the host: graded P L D U above 511 */
        if (n <= 511) {
            ls_generate(LS_GEN_RANDSVD, n, A, n, seed, p == LS_DOUBLE ? 1e10 : 1e5);
            return 0;
        }
        make_plu(n, A, seed, p == LS_DOUBLE ? 1e10 : 1e4, ipiv);
        *ipiv_known = 1;
        return 0;
    default: { /* an exactly zero column k stays zero under elimination: info = k + 1 */
        int k = n / 2;
        ls_fill_random(n, n, A, n, seed);
        memset(A + (size_t)k * n, 0, sizeof(double) * (size_t)n);
        return k + 1;
    }
    }
}

#ifdef LS_HAVE_LAPACKE
/* LAPACK's pivots of A in precision p. */
static int lapack_ipiv(ls_precision p, int m, int n, const double *A, int *ipiv)
{
    void *a = to_prec(p, (size_t)m * n, A);
    int info = p == LS_DOUBLE ? LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, a, m, ipiv)
                              : LAPACKE_sgetrf(LAPACK_COL_MAJOR, m, n, a, m, ipiv);
    free(a);
    return info;
}
#endif

/* ---- one case ---- */

typedef struct kase {
    const char *kind;
    ls_precision p;
    int n, nrhs;
    const double *A, *At, *B; /* ld n */
    const int *ipiv;          /* expected pivots, or NULL */
    int info;                 /* expected info */
} kase;

/* Judges one run: X (double, ld n) against the residual, or B kept when
 * info > 0 and the solve was skipped. */
static int judge(const kase *k, const char *label, char trans, int st, int info, int st_want,
                 const int *ipiv, const double *X, int solved, double t)
{
    int n = k->n, nrhs = k->nrhs;
    double res = NAN;
    int ok = st == st_want && info == k->info;
    if (k->info == 0) {
        res = ls_scaled_residual(n, nrhs, trans == 'N' ? k->A : k->At, n, X, n, k->B, n,
                                 ls_eps(k->p));
        ok = ok && res <= LS_TEST_TOL;
        if (k->ipiv)
            ok = ok && memcmp(ipiv, k->ipiv, sizeof(int) * (size_t)n) == 0;
    } else if (!solved) { /* LAPACK's rule: B as it came, in the working precision */
        size_t cnt = (size_t)n * nrhs;
        void *b = to_prec(k->p, cnt, k->B);
        double *Bp = ct_alloc(cnt, sizeof *Bp);
        from_prec(k->p, cnt, b, Bp);
        ok = ok && memcmp(X, Bp, sizeof(double) * cnt) == 0;
        free(b);
        free(Bp);
    }
    char name[40];
    snprintf(name, sizeof name, "%s:%c", label, trans);
    int fail = lt_row(n, nrhs, name, "cuda", ls_precision_name(k->p), t,
                      k->info == 0 ? ls_flops_gesv(n, nrhs) / t / 1e9 : 0.0, res, ok);
    if (!ok)
        printf("    %s: status %d (want %d), info %d (want %d)%s\n", k->kind, st, st_want, info,
               k->info, k->ipiv && memcmp(ipiv, k->ipiv, sizeof(int) * (size_t)n) ? ", ipiv differs" : "");
    return fail;
}

/* The device API. where: bit 0 ipiv on the device, bit 1 info on the device. */
static int run_device(ls_context *ctx, const kase *k, char trans, int where)
{
    int n = k->n, nrhs = k->nrhs, ldd = n + 3, st, info = -99;
    size_t es = es_of(k->p), colb = (size_t)ldd * es;
    void *hA = to_prec(k->p, (size_t)n * n, k->A), *hB = to_prec(k->p, (size_t)n * nrhs, k->B);
    unsigned char *pad = ct_alloc((size_t)ldd * nrhs, es);
    double *X = ct_alloc((size_t)n * nrhs, sizeof *X);
    int *ipiv = ct_alloc((size_t)n, sizeof(int)), *d_ipiv, *d_info;
    void *dA, *dB;
    CUDA_OK(cudaMalloc(&dA, colb * n));
    CUDA_OK(cudaMalloc(&dB, colb * nrhs));
    CUDA_OK(cudaMalloc((void **)&d_ipiv, sizeof(int) * n));
    CUDA_OK(cudaMalloc((void **)&d_info, sizeof(int)));
    CUDA_OK(cudaMemset(dB, 0xff, colb * nrhs)); /* padding rows: must stay 0xff */
    CUDA_OK(cudaMemcpy2D(dA, colb, hA, n * es, n * es, n, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy2D(dB, colb, hB, n * es, n * es, nrhs, cudaMemcpyHostToDevice));
    /* the context's stream does not wait for the legacy stream these copies
     * went to, and a pageable upload may return before its DMA lands */
    CUDA_OK(cudaDeviceSynchronize());
    int *ip = where & 1 ? d_ipiv : ipiv, *in = where & 2 ? d_info : &info;
    int dbl = k->p == LS_DOUBLE;
    double t0 = wall();
    if (trans == 'N') {
        st = dbl ? ls_dgesv_gpu(n, nrhs, dA, ldd, ip, dB, ldd, in, ctx)
                 : ls_sgesv_gpu(n, nrhs, dA, ldd, ip, dB, ldd, in, ctx);
    } else {
        st = dbl ? ls_dgetrf_gpu(n, n, dA, ldd, ip, in, ctx) : ls_sgetrf_gpu(n, n, dA, ldd, ip, in, ctx);
        /* host info: LAPACK's rule, no solve after a zero pivot */
        if (st == 0)
            st = dbl ? ls_dgetrs_gpu(trans, n, nrhs, dA, ldd, ip, dB, ldd, in, ctx)
                     : ls_sgetrs_gpu(trans, n, nrhs, dA, ldd, ip, dB, ldd, in, ctx);
    }
    int sync = ls_device_synchronize(ctx);
    double t = wall() - t0;
    if (where & 1)
        CUDA_OK(cudaMemcpy(ipiv, d_ipiv, sizeof(int) * n, cudaMemcpyDeviceToHost));
    if (where & 2)
        CUDA_OK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(pad, dB, colb * nrhs, cudaMemcpyDeviceToHost));
    int pad_ok = 1;
    for (int c = 0; c < nrhs; c++) {
        for (size_t b = (size_t)n * es; b < colb; b++)
            pad_ok &= pad[c * colb + b] == 0xff;
        from_prec(k->p, (size_t)n, pad + c * colb, X + (size_t)c * n);
    }
    static const char *const tag[4] = {"hh", "dh", "hd", "dd"}; /* ipiv, info */
    char label[24];
    snprintf(label, sizeof label, "%s_gpu:%s", trans == 'N' ? "gesv" : "getrs", tag[where]);
    int st_want = where & 2 ? 0 : k->info, solved = (where & 2) != 0;
    if (sync != 0)
        printf("    ls_device_synchronize: %d %s\n", sync, ls_context_error(ctx));
    int fail = judge(k, label, trans, sync ? sync : st, info, st_want, ipiv, X, solved, t);
    fail += pad_ok ? 0 : lt_check(0, "    rows n..ldd-1 of dB untouched");
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(d_ipiv);
    cudaFree(d_info);
    free(hA);
    free(hB);
    free(pad);
    free(X);
    free(ipiv);
    return fail;
}

/* The host API on the CUDA context: gesv for 'N', getrf + getrs for 'T'. */
static int run_host(ls_context *ctx, const kase *k, char trans)
{
    int n = k->n, nrhs = k->nrhs, lda = n + 2, st, info = -99, dbl = k->p == LS_DOUBLE;
    size_t es = es_of(k->p);
    unsigned char *hA = ct_alloc((size_t)lda * n, es), *hB = ct_alloc((size_t)lda * nrhs, es);
    void *a = to_prec(k->p, (size_t)n * n, k->A), *b = to_prec(k->p, (size_t)n * nrhs, k->B);
    for (int j = 0; j < n; j++)
        memcpy(hA + (size_t)j * lda * es, (char *)a + (size_t)j * n * es, n * es);
    for (int j = 0; j < nrhs; j++)
        memcpy(hB + (size_t)j * lda * es, (char *)b + (size_t)j * n * es, n * es);
    int *ipiv = ct_alloc((size_t)n, sizeof(int));
    double *X = ct_alloc((size_t)n * nrhs, sizeof *X);
    double t0 = wall();
    if (trans == 'N') {
        st = dbl ? ls_dgesv(n, nrhs, (double *)hA, lda, ipiv, (double *)hB, lda, &info, ctx)
                 : ls_sgesv(n, nrhs, (float *)hA, lda, ipiv, (float *)hB, lda, &info, ctx);
    } else {
        st = dbl ? ls_dgetrf(n, n, (double *)hA, lda, ipiv, &info, ctx)
                 : ls_sgetrf(n, n, (float *)hA, lda, ipiv, &info, ctx);
        int info2 = 0;
        if (st == 0)
            st = dbl ? ls_dgetrs(trans, n, nrhs, (double *)hA, lda, ipiv, (double *)hB, lda, &info2, ctx)
                     : ls_sgetrs(trans, n, nrhs, (float *)hA, lda, ipiv, (float *)hB, lda, &info2, ctx);
    }
    double t = wall() - t0;
    if (st < 0)
        printf("    host API: %d %s\n", st, ls_context_error(ctx));
    for (int j = 0; j < nrhs; j++)
        from_prec(k->p, (size_t)n, hB + (size_t)j * lda * es, X + (size_t)j * n);
    int fail = judge(k, trans == 'N' ? "gesv(host)" : "getrs(host)", trans, st, info, k->info,
                     ipiv, X, 0, t);
    free(hA);
    free(hB);
    free(a);
    free(b);
    free(ipiv);
    free(X);
    return fail;
}

static int test_sweep(ls_context *ctx)
{
    static const int sizes[] = {1, 2, 31, 32, 33, 63, 64, 65, 511, 2048, 4097}, nrhss[] = {1, 5};
    static const ls_precision precs[] = {LS_DOUBLE, LS_SINGLE};
    int fails = 0;
    const ls_context *cc = ctx;
    fails += lt_check(cc->iface->dense && cc->iface->dense->getrs,
                      "the cuda backend runs getrs (host arrays) itself");
    for (int pi = 0; pi < 2; pi++)
        for (int kind = 0; kind < K_COUNT; kind++)
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
                int n = sizes[si], known = 0;
                double *A = ct_alloc((size_t)n * n, sizeof *A), *At = ct_alloc((size_t)n * n, sizeof *At);
                int *ipiv = ct_alloc((size_t)n, sizeof(int));
                int info = make_kind(kind, precs[pi], n, A, ipiv, &known);
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++)
                        At[j + (size_t)i * n] = A[i + (size_t)j * n];
#ifdef LS_HAVE_LAPACKE
                if (known) { /* the construction and LAPACK agree */
                    int *ref = ct_alloc((size_t)n, sizeof(int));
                    int linfo = lapack_ipiv(precs[pi], n, n, A, ref);
                    fails += lt_check(linfo == 0 && !memcmp(ref, ipiv, sizeof(int) * (size_t)n),
                                      "%s n=%d %s: LAPACK's ipiv is the construction's", kind_names[kind],
                                      n, ls_precision_name(precs[pi]));
                    free(ref);
                }
#endif
                for (int ri = 0; ri < 2; ri++) {
                    int nrhs = nrhss[ri];
                    double *B = ct_alloc((size_t)n * nrhs, sizeof *B);
                    ls_fill_random(n, nrhs, B, n, 99u + (uint64_t)n + (uint64_t)nrhs);
                    kase k = {kind_names[kind], precs[pi], n, nrhs, A, At, B, known ? ipiv : NULL,
                              info};
                    for (int ti = 0; ti < 2; ti++) {
                        char trans = ti ? 'T' : 'N';
                        if (info > 0 && trans == 'T')
                            continue; /* one singular run per API is enough */
                        /* mixed host/device ipiv and info on the small sizes */
                        for (int where = 0; where < 4; where++)
                            if (where == 0 || where == 3 || n <= 65)
                                fails += run_device(ctx, &k, trans, where);
                        fails += run_host(ctx, &k, trans);
                    }
                    free(B);
                }
                free(A);
                free(At);
                free(ipiv);
            }
    return fails;
}

/* ---- asynchrony ---- */

/* The caller's stream waits on a long chain of memsets of another stream.
 * A call that synchronised the device or the caller's stream could only
 * return after the chain: so both must still be busy when it returns. */
#define CHAIN_BYTES ((size_t)256 << 20)
#define CHAIN_LEN 1000

static int test_async(ls_context *ctx)
{
    int fails = 0, n = 1024, nrhs = 3;
    cudaStream_t mine, other;
    cudaEvent_t gate;
    void *big;
    CUDA_OK(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreateWithFlags(&gate, cudaEventDisableTiming));
    CUDA_OK(cudaMalloc(&big, CHAIN_BYTES));
    fails += lt_check(ls_context_set_stream(ctx, mine) == 0 &&
                          ls_context_get_stream(ctx) == (void *)mine,
                      "ls_context_set_stream: the context's work goes to the caller's stream");
    double *A = ct_alloc((size_t)n * n, sizeof *A), *At = ct_alloc((size_t)n * n, sizeof *At);
    double *B = ct_alloc((size_t)n * nrhs, sizeof *B), *X = ct_alloc((size_t)n * nrhs, sizeof *X);
    int *want = ct_alloc((size_t)n, sizeof(int)), *ipiv = ct_alloc((size_t)n, sizeof(int));
    make_plu(n, A, 4242u, 1.0, want);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            At[j + (size_t)i * n] = A[i + (size_t)j * n];
    ls_fill_random(n, nrhs, B, n, 4243u);
    for (int pi = 0; pi < 2; pi++)
        for (int op = 0; op < 2; op++)
            for (int measured = 0; measured < 2; measured++) { /* first: workspace, cuBLAS */
                ls_precision p = pi ? LS_SINGLE : LS_DOUBLE;
                size_t es = es_of(p);
                void *hA = to_prec(p, (size_t)n * n, A), *hB = to_prec(p, (size_t)n * nrhs, B);
                void *dA = NULL, *dB = NULL;
                int *d_ipiv = NULL, *d_info = NULL, info = -99, st;
                ls_device_malloc(ctx, &dA, (size_t)n * n * es);
                ls_device_malloc(ctx, &dB, (size_t)n * nrhs * es);
                ls_device_malloc(ctx, (void **)&d_ipiv, sizeof(int) * n);
                ls_device_malloc(ctx, (void **)&d_info, sizeof(int));
                ls_device_copy(ctx, dA, hA, (size_t)n * n * es);
                ls_device_copy(ctx, dB, hB, (size_t)n * nrhs * es);
                if (measured) {
                    for (int r = 0; r < CHAIN_LEN; r++)
                        CUDA_OK(cudaMemsetAsync(big, r & 0xff, CHAIN_BYTES, other));
                    CUDA_OK(cudaEventRecord(gate, other));
                    CUDA_OK(cudaStreamWaitEvent(mine, gate, 0));
                }
                double t0 = wall();
                if (op == 0) {
                    st = p == LS_DOUBLE ? ls_dgesv_gpu(n, nrhs, dA, n, d_ipiv, dB, n, d_info, ctx)
                                        : ls_sgesv_gpu(n, nrhs, dA, n, d_ipiv, dB, n, d_info, ctx);
                } else {
                    st = p == LS_DOUBLE ? ls_dgetrf_gpu(n, n, dA, n, d_ipiv, d_info, ctx)
                                        : ls_sgetrf_gpu(n, n, dA, n, d_ipiv, d_info, ctx);
                    if (st == 0)
                        st = p == LS_DOUBLE
                                 ? ls_dgetrs_gpu('T', n, nrhs, dA, n, d_ipiv, dB, n, d_info, ctx)
                                 : ls_sgetrs_gpu('T', n, nrhs, dA, n, d_ipiv, dB, n, d_info, ctx);
                }
                double t_call = wall() - t0;
                cudaError_t q_other = cudaStreamQuery(other), q_mine = cudaStreamQuery(mine);
                int sync = ls_device_synchronize(ctx);
                double t_all = wall() - t0;
                ls_device_copy(ctx, &info, d_info, sizeof info);
                ls_device_copy(ctx, ipiv, d_ipiv, sizeof(int) * n);
                ls_device_copy(ctx, hB, dB, (size_t)n * nrhs * es);
                from_prec(p, (size_t)n * nrhs, hB, X);
                double res = ls_scaled_residual(n, nrhs, op ? At : A, n, X, n, B, n, ls_eps(p));
                int ok = st == 0 && sync == 0 && info == 0 && res <= LS_TEST_TOL &&
                         !memcmp(ipiv, want, sizeof(int) * n);
                if (measured) {
                    ok = ok && q_other == cudaErrorNotReady && q_mine == cudaErrorNotReady;
                    fails += lt_row(n, nrhs, op ? "getrs_gpu:T:dd" : "gesv_gpu:N:dd", "cuda",
                                    ls_precision_name(p), t_all, 0.0, res, ok);
                    printf("    returned after %.3f ms, the gate's chain still running: %s "
                           "(other stream %s, caller's %s); all done after %.3f ms\n",
                           1e3 * t_call, ok ? "yes" : "NO", cudaGetErrorName(q_other),
                           cudaGetErrorName(q_mine), 1e3 * t_all);
                } else if (!ok) {
                    fails += lt_check(0, "warm-up %s %s: status %d, info %d, residual %.2e (%s)",
                                      op ? "getrf+getrs" : "gesv", ls_precision_name(p), st, info,
                                      res, ls_context_error(ctx));
                }
                ls_device_free(ctx, dA);
                ls_device_free(ctx, dB);
                ls_device_free(ctx, d_ipiv);
                ls_device_free(ctx, d_info);
                free(hA);
                free(hB);
            }
    void *own = NULL;
    fails += lt_check(ls_context_set_stream(ctx, NULL) == 0 &&
                          (own = ls_context_get_stream(ctx)) != NULL && own != (void *)mine,
                      "ls_context_set_stream(NULL): the context's own stream again");
    CUDA_OK(cudaDeviceSynchronize());
    cudaFree(big);
    cudaEventDestroy(gate);
    cudaStreamDestroy(mine);
    cudaStreamDestroy(other);
    free(A);
    free(At);
    free(B);
    free(X);
    free(want);
    free(ipiv);
    return fails;
}

/* ---- arguments, quick returns, memory helpers ---- */

static int dev_int(ls_context *ctx, const int *d)
{
    int v = -12345;
    ls_device_copy(ctx, &v, d, sizeof v);
    return v;
}

static int test_args(ls_context *ctx)
{
    int fails = 0, n = 4, info = 0, st;
    double hA[16], hB[4], back[16], *dA = NULL, *dB = NULL;
    float *sA = NULL, *sB = NULL;
    int *d_ipiv = NULL, *d_info = NULL, ipiv[4];
    void *z = (void *)&info;
    fails += lt_check(ls_device_malloc(ctx, &z, 0) == 0 && z == NULL, "ls_device_malloc of 0 bytes");
    fails += lt_check(ls_device_free(ctx, NULL) == 0, "ls_device_free(NULL)");
    fails += lt_check(ls_device_malloc(ctx, (void **)&dA, sizeof hA) == 0 &&
                          ls_device_malloc(ctx, (void **)&dB, sizeof hA) == 0 &&
                          ls_device_malloc(ctx, (void **)&sA, sizeof hA) == 0 &&
                          ls_device_malloc(ctx, (void **)&sB, sizeof hA) == 0 &&
                          ls_device_malloc(ctx, (void **)&d_ipiv, sizeof ipiv) == 0 &&
                          ls_device_malloc(ctx, (void **)&d_info, sizeof(int)) == 0,
                      "ls_device_malloc");
    for (int i = 0; i < 16; i++)
        hA[i] = (i % 5 == 0 ? 8.0 : 0.0) + 0.25 * (i % 3) - 0.125 * (i % 7);
    for (int i = 0; i < 4; i++)
        hB[i] = 1.0 + i;
    /* host -> device -> device -> host */
    st = ls_device_copy(ctx, dB, hA, sizeof hA);
    st = st ? st : ls_device_copy(ctx, dA, dB, sizeof hA);
    st = st ? st : ls_device_copy(ctx, back, dA, sizeof hA);
    fails += lt_check(st == 0 && !memcmp(back, hA, sizeof hA), "ls_device_copy round trip");
    fails += lt_check(ls_device_copy(ctx, NULL, hA, 8) == LS_EINVAL, "ls_device_copy dst NULL");
    fails += lt_check(ls_device_free(ctx, hA) == LS_EINVAL, "ls_device_free of host memory refused (%s)",
                      ls_context_error(ctx));
    ls_device_copy(ctx, dB, hB, sizeof hB);
    /* -i, with info in device memory too */
    st = ls_dgesv_gpu(n, 1, dA, 3, d_ipiv, dB, n, d_info, ctx);
    fails += lt_check(st == -4 && dev_int(ctx, d_info) == -4 &&
                          strstr(ls_context_error(ctx), "argument 4"),
                      "dgesv_gpu ldda < n: -4, device info -4 (%s)", ls_context_error(ctx));
    st = ls_dgetrs_gpu('X', n, 1, dA, n, d_ipiv, dB, n, &info, ctx);
    fails += lt_check(st == -1 && info == -1, "dgetrs_gpu trans 'X': -1");
    st = ls_dgetrs_gpu('N', n, 1, dA, n, NULL, dB, n, d_info, ctx);
    fails += lt_check(st == -6 && dev_int(ctx, d_info) == -6, "dgetrs_gpu ipiv NULL: -6");
    st = ls_dgetrf_gpu(-1, n, dA, n, d_ipiv, &info, ctx);
    fails += lt_check(st == -1 && info == -1, "dgetrf_gpu m < 0: -1");
    st = ls_dgetrf_gpu(n, n, NULL, n, d_ipiv, &info, ctx);
    fails += lt_check(st == -3 && info == -3, "dgetrf_gpu dA NULL: -3");
    st = ls_sgesv_gpu(n, 1, sA, n, d_ipiv, sB, 3, &info, ctx);
    fails += lt_check(st == -7 && info == -7, "sgesv_gpu lddb < n: -7");
    /* host memory where device memory is due: refused before any kernel */
    st = ls_dgesv_gpu(n, 1, hA, n, d_ipiv, dB, n, &info, ctx);
    fails += lt_check(st == -3 && info == -3 && strstr(ls_context_error(ctx), "host memory"),
                      "dgesv_gpu with host dA: -3 (%s)", ls_context_error(ctx));
    st = ls_dgetrs_gpu('N', n, 1, dA, n, d_ipiv, hB, n, d_info, ctx);
    fails += lt_check(st == -7 && dev_int(ctx, d_info) == -7, "dgetrs_gpu with host dB: -7");
    /* quick returns still set info, wherever it is */
    int five = 5;
    ls_device_copy(ctx, d_info, &five, sizeof five);
    st = ls_dgesv_gpu(0, 1, dA, 1, d_ipiv, dB, 1, d_info, ctx);
    fails += lt_check(st == 0 && dev_int(ctx, d_info) == 0, "dgesv_gpu n = 0: info 0 on the device");
    info = 5;
    st = ls_dgetrf_gpu(0, 3, dA, 1, ipiv, &info, ctx);
    fails += lt_check(st == 0 && info == 0, "dgetrf_gpu m = 0: info 0");
    /* 'C' is 'T' for real data: the same bits */
    double xt[4], xc[4];
    ls_device_copy(ctx, dA, hA, sizeof hA);
    st = ls_dgetrf_gpu(n, n, dA, n, d_ipiv, &info, ctx);
    for (int t = 0; t < 2; t++) {
        ls_device_copy(ctx, dB, hB, sizeof hB);
        st |= ls_dgetrs_gpu(t ? 'c' : 'T', n, 1, dA, n, d_ipiv, dB, n, &info, ctx);
        ls_device_copy(ctx, t ? xc : xt, dB, sizeof xt);
    }
    fails += lt_check(st == 0 && !memcmp(xt, xc, sizeof xt), "getrs_gpu 'C' == 'T'");
#ifdef LS_HAVE_LAPACKE
    /* rectangular getrf: LAPACK's pivots (FP64, random: no near ties) */
    int shapes[2][2] = {{300, 200}, {200, 300}};
    for (int s = 0; s < 2; s++) {
        int m = shapes[s][0], c = shapes[s][1], k = m < c ? m : c;
        double *R = ct_alloc((size_t)m * c, sizeof *R), *dR = NULL;
        int *ip = ct_alloc((size_t)k, sizeof(int)), *ref = ct_alloc((size_t)k, sizeof(int));
        ls_fill_random(m, c, R, m, 555u + (unsigned)s);
        ls_device_malloc(ctx, (void **)&dR, sizeof(double) * m * c);
        ls_device_copy(ctx, dR, R, sizeof(double) * m * c);
        st = ls_dgetrf_gpu(m, c, dR, m, ip, &info, ctx);
        int linfo = lapack_ipiv(LS_DOUBLE, m, c, R, ref);
        fails += lt_check(st == 0 && info == 0 && linfo == 0 && !memcmp(ip, ref, sizeof(int) * k),
                          "dgetrf_gpu %dx%d: ipiv equal to LAPACK's", m, c);
        ls_device_free(ctx, dR);
        free(R);
        free(ip);
        free(ref);
    }
#endif
    ls_device_free(ctx, dA);
    ls_device_free(ctx, dB);
    ls_device_free(ctx, sA);
    ls_device_free(ctx, sB);
    ls_device_free(ctx, d_ipiv);
    ls_device_free(ctx, d_info);
    return fails;
}

/* ---- n * n > 2^31 ---- */

/* 1: ran (fails added), 0: skipped for lack of memory. */
static int test_large(ls_context *ctx, int *fails)
{
    const int n = 46500, ldd = n + 1;
    size_t a_dev = (size_t)ldd * n * sizeof(float), a_host = (size_t)n * n * sizeof(float);
    size_t free_b = 0, total_b = 0;
    CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
    double host_free = (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (free_b < a_dev + ((size_t)1 << 30) || host_free < 2.0 * a_host + 4e9) {
        printf("skipped: n = %d needs %.1f GB of device memory (%.1f free) and %.1f GB of host "
               "memory (%.1f free)\n",
               n, (a_dev + (1 << 30)) / 1e9, free_b / 1e9, (2.0 * a_host + 4e9) / 1e9,
               host_free / 1e9);
        return 0;
    }
    float *A = malloc(a_host), *F = malloc(a_host), *b = malloc(sizeof(float) * n);
    float *x = malloc(sizeof(float) * n), *dA = NULL, *dB = NULL;
    int *ipiv = malloc(sizeof(int) * n), *d_ipiv = NULL, *d_info = NULL, info = -99;
    if (!A || !F || !b || !x || !ipiv) {
        printf("skipped: host allocation failed\n");
        return 0;
    }
    uint64_t s = 46500u;
    for (size_t i = 0; i < (size_t)n * n; i++) /* an LCG: fast enough for 2.2e9 entries */
        A[i] = (float)((double)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 40) *
                           0x1.0p-23 - 1.0);
    for (int i = 0; i < n; i++)
        b[i] = (float)rnd_uniform(&s);
    CUDA_OK(cudaMalloc((void **)&dA, a_dev));
    CUDA_OK(cudaMalloc((void **)&dB, sizeof(float) * ldd));
    CUDA_OK(cudaMalloc((void **)&d_ipiv, sizeof(int) * n));
    CUDA_OK(cudaMalloc((void **)&d_info, sizeof(int)));
    CUDA_OK(cudaMemcpy2D(dA, sizeof(float) * ldd, A, sizeof(float) * n, sizeof(float) * n, n,
                         cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, b, sizeof(float) * n, cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize()); /* see run_device */
    double t0 = wall();
    int st = ls_sgesv_gpu(n, 1, dA, ldd, d_ipiv, dB, ldd, d_info, ctx);
    int sync = ls_device_synchronize(ctx);
    double t = wall() - t0;
    if (st || sync)
        printf("    ls_sgesv_gpu: %d / %d: %s\n", st, sync, ls_context_error(ctx));
    CUDA_OK(cudaMemcpy(&info, d_info, sizeof info, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(ipiv, d_ipiv, sizeof(int) * n, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(x, dB, sizeof(float) * n, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy2D(F, sizeof(float) * n, dA, sizeof(float) * ldd, sizeof(float) * n, n,
                         cudaMemcpyDeviceToHost));
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(d_ipiv);
    cudaFree(d_info);
    int piv_ok = 1;
    for (int k = 0; k < n; k++)
        piv_ok &= ipiv[k] > k && ipiv[k] <= n;
    /* ||b - A x||inf / (n ||A||inf ||x||inf eps), in double, column by column */
    double *r = ct_alloc((size_t)n, sizeof *r), *rows = ct_alloc((size_t)n, sizeof *rows);
    double xmax = 0, rmax = 0, amax = 0;
    for (int i = 0; i < n; i++)
        r[i] = b[i];
    for (int j = 0; j < n; j++) {
        const float *a = A + (size_t)j * n;
        double xj = x[j];
        xmax = fmax(xmax, fabs(xj));
        for (int i = 0; i < n; i++) {
            r[i] -= (double)a[i] * xj;
            rows[i] += fabs((double)a[i]);
        }
    }
    for (int i = 0; i < n; i++) {
        rmax = fmax(rmax, fabs(r[i]));
        amax = fmax(amax, rows[i]);
    }
    double res = rmax / ((double)n * amax * xmax * ls_eps(LS_SINGLE));
    *fails += lt_row(n, 1, "gesv_gpu:N:dd", "cuda", "single", t, ls_flops_gesv(n, 1) / t / 1e9,
                     res, st == 0 && sync == 0 && info == 0 && piv_ok && res <= LS_TEST_TOL);
    /* the host-array getrs on the same factors: sizes past 2^31 on that path too */
    int info2 = -99;
    for (int i = 0; i < n; i++)
        x[i] = b[i];
    t0 = wall();
    st = ls_sgetrs('N', n, 1, F, n, ipiv, x, n, &info2, ctx);
    t = wall() - t0;
    if (st)
        printf("    ls_sgetrs: %d: %s\n", st, ls_context_error(ctx));
    for (int i = 0; i < n; i++)
        r[i] = b[i];
    xmax = rmax = 0;
    for (int j = 0; j < n; j++) {
        const float *a = A + (size_t)j * n;
        double xj = x[j];
        xmax = fmax(xmax, fabs(xj));
        for (int i = 0; i < n; i++)
            r[i] -= (double)a[i] * xj;
    }
    for (int i = 0; i < n; i++)
        rmax = fmax(rmax, fabs(r[i]));
    res = rmax / ((double)n * amax * xmax * ls_eps(LS_SINGLE));
    *fails += lt_row(n, 1, "getrs(host):N", "cuda", "single", t, ls_flops_getrs(n, 1) / t / 1e9,
                     res, st == 0 && info2 == 0 && res <= LS_TEST_TOL);
    free(A);
    free(F);
    free(b);
    free(x);
    free(ipiv);
    free(r);
    free(rows);
    return 1;
}

int main(int argc, char **argv)
{
    int fails = 0, skipped = 0;
    ls_context *ctx = ct_open_or_skip();
    lt_header();
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--sweep"))
            fails += test_sweep(ctx);
        else if (!strcmp(argv[a], "--async"))
            fails += test_async(ctx);
        else if (!strcmp(argv[a], "--args"))
            fails += test_args(ctx);
        else if (!strcmp(argv[a], "--large"))
            skipped += !test_large(ctx, &fails);
        else
            fails += lt_check(0, "unknown argument %s", argv[a]);
    }
    ls_context_destroy(ctx);
    printf("%d failure(s)\n", fails);
    if (skipped && fails == 0)
        return LT_SKIP;
    return fails > 76 ? 76 : fails;
}
