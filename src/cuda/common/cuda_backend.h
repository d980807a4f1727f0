/*
 * Private host-side declarations of the CUDA backend plugin: the backend
 * context, the error helpers (every CUDA/cuBLAS call is checked and turned
 * into a status with file:line) and the per-method solvers.
 */
#ifndef LS_CUDA_BACKEND_H
#define LS_CUDA_BACKEND_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "cuda/common/tuning.h"
#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { LSC_EV_START, LSC_EV_H2D, LSC_EV_FACTOR, LSC_EV_SOLVE, LSC_EV_D2H, LSC_EV_COUNT };

typedef struct ls_cuda_ctx {
    const ls_core_services *core; /* lent by the core at open (names, method table) */
    int device;
    struct cudaDeviceProp prop;
    const lsc_tuning *tune;  /* the crossovers of prop's architecture (tuning.c), set at open */
    cudaStream_t stream;     /* where all work goes: own_stream or the caller's */
    cudaStream_t own_stream; /* created with the context, destroyed with it */
    cublasHandle_t blas;     /* bound to stream */
    cudaEvent_t ev[LSC_EV_COUNT];
    char name[160];
    void *lu_ws; /* the lu leaf's workspace, kept between solves (grow-only) */
    size_t lu_ws_bytes;
    signed char lu_cluster[2]; /* cluster leaf usable, per [double, single]: 0 unknown, 1 yes, -1 no */
    signed char lu_push[2];    /* push leaf's cluster size, per [double, single]: 0 unknown, -1 none */
    signed char lu_small[2];   /* small-n LU's largest cluster (lu_small.c), as lu_push */
    struct lsc_lookahead *la;  /* the look-ahead LU's panel stream and solver (lazy) */
    struct lsc_graphs *graphs; /* repeated getrf / getrs as CUDA graphs (lu_graph.c; lazy) */
    unsigned ws_gen;           /* bumped whenever a workspace a graph may hold moves */
    void *gesv_ws;             /* the host-array gesv's device copy of A, B, ipiv, info */
    size_t gesv_ws_bytes;      /* (kept up to LSC_GESV_KEEP bytes between calls) */
    struct lsc_stage *stage;   /* pinned staging for host-array copies (host_stage.c; lazy) */
    struct lsc_mixed_ws *mixed_ws; /* ls_dsgesv's device buffers, kept between solves (mixed_cuda.c; lazy) */
    cudaMemPool_t tmp_pool;    /* lsc_tmp_alloc's stream-ordered pool, which keeps its memory (lazy) */
    signed char pooled;        /* stream-ordered allocation: 0 unknown, 1 yes, -1 no */
} ls_cuda_ctx;

/* "file:line: text" into err; returns status. */
int lsc_fail_at(char *err, size_t errlen, int status, const char *file, int line, const char *fmt,
                ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
#define LSC_FAIL(err, errlen, status, ...) \
    lsc_fail_at((err), (errlen), (status), __FILE__, __LINE__, __VA_ARGS__)

/* A CUDA error as a status: allocation failures are LS_EDEVMEM, the rest LS_EDEVICE. */
int lsc_cuda_fail_at(cudaError_t e, const char *what, char *err, size_t errlen, const char *file,
                     int line);
int lsc_blas_fail_at(cublasStatus_t e, const char *what, char *err, size_t errlen,
                     const char *file, int line);

/* Test hooks LS_FAULT_DEVICE / LS_FAULT_CUDA (cuda_fault.c): lsc_fault_mode
 * is 0 when they are off; lsc_fault_call says whether this call fails
 * (cudaSuccess: make it), lsc_fault_note what to add to its message. */
extern int lsc_fault_mode;
cudaError_t lsc_fault_call(const char *what);
const char *lsc_fault_note(void);
#define LSC_FAULT(what)                                                                  \
    (__builtin_expect(__atomic_load_n(&lsc_fault_mode, __ATOMIC_RELAXED) != 0, 0)      \
         ? lsc_fault_call(what)                                                        \
         : cudaSuccess)

/* Inside a function with `int st`, `char *err`, `size_t errlen` and a
 * `done:` cleanup label. */
#define LSC_CUDA(call)                                                              \
    do {                                                                           \
        cudaError_t lsc_e_ = LSC_FAULT(#call);                                     \
        if (lsc_e_ == cudaSuccess)                                                 \
            lsc_e_ = (call);                                                       \
        if (lsc_e_ != cudaSuccess) {                                               \
            st = lsc_cuda_fail_at(lsc_e_, #call, err, errlen, __FILE__, __LINE__); \
            goto done;                                                             \
        }                                                                          \
    } while (0)
#define LSC_BLAS(call)                                                              \
    do {                                                                           \
        cublasStatus_t lsc_b_ = (call);                                            \
        if (lsc_b_ != CUBLAS_STATUS_SUCCESS) {                                     \
            st = lsc_blas_fail_at(lsc_b_, #call, err, errlen, __FILE__, __LINE__); \
            goto done;                                                             \
        }                                                                          \
    } while (0)
/* A cuSOLVER call's status (for files that include cusolverDn.h). */
#define LSC_SOLVER(call)                                                                   \
    do {                                                                                  \
        cusolverStatus_t lsc_s_ = (call);                                                 \
        if (lsc_s_ != CUSOLVER_STATUS_SUCCESS) {                                          \
            st = LSC_FAIL(err, errlen, LS_EDEVICE, "%s failed: cusolver status %d", #call, \
                          (int)lsc_s_);                                                   \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)
#define LSC_TRY(expr)          \
    do {                       \
        st = (expr);           \
        if (st != 0)           \
            goto done;         \
    } while (0)

/* cudaMalloc of count elements of elem bytes, overflow-checked; on failure
 * LS_EDEVMEM "out of device memory: asked for N bytes (free F of T)". */
int lsc_malloc(void **ptr, size_t count, size_t elem, char *err, size_t errlen);
/* Temporaries of one call, stream-ordered where the device has memory pools
 * (cudaFree would wait for every stream of the device, the caller's too),
 * plain cudaMalloc / cudaFree elsewhere (device_api.c). */
int lsc_tmp_alloc(ls_cuda_ctx *c, void **p, size_t bytes, char *err, size_t errlen);
void lsc_tmp_free(ls_cuda_ctx *c, void *p);
/* The median of v[0 .. n) (sorted in place; cuda_util.c). */
double lsc_median(double *v, int n);
/* Seconds between two recorded events (0 if either failed). */
double lsc_elapsed(cudaEvent_t a, cudaEvent_t b);
size_t lsc_elem_size(ls_precision p);

/* The method solvers: all return a status, fill rep's timings and X in job->B. */
int lsc_solve_seed(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err, size_t errlen);
int lsc_solve_lu(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err, size_t errlen);
int lsc_solve_bicgstab(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err,
                       size_t errlen);
/* The typed drivers come as _d and _s (typed.h), each from one source. */
/* getrf on device memory: dA (m x n, ld lda), d_ipiv (min(m,n), 1-based), d_info. */
#define LSC_GETRF_DEVICE_SIG(T, S)                                                      \
    int lsc_getrf_device_##S(ls_cuda_ctx *c, int m, int n, T *dA, int lda, int *d_ipiv, \
                             int *d_info, char *err, size_t errlen)
LSK_DECLARE(LSC_GETRF_DEVICE_SIG); /* lsc_getrf_device_d, lsc_getrf_device_s */
/* The lu leaves' workspace for m rows, kept in the context (getrf.c). */
#define LSC_LU_WORKSPACE_SIG(T, S)                                                     \
    int lsc_lu_workspace_##S(ls_cuda_ctx *c, int m, void **ws, int **pairs, char *err, \
                             size_t errlen)
LSK_DECLARE(LSC_LU_WORKSPACE_SIG); /* lsc_lu_workspace_d, lsc_lu_workspace_s */
/* Which leaf kernels lu runs at size n, for reports. */
#define LSC_LU_LEAF_KIND_SIG(T, S) const char *lsc_lu_leaf_kind_##S(ls_cuda_ctx *c, int n)
LSK_DECLARE(LSC_LU_LEAF_KIND_SIG); /* lsc_lu_leaf_kind_d, lsc_lu_leaf_kind_s */
/* getrs on device memory (getrs.c): op(A) X = B with the factors and the
 * 1-based device pivots of lsc_getrf_device; trans 'N', 'T' or 'C'. Runs on
 * c->stream with no host synchronisation. */
#define LSC_GETRS_DEVICE_SIG(T, S)                                                             \
    int lsc_getrs_device_##S(ls_cuda_ctx *c, char trans, int n, int nrhs, const T *dA, int lda, \
                             const int *d_ipiv, T *dB, int ldb, char *err, size_t errlen)
LSK_DECLARE(LSC_GETRS_DEVICE_SIG); /* lsc_getrs_device_d, lsc_getrs_device_s */
/* The two above behind one ls_precision switch, on device bytes (the
 * entry points that take ls_precision). */
int lsc_getrf_device(ls_cuda_ctx *c, ls_precision p, int m, int n, void *dA, int lda,
                     int *d_ipiv, int *d_info, char *err, size_t errlen);
int lsc_getrs_device(ls_cuda_ctx *c, ls_precision p, char trans, int n, int nrhs,
                     const void *dA, int lda, const int *d_ipiv, void *dB, int ldb, char *err,
                     size_t errlen);
/* The whole solve in one launch where a kernel takes it (getrs.c): the
 * batched kernels as a stack of one up to the tuning row's
 * lu_batch1_max_n_d/_s, else the small-n LU where it plans (*fused = 1);
 * *fused = 0: nothing queued. */
int lsc_gesv_fused(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                   int *d_ipiv, int *d_info, void *dB, int ldb, int *fused, char *err,
                   size_t errlen);
/* gesv on device memory (getrs.c), as every front end's solve runs it:
 * lsc_gesv_fused where it takes the system, else getrf with getrs queued
 * behind it. No host synchronisation; info stays in d_info. After a zero
 * pivot B is left as it was (fused) or undefined. */
int lsc_gesv_device(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                    int *d_ipiv, int *d_info, void *dB, int ldb, int *fused, char *err,
                    size_t errlen);
/* The backend's getrs slot (getrs.c): host arrays in and out, the solve on
 * the device; trans 'N' or 'T'. */
int lsc_getrs_host(void *bctx, ls_precision p, char trans, int n, int nrhs, const void *A, int lda,
                   const int *ipiv, void *B, int ldb, char *err, size_t errlen);
/* need += count * elem bytes; LS_ESIZE when it overflows size_t. */
int lsc_need_add(size_t *need, size_t count, size_t elem, char *err, size_t errlen);
/* LS_EDEVMEM "<what> needs N bytes of device memory; F are free (of T)"
 * when need exceeds what cudaMemGetInfo finds free: checked before a host-
 * array path allocates, so that it fails with the numbers (device_api.c). */
int lsc_mem_check(size_t need, const char *what, char *err, size_t errlen);
/* The device-resident slots of the backend table (device_api.c). */
int lsc_set_stream(void *bctx, void *stream, char *err, size_t errlen);
void *lsc_get_stream(void *bctx);
int lsc_dev_malloc(void *bctx, void **ptr, size_t bytes, char *err, size_t errlen);
int lsc_dev_free(void *bctx, void *ptr, char *err, size_t errlen);
int lsc_dev_copy(void *bctx, void *dst, const void *src, size_t bytes, char *err, size_t errlen);
int lsc_dev_sync(void *bctx, char *err, size_t errlen);
int lsc_getrf_gpu(void *bctx, ls_precision p, int m, int n, void *dA, int ldda, int *ipiv,
                  int *info, char *err, size_t errlen);
int lsc_getrs_gpu(void *bctx, ls_precision p, char trans, int n, int nrhs, const void *dA,
                  int ldda, const int *ipiv, void *dB, int lddb, int *info, char *err,
                  size_t errlen);
int lsc_gesv_gpu(void *bctx, ls_precision p, int n, int nrhs, void *dA, int ldda, int *ipiv,
                 void *dB, int lddb, int *info, char *err, size_t errlen);
/* getrf with a look-ahead panel on a second stream (getrf_lookahead.c), for
 * large matrices; same contract as lsc_getrf_device. */
#define LSC_GETRF_LOOKAHEAD_SIG(T, S)                                                      \
    int lsc_getrf_lookahead_##S(ls_cuda_ctx *c, int m, int n, T *dA, int lda, int *d_ipiv, \
                                int *d_info, char *err, size_t errlen)
LSK_DECLARE(LSC_GETRF_LOOKAHEAD_SIG); /* lsc_getrf_lookahead_d, lsc_getrf_lookahead_s */
int lsc_lookahead_nb(int n);
/* Whether the look-ahead driver factors a panel of m rows with our own
 * recursive one-SM-leaf LU (else cuSOLVER's getrf; LS_CUDA_LU_PANEL=cusolver
 * forces that). */
#define LSC_LOOKAHEAD_PANEL_OURS_SIG(T, S) int lsc_lookahead_panel_ours_##S(ls_cuda_ctx *c, int m)
LSK_DECLARE(LSC_LOOKAHEAD_PANEL_OURS_SIG); /* lsc_lookahead_panel_ours_d,
                                              lsc_lookahead_panel_ours_s */
/* The recursive LU of an m x n panel with one-SM leaves, on the given stream
 * and cuBLAS handle (bound to it); ipiv relative to the panel, info set only
 * where it is 0. LS_EUNAVAIL when the leaf cannot take m rows. */
#define LSC_GETRF_PANEL_SIG(T, S)                                                        \
    int lsc_getrf_panel_##S(ls_cuda_ctx *c, int m, int n, T *dA, int lda, int *d_ipiv,     \
                            int *d_info, cublasHandle_t blas, cudaStream_t stream, char *err, \
                            size_t errlen)
LSK_DECLARE(LSC_GETRF_PANEL_SIG); /* lsc_getrf_panel_d, lsc_getrf_panel_s */
/* Run fn (which queues work on c->stream) directly the first time key is
 * seen, captured as a CUDA graph the second time, as that graph after that
 * (lu_graph.c); always directly where order exceeds the tuning row's
 * graph_max_n. key: every pointer, shape and mode the work depends on. */
#define LSC_GRAPH_KEY 12
typedef int (*lsc_enqueue_fn)(void *arg, char *err, size_t errlen);
int lsc_graph_run(ls_cuda_ctx *c, int order, const uintptr_t key[LSC_GRAPH_KEY],
                  lsc_enqueue_fn fn, void *arg, char *err, size_t errlen);
void lsc_graphs_free(ls_cuda_ctx *c);
/* Column-major blocks (cols columns of width bytes, leading dimensions in
 * bytes) between host and device through pinned staging, on c->stream; d2h
 * returns when the host copy is complete (host_stage.c). */
int lsc_stage_h2d(ls_cuda_ctx *c, void *dst, size_t ldd, const void *src, size_t lds,
                  size_t width, size_t cols, char *err, size_t errlen);
int lsc_stage_d2h(ls_cuda_ctx *c, void *dst, size_t ldd, const void *src, size_t lds,
                  size_t width, size_t cols, char *err, size_t errlen);
void lsc_stage_free(ls_cuda_ctx *c);
/* A blocked LU's triangular solve on handle h: side 'L', B (m x n) =
 * T^-1 B with T m x m unit lower; side 'R', B = B T^-1 with T n x n upper
 * (non-unit). tb > 0 and below the triangle's order: in diagonal blocks of
 * tb, each followed by a GEMM update of the rest; else one cuBLAS trsm
 * (trsm_blocked.c). */
int lsc_trsm_lu_d(cublasHandle_t h, char side, int m, int n, const double *T, int ldt, double *B,
                  int ldb, int tb, char *err, size_t errlen);
int lsc_trsm_lu_s(cublasHandle_t h, char side, int m, int n, const float *T, int ldt, float *B,
                  int ldb, int tb, char *err, size_t errlen);
/* Releases the look-ahead state (backend destroy). */
void lsc_lookahead_free(ls_cuda_ctx *c);
/* The look-ahead LU's panel stream (high priority) and the cuBLAS handle
 * bound to it, opened on first use; the no-pivoting LU's look-ahead
 * (mixed/genp_impl.h) factors its panels there too. */
int lsc_lookahead_side(ls_cuda_ctx *c, cudaStream_t *stream, cublasHandle_t *blas, char *err,
                       size_t errlen);
/* The backend's getrf slot: host arrays. */
/* The backend's gesv slot: host arrays, one upload of A and B (getrs.c). */
int lsc_gesv_host(void *bctx, ls_precision p, int n, int nrhs, void *A, int lda, int *ipiv,
                  void *B, int ldb, char *err, size_t errlen);
int lsc_getrf_host(void *bctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv,
                   int *info, char *err, size_t errlen);

/**
 * Plugin entry point (exported; the core finds it with dlsym, see
 * core/backend.h): opens a backend context on one CUDA device.
 * @param[in]  core    the core's services, kept in the context
 * @param[in]  device  CUDA device index
 * @param[out] iface   the backend table ("cuda")
 * @param[out] bctx    the new context (stream, cuBLAS handle, events)
 * @param[out] err     why it failed, with file:line
 * @param[in]  errlen  size of err
 * @return 0; LS_EUNAVAIL "no CUDA device: ..." without a usable device or
 *         driver; LS_ENOMEM; LS_EDEVICE / LS_EDEVMEM from the CUDA calls
 */
LS_API int ls_plugin_open(const ls_core_services *core, int device,
                          const ls_backend_iface **iface, void **bctx, char *err, size_t errlen);
/**
 * Lists the driver/runtime versions and every CUDA device with its
 * properties, without opening a context.
 * @param[in] core the core's services (unused: nothing here needs them)
 * @param[in] out  a FILE* to write to
 * @return 0 (no device is not an error here: it is printed)
 */
LS_API int ls_plugin_print_info(const ls_core_services *core, FILE *out);
/** LS_PLUGIN_ABI as this plugin was built; the core reads it first. */
LS_API int ls_plugin_abi(void);

/**
 * Tiled GEMM of Panchatcharam et al. (2013), figure 2: C = A B with p x p shared-memory tiles,
 * any m, n, k. Column-major device arrays; launched on `stream`, not synced.
 * @param[in]  prec   LS_DOUBLE or LS_SINGLE
 * @param[in]  tile   p in {8, 16, 32}
 * @param[in]  m,n,k  C is m x n, the inner dimension is k
 * @param[in]  dA     m x k, leading dimension lda >= max(1, m)
 * @param[in]  dB     k x n, leading dimension ldb >= max(1, k)
 * @param[out] dC     m x n, leading dimension ldc >= max(1, m)
 * @param[in]  stream CUDA stream (0: the default stream)
 * @return 0; LS_EINVAL for a bad size or tile; LS_EDEVICE if the launch fails
 */
LS_API int ls_cuda_gemm_tiled(int prec, int tile, int m, int n, int k, const void *dA, int lda,
                       const void *dB, int ldb, void *dC, int ldc, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
