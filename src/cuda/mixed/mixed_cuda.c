/* The mixed-precision solver's operations on the device (algo/mixed.h):
 * an FP32 copy of A factored by our LU (lsc_getrf_device) with its
 * trailing GEMMs in FP32 or on TF32 tensor cores, FP64 residuals with
 * cuBLAS, GMRES vectors on the device. Everything is queued on the
 * context's stream; what comes back to the host is scalars (norms, info,
 * GMRES coefficients), never a vector: one small copy and one wait per
 * refinement step or GMRES step. The device buffers live in the context
 * (c->mixed_ws, grow-only) so that repeated solves neither allocate nor
 * free, and the factorization's CUDA graph (lu_graph.c) finds the same
 * pointers again.
 *
 * This file holds lsc_mixed_open, the entry point: it resolves auto's
 * pivoting and factor precision, refuses A, B or X outside this GPU, and
 * carves that workspace (its growth and release are here too). The
 * operations it hands back are in mixed_factor.c (the factorizations) and
 * mixed_refine.c (residuals, correction solves, GMRES vectors and the ops
 * table); mixed_internal.h holds the state the three share. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "algo/mixed.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/mixed/mixed_cuda.h"
#include "cuda/mixed/mixed_internal.h"

/* auto picks FP32 factors at every order by default. Measured on an H100
 * (bench/notes/mixed-cuda.md): our LU is bound by its panel chain, not by
 * the trailing GEMMs, up to n ~ 32768 (FP32 13.4 / 37.0 / 139 ms against
 * FP64 15.2 / 41.4 / 147 ms at n = 4096 / 8192 / 16384), so TF32 GEMMs
 * shorten it little, while TF32 factors need 18-30 GMRES-IR steps where
 * FP32 needs 2-4 IR steps. LS_CUDA_MIXED_TF32_MIN_N=N makes auto pick TF32
 * from order N on (to measure where, if anywhere, it pays). On the H200
 * (bench/results/h200/checks/mixed-factor-choices.txt) TF32 with partial
 * pivoting beat the FP64 butterfly only at cond 1e2 (1.76x cuSOLVER at
 * 32768) and fell back to FP64 at 1e6, 1e10 and on normal matrices
 * (0.40-0.55x): auto cannot see the condition, so it keeps FP64 there. */
/* auto picks the butterfly transform and FP64 factors without interchanges
 * from the tuning row's rbt_min_n (common/tuning.h, with its measurements;
 * LS_CUDA_MIXED_RBT_MIN_N overrides; its documented default is the sm_90
 * row's value). In FP32 or TF32 the same factorization's growth times the
 * roundoff times cond(A) passes 1 from n ~ 8192, and refinement falls
 * back; partial pivoting's panel chain keeps those at ~1x. */

static void ws_host_free(struct lsc_mixed_ws *w)
{
    if (w->host_pinned)
        cudaFreeHost(w->host);
    else
        free(w->host);
    w->host = NULL;
    w->host_bytes = 0;
    w->host_pinned = 0;
}

void lsc_mixed_ws_free(ls_cuda_ctx *c)
{
    struct lsc_mixed_ws *w = c ? c->mixed_ws : NULL;
    if (!w)
        return;
    cudaFree(w->As);
    cudaFree(w->Ad);
    cudaFree(w->vec);
    cudaFree(w->iw);
    ws_host_free(w);
    free(w);
    c->mixed_ws = NULL;
}

/* *p holds at least bytes afterwards (its contents are not kept). */
static int ws_grow(void **p, size_t *have, size_t bytes, char *err, size_t errlen)
{
    if (*p && *have >= bytes)
        return 0;
    cudaFree(*p);
    *p = NULL;
    *have = 0;
    int st = lsc_malloc(p, bytes, 1, err, errlen);
    if (st == 0)
        *have = bytes;
    return st;
}

static int ws_grow_host(struct lsc_mixed_ws *w, size_t bytes, char *err, size_t errlen)
{
    if (w->host && w->host_bytes >= bytes)
        return 0;
    ws_host_free(w);
    if (cudaMallocHost((void **)&w->host, bytes) == cudaSuccess) {
        w->host_pinned = 1;
    } else { /* pageable works too, the copies just wait */
        (void)cudaGetLastError();
        w->host = malloc(bytes);
        if (!w->host)
            return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for the mixed solver");
    }
    w->host_bytes = bytes;
    return 0;
}

/* The FP64 n x n buffer; when the device is full and the low factors are
 * done with (fallback), their buffer is given up first. */
int lsc_mx_ws_grow_ad(cuda_mx *m, int may_drop_low, char *err, size_t errlen)
{
    struct lsc_mixed_ws *w = m->w;
    size_t bytes = (size_t)m->pb.n * (size_t)m->pb.n * sizeof(double);
    int st = ws_grow((void **)&w->Ad, &w->ad_bytes, bytes, err, errlen);
    if (st == LS_EDEVMEM && may_drop_low && w->As) {
        (void)cudaGetLastError();
        cudaFree(w->As);
        w->As = NULL;
        w->as_bytes = 0;
        m->As = NULL;
        st = ws_grow((void **)&w->Ad, &w->ad_bytes, bytes, err, errlen);
    }
    return st;
}

/* The order from which auto picks TF32 (LS_CUDA_MIXED_TF32_MIN_N; 0 and
 * unset: INT_MAX, never). */
static int tf32_min_n(void)
{
    long long v = ls_knob_int(LS_KNOB_CUDA_MIXED_TF32_MIN_N);
    return v > 0 ? (int)v : INT_MAX;
}

/* The order from which auto picks rbt (LS_CUDA_MIXED_RBT_MIN_N where set
 * and accepted, else the tuning row's rbt_min_n; 0: INT_MAX, never). */
static int rbt_min_n(const ls_cuda_ctx *c)
{
    long long v = 0;
    if (ls_knob_read(LS_KNOB_CUDA_MIXED_RBT_MIN_N, &v, NULL) != LS_KNOB_FROM_ENV)
        v = c->tune->rbt_min_n;
    return v > 0 ? (int)v : INT_MAX;
}

/* pivot auto: rbt from rbt_min_n(c), else partial; factor auto: FP64 without
 * interchanges, else FP32, or TF32 from tf32_min_n(); what the device
 * cannot do, by name. */
static int resolve_factor(ls_cuda_ctx *c, ls_mixed_problem *pb, char *err, size_t errlen)
{
    if (pb->pivot == LS_PIVOT_AUTO)
        pb->pivot = pb->n >= rbt_min_n(c) &&
                            (pb->factor == LS_FACTOR_AUTO || pb->factor == LS_FACTOR_FP64)
                        ? LS_PIVOT_RBT
                        : LS_PIVOT_PARTIAL;
    if (pb->pivot != LS_PIVOT_PARTIAL && pb->pivot != LS_PIVOT_RBT && pb->pivot != LS_PIVOT_NONE)
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED, "pivoting %d is unknown", (int)pb->pivot);
    if (pb->factor == LS_FACTOR_AUTO && pb->pivot != LS_PIVOT_PARTIAL)
        pb->factor = LS_FACTOR_FP64;
    if (pb->factor == LS_FACTOR_AUTO)
        pb->factor = pb->n >= tf32_min_n() && c->prop.major >= 8 ? LS_FACTOR_TF32
                                                                 : LS_FACTOR_FP32;
    switch (pb->factor) {
    case LS_FACTOR_FP32:
        return 0;
    case LS_FACTOR_FP64:
        if (pb->pivot != LS_PIVOT_PARTIAL)
            return 0;
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED,
                        "factor precision fp64 is for factors without interchanges (pivot rbt "
                        "or none); with partial pivoting use the FP64 solver (ls_dgesv)");
    case LS_FACTOR_TF32:
    case LS_FACTOR_TF32X3:
    case LS_FACTOR_BF16:
    case LS_FACTOR_FP16: {
        int need = pb->factor == LS_FACTOR_FP16 ? 7 : 8; /* FP16 MMA from Volta, the rest Ampere */
        if (c->prop.major >= need)
            return 0;
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED,
                        "factor precision %s needs tensor cores of compute capability %d.0 or "
                        "newer; %s is %d.%d",
                        ls_factor_name(pb->factor), need, c->name, c->prop.major, c->prop.minor);
    }
    default:
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED, "factor precision %d is unknown",
                        (int)pb->factor);
    }
}

/* -arg unless p is device memory of this context's GPU (managed counts): a
 * kernel reading host memory would fault and leave the CUDA context
 * unusable for every later call. */
static int need_device(const ls_cuda_ctx *c, const void *p, int arg, const char *name,
                       char *err, size_t errlen)
{
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        a.type = cudaMemoryTypeHost;
    }
    if (a.type == cudaMemoryTypeManaged || (a.type == cudaMemoryTypeDevice && a.device == c->device))
        return 0;
    return LSC_FAIL(err, errlen, -arg, "argument %d (%s) is %s, not device memory of %s", arg,
                    name, a.type == cudaMemoryTypeDevice ? "memory of another GPU" : "host memory",
                    c->name);
}

/* Carve the context's buffers for this problem, growing them as needed. */
static int carve(cuda_mx *m, size_t as_bytes, char *err, size_t errlen)
{
    int st = 0, n = m->pb.n, nrhs = m->pb.nrhs, m1 = m->pb.restart + 1;
    struct lsc_mixed_ws *w = m->w;
    size_t nv = 0, nt = ((size_t)n * (size_t)nrhs + 1) / 2; /* T's floats, in doubles */
    /* R, V, T, scales, gh, gy, the norms' bits, the two equilibration vectors */
    LSC_TRY(lsc_need_add(&nv, (size_t)n * (size_t)nrhs, sizeof(double), err, errlen));
    LSC_TRY(lsc_need_add(&nv, (size_t)n * (size_t)m1, sizeof(double), err, errlen));
    LSC_TRY(lsc_need_add(&nv, nt, sizeof(double), err, errlen));
    LSC_TRY(lsc_need_add(&nv, (size_t)nrhs + 3 * (size_t)m1 + 3 + 6 * (size_t)n, sizeof(double),
                         err, errlen));
    st = ws_grow((void **)&w->As, &w->as_bytes, as_bytes, err, errlen);
    if (st == LS_EDEVMEM && w->Ad) { /* the FP64 buffer is made again when needed */
        (void)cudaGetLastError();
        cudaFree(w->Ad);
        w->Ad = NULL;
        w->ad_bytes = 0;
        st = ws_grow((void **)&w->As, &w->as_bytes, as_bytes, err, errlen);
    }
    if (st)
        goto done;
    LSC_TRY(ws_grow((void **)&w->vec, &w->vec_bytes, nv, err, errlen));
    LSC_TRY(ws_grow((void **)&w->iw, &w->iw_bytes, (2 * (size_t)n + 4) * sizeof(int), err,
                    errlen));
    LSC_TRY(ws_grow_host(w, (4 + 3 * (size_t)m1 + 1) * sizeof(double), err, errlen));
    m->As = w->As;
    m->R = w->vec;
    m->V = m->R + (size_t)n * nrhs;
    m->T = (float *)(m->V + (size_t)n * m1);
    m->scal = (double *)m->T + nt;
    m->gh = m->scal + nrhs;
    m->gy = m->gh + 2 * (size_t)m1 + 1;
    m->bits = (unsigned long long *)(m->gy + m1);
    if (m->pb.factor == LS_FACTOR_FP16 || m->pb.factor == LS_FACTOR_BF16) {
        m->eq_r = (double *)(m->bits + 2);
        m->eq_c = m->eq_r + n;
    }
    if (m->pb.pivot == LS_PIVOT_RBT)
        m->rbt_m = (double *)(m->bits + 2) + 2 * (size_t)n;
    m->nopiv = m->pb.pivot != LS_PIVOT_PARTIAL;
    m->ipiv_s = w->iw;
    m->ipiv_d = m->ipiv_s + n;
    m->info = m->ipiv_d + n;
    m->flag = m->info + 1;
    m->mm = (unsigned *)(m->flag + 1);
    m->h_bits = (unsigned long long *)w->host;
    m->h_int = (int *)(w->host + 2);
    m->h_h = w->host + 4;
    m->h_y = m->h_h + 2 * (size_t)m1 + 1;
done:
    return st;
}

int lsc_mixed_open(void *bctx, ls_mixed_problem *pb, const ls_mixed_ops **ops, void **ws,
                   char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, n = pb->n;
    size_t as_bytes = 0, ad_bytes = 0;
    cuda_mx *m = NULL;
    *ops = NULL;
    *ws = NULL;
    LSC_CUDA(cudaSetDevice(c->device));
    LSC_TRY(need_device(c, pb->A, 3, "A", err, errlen));
    LSC_TRY(need_device(c, pb->B, 6, "B", err, errlen));
    LSC_TRY(need_device(c, pb->X, 8, "X", err, errlen));
    int auto_pick = pb->factor == LS_FACTOR_AUTO;
    LSC_TRY(resolve_factor(c, pb, err, errlen));
    LSC_TRY(lsc_need_add(&as_bytes, pb->factor == LS_FACTOR_FP64 ? 1 : (size_t)n * (size_t)n,
                         sizeof(float), err, errlen));
    LSC_TRY(lsc_need_add(&ad_bytes, (size_t)n * (size_t)n, sizeof(double), err, errlen));
    if (!c->mixed_ws && !(c->mixed_ws = calloc(1, sizeof *c->mixed_ws)))
        return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for the mixed solver");
    m = calloc(1, sizeof *m);
    if (!m)
        return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for the mixed solver");
    m->c = c;
    m->w = c->mixed_ws;
    m->pb = *pb;
    m->auto_pick = auto_pick;
    LSC_TRY(carve(m, as_bytes, err, errlen));
    *ops = &lsc_mx_cuda_ops;
    *ws = m;
    return 0;
done:
    free(m);
    return st;
}
