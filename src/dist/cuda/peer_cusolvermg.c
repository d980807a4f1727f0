/*
 * The benchmark's peer: cuSOLVERMg's getrf + getrs (FP64) on devices
 * 0 .. ngpus-1 of this host, driven by this one process, on exactly the
 * matrix that liblinsolve's distributed LU solves (ls_generate_block) and
 * b = A * ones summed as the serial CLI sums it. The random kind is drawn
 * on the devices, in place (k_gen.cu); the other kinds on the host, kept
 * there when A takes at most half the RAM, else drawn again for every run.
 *
 * Layout: cuSOLVERMg's 1-D column block-cyclic one over a 1 x ngpus grid;
 * column block k (nb wide) lives on device k % ngpus at local column
 * (k / ngpus) * nb, leading dimension n (a tile is all n rows).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>
/* cuSOLVERMg is deprecated from CUDA 13 on, but it is the peer we measure */
#define DISABLE_CUSOLVERMG_DEPRECATED
#include <cusolverMg.h>

#include "dist_cuda.h"
#include "k_gen.h"

typedef struct mg {
    const ls_dist_peer_args *a;
    ls_dist_peer_result *r;
    int n, nb, g, nblk;
    size_t lcap;           /* local columns allocated per device: whole tiles */
    int devgen;            /* A drawn on the devices (k_gen.cu): the random kind */
    double *A0, *panel;    /* pristine host A, or NULL and an n x nb panel (host drawn) */
    double *dG;            /* devgen: device 0's b (n) and b - A x or sum |a_ij| (n) */
    double *b, *x, *rsum;  /* one allocation; rsum: row sums of |a_ij|, later b - A x */
    double anorm, *t;      /* t: the timed runs */
    void **dA, **dB, **dW; /* per device; dB[0] alone holds b (one column) */
    int **dP, *ids;        /* ids: 0 .. g-1 */
    unsigned char *peer;   /* g x g: peer access that this call enabled */
    cusolverMgHandle_t h;
    cudaLibMgGrid_t grid;
    cudaLibMgMatrixDesc_t descA, descB;
    int64_t lwork; /* doubles per device */
} mg;

static int fail(mg *m, int status, int line, const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(m->r->error, sizeof m->r->error, "%s [peer_cusolvermg.c:%d]", text, line);
    return status;
}

static int cuda_st(mg *m, cudaError_t e, const char *what, int line)
{
    if (e == cudaSuccess)
        return 0;
    (void)cudaGetLastError(); /* leave no error behind for the next caller */
    return fail(m, e == cudaErrorMemoryAllocation ? LS_EDEVMEM : LS_EDEVICE, line, "%s: %s (%s)",
                what, cudaGetErrorName(e), cudaGetErrorString(e));
}

static int mg_st(mg *m, cusolverStatus_t s, const char *what, int line)
{
    if (s == CUSOLVER_STATUS_SUCCESS)
        return 0;
    return fail(m, s == CUSOLVER_STATUS_ALLOC_FAILED ? LS_EDEVMEM : LS_EDEVICE, line,
                "%s: cusolverStatus_t %d", what, (int)s);
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        if ((st = (x)) != 0)                                                                       \
            return st;                                                                             \
    } while (0)
#define CK_CUDA(what, call) TRY(cuda_st(m, (call), what, __LINE__))
#define CK_MG(what, call) TRY(mg_st(m, (call), what, __LINE__))

/* columns in block k */
static int width(const mg *m, int k)
{
    return m->n - k * m->nb < m->nb ? m->n - k * m->nb : m->nb;
}

/* Column block k of A: the pristine copy's (generated there when fresh),
 * or without one, generated into the panel every time. */
static int block(mg *m, int k, int fresh, const double **out)
{
    const int j0 = k * m->nb;
    double *p = m->A0 ? m->A0 + (size_t)j0 * (size_t)m->n : m->panel;
    if (!m->A0 || fresh) {
        int st = ls_generate_block((ls_gen_kind)m->a->kind, m->n, 0, j0, m->n, width(m, k), p,
                                   m->n, m->a->seed);
        if (st != 0)
            return fail(m, st, __LINE__, "ls_generate_block (block %d): %s", k, ls_strerror(st));
    }
    *out = p;
    return 0;
}

/* Host buffers, then (host-drawn A) b = A * ones, column by column in
 * increasing order as the CLI sums it, and ||A||inf; a device-drawn A gets
 * them from dev_sums. */
static int host_setup(mg *m)
{
    int st = 0;
    const size_t n = (size_t)m->n, g = (size_t)m->g;
    m->t = malloc(sizeof(double) * (size_t)m->a->repeat);
    m->b = calloc(3 * n, sizeof(double));
    m->x = m->b ? m->b + n : NULL;
    m->rsum = m->b ? m->b + 2 * n : NULL;
    m->dA = calloc(3 * g, sizeof(void *));
    m->dB = m->dA ? m->dA + g : NULL;
    m->dW = m->dA ? m->dA + 2 * g : NULL;
    m->dP = calloc(g, sizeof(int *));
    m->ids = malloc(sizeof(int) * g);
    m->peer = calloc(g * g, 1);
    if (!m->t || !m->b || !m->dA || !m->dP || !m->ids || !m->peer)
        return fail(m, LS_ENOMEM, __LINE__, "out of host memory (n = %d)", m->n);
    for (int d = 0; d < m->g; ++d)
        m->ids[d] = d;
    if (m->devgen)
        return 0;
    /* a pristine copy spares regenerating A for every run; only where it
     * takes at most half the RAM, since overcommit lets malloc promise more */
    const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0 && sizeof(double) * n * n / (size_t)psize <= (size_t)pages / 2)
        m->A0 = malloc(sizeof(double) * n * n);
    if (!m->A0)
        m->panel = malloc(sizeof(double) * n * (size_t)m->nb);
    if (!(m->A0 || m->panel))
        return fail(m, LS_ENOMEM, __LINE__, "out of host memory (n = %d)", m->n);
    for (int k = 0; k < m->nblk; ++k) {
        const double *p = NULL;
        TRY(block(m, k, 1, &p));
        for (int j = 0; j < width(m, k); ++j, p += n)
            for (size_t i = 0; i < n; ++i) {
                m->b[i] += p[i];
                m->rsum[i] += fabs(p[i]);
            }
    }
    for (size_t i = 0; i < n; ++i)
        m->anorm = m->rsum[i] > m->anorm || isnan(m->rsum[i]) ? m->rsum[i] : m->anorm;
    return 0;
}

/* per_dev: what each device is asked for in all, for the message */
static int dev_malloc(mg *m, int d, void **p, size_t bytes, size_t per_dev, const char *what)
{
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return fail(m, LS_EDEVMEM, __LINE__,
                    "out of device memory on device %d: %zu bytes asked per device (%s)", d,
                    per_dev, what);
    }
    return cuda_st(m, e, "cudaMalloc", __LINE__);
}

static int dev_setup(mg *m)
{
    int st = 0, n = m->n, g = m->g;
    CK_MG("cusolverMgCreate", cusolverMgCreate(&m->h));
    CK_MG("cusolverMgDeviceSelect", cusolverMgDeviceSelect(m->h, g, m->ids));
    /* cuSOLVERMg's kernels reach into the peers' memory */
    for (int d = 0; d < g; ++d)
        for (int e = 0; e < g; ++e) {
            int can = 0;
            if (e == d || cudaDeviceCanAccessPeer(&can, d, e) != cudaSuccess || !can)
                continue;
            CK_CUDA("cudaSetDevice", cudaSetDevice(d));
            cudaError_t pe = cudaDeviceEnablePeerAccess(e, 0);
            m->peer[d * g + e] = pe == cudaSuccess;
            if (pe != cudaErrorPeerAccessAlreadyEnabled)
                CK_CUDA("cudaDeviceEnablePeerAccess", pe);
        }
    (void)cudaGetLastError(); /* AlreadyEnabled, or a failed CanAccessPeer */
    CK_MG("cusolverMgCreateDeviceGrid",
          cusolverMgCreateDeviceGrid(&m->grid, 1, g, m->ids, CUDALIBMG_GRID_MAPPING_COL_MAJOR));
    CK_MG("cusolverMgCreateMatrixDesc (A)",
          cusolverMgCreateMatrixDesc(&m->descA, n, n, n, m->nb, CUDA_R_64F, m->grid));
    CK_MG("cusolverMgCreateMatrixDesc (B)",
          cusolverMgCreateMatrixDesc(&m->descB, n, 1, n, 1, CUDA_R_64F, m->grid));
    /* A and IPIV in whole tiles on every device, as cuSOLVERMg's samples do */
    const size_t a_b = m->lcap * (size_t)n * sizeof(double), b_b = (size_t)n * sizeof(double),
                 p_b = m->lcap * sizeof(int), sum = a_b + b_b + p_b;
    for (int d = 0; d < g; ++d) {
        CK_CUDA("cudaSetDevice", cudaSetDevice(d));
        TRY(dev_malloc(m, d, &m->dA[d], a_b, sum, "A, b, ipiv"));
        TRY(dev_malloc(m, d, &m->dB[d], b_b, sum, "A, b, ipiv"));
        TRY(dev_malloc(m, d, (void **)&m->dP[d], p_b, sum, "A, b, ipiv"));
    }
    int64_t lw_f = 0, lw_s = 0;
    CK_MG("cusolverMgGetrf_bufferSize",
          cusolverMgGetrf_bufferSize(m->h, n, n, m->dA, 1, 1, m->descA, m->dP, CUDA_R_64F, &lw_f));
    CK_MG("cusolverMgGetrs_bufferSize",
          cusolverMgGetrs_bufferSize(m->h, CUBLAS_OP_N, n, 1, m->dA, 1, 1, m->descA, m->dP,
                                     m->dB, 1, 1, m->descB, CUDA_R_64F, &lw_s));
    m->lwork = lw_f > lw_s ? lw_f : lw_s;
    const size_t w_b = (size_t)(m->lwork > 0 ? m->lwork : 1) * sizeof(double);
    for (int d = 0; d < g; ++d) {
        CK_CUDA("cudaSetDevice", cudaSetDevice(d));
        TRY(dev_malloc(m, d, &m->dW[d], w_b, sum + w_b, "A, b, ipiv, workspace"));
    }
    if (m->devgen) {
        CK_CUDA("cudaSetDevice", cudaSetDevice(0));
        TRY(dev_malloc(m, 0, (void **)&m->dG, 2 * b_b, sum + w_b + 2 * b_b,
                       "A, b, ipiv, workspace, b and r"));
    }
    return 0;
}

/* Device-drawn A: b = A * ones and the row sums of |A| on device 0, kept
 * in dG for the residual; ||A||inf on the host. */
static int dev_sums(mg *m)
{
    int st = 0;
    const size_t n = (size_t)m->n;
    CK_CUDA("cudaSetDevice", cudaSetDevice(0));
    CK_CUDA("k_gen rowsums", ls_dist_k_gen_random_rowsums(m->n, m->a->seed, m->dG,
                                                          m->dG + n, 0));
    CK_CUDA("cudaMemcpy (b)", cudaMemcpy(m->b, m->dG, sizeof(double) * n, cudaMemcpyDeviceToHost));
    CK_CUDA("cudaMemcpy (row sums)",
            cudaMemcpy(m->rsum, m->dG + n, sizeof(double) * n, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        m->anorm = m->rsum[i] > m->anorm || isnan(m->rsum[i]) ? m->rsum[i] : m->anorm;
    return 0;
}

static int sync_all(mg *m)
{
    int st = 0;
    for (int d = 0; d < m->g; ++d) {
        CK_CUDA("cudaSetDevice", cudaSetDevice(d));
        CK_CUDA("cudaDeviceSynchronize", cudaDeviceSynchronize());
    }
    return 0;
}

/* Pristine A to its owners and b to device 0, all devices idle after. */
static int upload(mg *m)
{
    int st = 0;
    const size_t n = (size_t)m->n;
    for (int d = 0; m->devgen && d < m->g; ++d) {
        CK_CUDA("cudaSetDevice", cudaSetDevice(d));
        CK_CUDA("k_gen cols", ls_dist_k_gen_random_cols(m->n, m->nb, m->g, d, (long long)m->lcap,
                                                        m->dA[d], m->n, m->a->seed, 0));
    }
    for (int k = 0; !m->devgen && k < m->nblk; ++k) {
        const double *p = NULL;
        const int d = k % m->g;
        TRY(block(m, k, 0, &p));
        CK_CUDA("cudaSetDevice", cudaSetDevice(d));
        CK_CUDA("cudaMemcpy (A)",
                cudaMemcpy((double *)m->dA[d] + (size_t)(k / m->g) * (size_t)m->nb * n, p,
                           sizeof(double) * (size_t)width(m, k) * n, cudaMemcpyHostToDevice));
    }
    CK_CUDA("cudaSetDevice", cudaSetDevice(0));
    CK_CUDA("cudaMemcpy (b)", cudaMemcpy(m->dB[0], m->b, sizeof(double) * n,
                                         cudaMemcpyHostToDevice));
    return sync_all(m);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One untimed warm-up, then a->repeat timed getrf + getrs. */
static int runs(mg *m)
{
    int st = 0, n = m->n;
    for (int run = 0; run <= m->a->repeat; ++run) {
        int info = 0, sinfo = 0;
        TRY(upload(m));
        const double t0 = now();
        CK_MG("cusolverMgGetrf", cusolverMgGetrf(m->h, n, n, m->dA, 1, 1, m->descA, m->dP,
                                                 CUDA_R_64F, m->dW, m->lwork, &info));
        /* after a zero pivot too: every run times the same work, and the
         * residual shows the failure */
        CK_MG("cusolverMgGetrs",
              cusolverMgGetrs(m->h, CUBLAS_OP_N, n, 1, m->dA, 1, 1, m->descA, m->dP, m->dB, 1, 1,
                              m->descB, CUDA_R_64F, m->dW, m->lwork, &sinfo));
        TRY(sync_all(m));
        if (run > 0)
            m->t[run - 1] = now() - t0;
        if (info < 0)
            return fail(m, LS_EDEVICE, __LINE__, "cusolverMgGetrf: illegal argument %d", -info);
        if (sinfo < 0)
            return fail(m, LS_EDEVICE, __LINE__, "cusolverMgGetrs: illegal argument %d", -sinfo);
        m->r->info = info;
    }
    return 0;
}

/* ||b - A x||inf / (n ||A||inf ||x||inf eps), A generated again (or the
 * pristine copy), with linsolve's eps (ls_scaled_residual's) so that the
 * peer's column compares with ours. */
static int residual(mg *m)
{
    int st = 0, nan_seen = 0;
    const size_t n = (size_t)m->n;
    double rnorm = 0, xnorm = 0;
    CK_CUDA("cudaSetDevice", cudaSetDevice(0));
    CK_CUDA("cudaMemcpy (x)",
            cudaMemcpy(m->x, m->dB[0], sizeof(double) * n, cudaMemcpyDeviceToHost));
    if (m->devgen) { /* dG holds b; r = b - A x beside it */
        CK_CUDA("k_gen residual", ls_dist_k_gen_random_residual(m->n, m->a->seed, m->dB[0],
                                                                m->dG, m->dG + n, 0));
        CK_CUDA("cudaMemcpy (r)",
                cudaMemcpy(m->rsum, m->dG + n, sizeof(double) * n, cudaMemcpyDeviceToHost));
    } else
        memcpy(m->rsum, m->b, sizeof(double) * n);
    for (int k = 0; !m->devgen && k < m->nblk; ++k) {
        const double *p = NULL;
        TRY(block(m, k, 0, &p));
        const double *x = m->x + (size_t)k * (size_t)m->nb;
        for (int j = 0; j < width(m, k); ++j, p += n)
            for (size_t i = 0; i < n; ++i)
                m->rsum[i] -= p[i] * x[j];
    }
    for (size_t i = 0; i < n; ++i) {
        nan_seen |= isnan(m->rsum[i]) || isnan(m->x[i]);
        rnorm = fabs(m->rsum[i]) > rnorm ? fabs(m->rsum[i]) : rnorm;
        xnorm = fabs(m->x[i]) > xnorm ? fabs(m->x[i]) : xnorm;
    }
    const double denom = (double)n * m->anorm * xnorm * ls_eps(LS_DOUBLE);
    if (nan_seen || isnan(m->anorm))
        m->r->residual = NAN;
    else if (rnorm == 0)
        m->r->residual = 0;
    else
        m->r->residual = denom == 0 || !isfinite(denom) ? INFINITY : rnorm / denom;
    return 0;
}

static void release(mg *m)
{
    if (m->descB)
        cusolverMgDestroyMatrixDesc(m->descB);
    if (m->descA)
        cusolverMgDestroyMatrixDesc(m->descA);
    if (m->grid)
        cusolverMgDestroyGrid(m->grid);
    if (m->h)
        cusolverMgDestroy(m->h);
    for (int d = 0; m->dA && m->dP && m->peer && d < m->g; ++d) {
        cudaSetDevice(d);
        cudaFree(m->dA[d]);
        cudaFree(m->dB[d]);
        cudaFree(m->dW[d]);
        cudaFree(m->dP[d]);
        if (d == 0)
            cudaFree(m->dG);
        for (int e = 0; e < m->g; ++e)
            if (m->peer[d * m->g + e]) /* leave peer access as we found it */
                cudaDeviceDisablePeerAccess(e);
    }
    (void)cudaGetLastError();
    free(m->t);
    free(m->b);
    free(m->A0);
    free(m->panel);
    free(m->dA);
    free(m->dP);
    free(m->ids);
    free(m->peer);
}

static int cmp_double(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

int ls_dist_cuda_peer_cusolvermg(int abi, const ls_dist_peer_args *a, ls_dist_peer_result *r)
{
    if (!r)
        return LS_EINVAL;
    memset(r, 0, sizeof *r);
    r->residual = NAN;
    mg m = {.a = a, .r = r};
    if (abi != LS_DIST_CUDA_ABI)
        return fail(&m, LS_EINVAL, __LINE__, "plugin ABI %d, caller's %d", LS_DIST_CUDA_ABI, abi);
    if (!a)
        return fail(&m, LS_EINVAL, __LINE__, "no arguments");
    int ndev = 0, dev0 = 0;
    cudaError_t ce = cudaGetDeviceCount(&ndev);
    if (ce != cudaSuccess) {
        (void)cudaGetLastError();
        return fail(&m, LS_EUNAVAIL, __LINE__, "no CUDA device: cudaGetDeviceCount: %s",
                    cudaGetErrorName(ce));
    }
    if (a->n < 1 || a->nb < 1 || a->repeat < 1 || a->ngpus < 1 || a->ngpus > ndev)
        return fail(&m, LS_EINVAL, __LINE__,
                    "need n, nb, repeat >= 1 and 1 <= ngpus <= %d (n %d, nb %d, repeat %d, "
                    "ngpus %d)",
                    ndev, a->n, a->nb, a->repeat, a->ngpus);
    if (a->kind < 0 || a->kind >= LS_GEN_COUNT_ || !ls_gen_is_local((ls_gen_kind)a->kind))
        return fail(&m, LS_EINVAL, __LINE__, "matrix kind %d cannot be generated block by block",
                    a->kind);
    /* A's n x 2n doubles at most (whole tiles) must count in size_t, 2n in int */
    if ((double)a->n * 2.0 * (double)a->n * sizeof(double) > (double)(SIZE_MAX / 2))
        return fail(&m, LS_ESIZE, __LINE__, "n = %d is too large", a->n);

    m.n = a->n;
    m.g = a->ngpus;
    m.nb = a->nb < a->n ? a->nb : a->n; /* any nb >= n is the same single tile */
    m.nblk = (m.n + m.nb - 1) / m.nb;
    m.lcap = (size_t)((m.nblk + m.g - 1) / m.g) * (size_t)m.nb;
    (void)cudaGetDevice(&dev0);
    m.devgen = a->kind == LS_GEN_RANDOM;
    int st = host_setup(&m);
    if (st == 0)
        st = dev_setup(&m);
    if (st == 0 && m.devgen)
        st = dev_sums(&m);
    if (st == 0)
        st = runs(&m);
    if (st == 0) {
        const int k = a->repeat;
        qsort(m.t, (size_t)k, sizeof *m.t, cmp_double);
        r->seconds = k % 2 ? m.t[k / 2] : 0.5 * (m.t[k / 2 - 1] + m.t[k / 2]);
        st = residual(&m);
    }
    release(&m);
    cudaSetDevice(dev0);
    if (st != 0)
        r->seconds = 0;
    return st;
}
