/**
 * @file linsolve.h
 * @brief liblinsolve: dense linear systems AX = B on CPUs, CUDA GPUs and
 *        OpenCL devices, with LAPACK semantics and honest measurements.
 *
 * Conventions (LAPACK / MAGMA):
 *  - matrices are column-major with an explicit leading dimension;
 *  - ipiv is 1-based, as LAPACK's getrf returns it;
 *  - every function returns an int status: 0 success; -i argument i was
 *    illegal (LAPACK numbering, the trailing context argument not counted);
 *    other negative values are library/device failures (LS_E*);
 *    positive values are numerical outcomes (a zero pivot's 1-based column,
 *    or LS_NOT_CONVERGED / LS_BREAKDOWN / LS_INACCURATE from ls_solve).
 *  - the caller owns what it allocated; the library frees what it allocated.
 */
#ifndef LINSOLVE_H
#define LINSOLVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LS_VERSION_MAJOR 0
#define LS_VERSION_MINOR 1
#define LS_VERSION_PATCH 0

#if defined(_WIN32)
#define LS_API __declspec(dllexport)
#elif defined(__GNUC__)
#define LS_API __attribute__((visibility("default")))
#else
#define LS_API
#endif

/* ------------------------------------------------------------------------
 * Status codes: one table generates the enum, the names and ls_strerror().
 * Library failures live far below LAPACK's -i argument codes.
 * ---------------------------------------------------------------------- */
#define LS_STATUS_MAP(X)                                                     \
    X(OK, 0, "success")                                                      \
    X(NOT_CONVERGED, 1000001, "iterative method did not converge")          \
    X(BREAKDOWN, 1000002, "iterative method broke down")                    \
    X(INACCURATE, 1000003, "solution failed the scaled-residual check")     \
    X(ENOMEM, -1001, "out of host memory")                                   \
    X(EDEVMEM, -1002, "out of device memory")                                \
    X(EUNAVAIL, -1003, "backend or device unavailable")                      \
    X(EDEVICE, -1004, "device, driver or kernel failure")                    \
    X(EINVAL, -1005, "invalid argument")                                     \
    X(EIO, -1006, "cannot open, read or write file")                         \
    X(EFORMAT, -1007, "malformed input file")                                \
    X(EUNSUPPORTED, -1008, "unsupported input or option")                    \
    X(ENONFINITE, -1009, "non-finite value in input")                        \
    X(ESIZE, -1010, "dimensions do not match or are too large")              \
    X(ELIMIT, -1011, "problem exceeds a limit of this method or device")     \
    X(EINTERNAL, -1012, "internal error")

typedef enum ls_status {
#define LS_STATUS_ENUM_(name, code, text) LS_##name = code,
    LS_STATUS_MAP(LS_STATUS_ENUM_)
#undef LS_STATUS_ENUM_
} ls_status;

/** Text for any status, including LAPACK's -i and positive pivot codes. */
LS_API const char *ls_strerror(int status);
/** Symbolic name ("LS_EIO", "LS_SINGULAR", "LS_ILLEGAL_ARG", ...). */
LS_API const char *ls_status_name(int status);

/* ------------------------------------------------------------------------
 * Enumerations with string names (parse / name round-trip).
 * ---------------------------------------------------------------------- */
typedef enum ls_backend_kind {
    LS_BACKEND_AUTO = 0,
    LS_BACKEND_CPU,
    LS_BACKEND_CUDA,
    LS_BACKEND_OPENCL,
    LS_BACKEND_COUNT_
} ls_backend_kind;

typedef enum ls_precision { LS_DOUBLE = 0, LS_SINGLE = 1 } ls_precision;

/** Row interchanges. The direct methods take PARTIAL or NONE (a study mode);
 * the mixed solver (ls_mixed_opts) takes all four. */
typedef enum ls_pivot {
    LS_PIVOT_PARTIAL = 0, /**< LU with partial pivoting */
    LS_PIVOT_NONE = 1,    /**< no interchanges at all */
    LS_PIVOT_RBT = 2,     /**< mixed: A' = U^T A V with U, V random butterflies of depth 2,
                               then LU of A' without interchanges (no pivot search: the
                               factorization is tensor-core GEMMs); refined against A in
                               FP64, a failed refinement falls back as ever; ipiv comes back
                               as the identity */
    LS_PIVOT_AUTO = 3,    /**< mixed: the backend picks (CPU: partial; CUDA: rbt with fp64
                               factors from n = 1024, or the order in LS_CUDA_MIXED_RBT_MIN_N,
                               when the factor is auto or fp64; else partial) */
    LS_PIVOT_COUNT_
} ls_pivot;

/* name, description (GVL: Golub & Van Loan, Matrix Computations, 4th ed.;
 * Higham: Accuracy and Stability of Numerical Algorithms, 2nd ed.). Order is
 * ABI. Each method's facts are its row in src/core/methods/methods.c. The GPU
 * variants follow published descriptions (full citations in
 * docs/references.md): ge-naive, ge-blocked, ge-coalesced: C. Li, "Gaussian
 * Elimination on GPU, with Naive and Optimization Approaches" (VUB, 2025);
 * lu-seed: P. Pattam, "CUDA LU Factorization Solver"; gj1, gj2 on the GPUs:
 * the two models of E. Quispe Ccapacca, "Paralelizacion sobre GPU del
 * Algoritmo de Eliminacion de Gauss-Jordan"; ge-local, ge-image, ge-buffer:
 * TendTo, "Linear-System-Solver" (OpenCL Gaussian elimination); bicgstab on
 * CUDA: M. Panchatcharam, S. Sundar, A. Klar, "GPU metrics for a linear
 * solver" (2013), Algorithm 2. */
#define LS_METHOD_MAP(X)                                                                    \
    X(AUTO, "auto", "best available method for the backend")                                \
    X(GE, "ge", "Gaussian elimination, partial pivoting, back substitution (GVL 3.4.1)")    \
    X(LU, "lu", "blocked right-looking LU with partial pivoting (LAPACK getrf + getrs)")     \
    X(GJ1, "gj1", "Gauss-Jordan: forward, then backward elimination (Higham 14.4)")          \
    X(GJ2, "gj2", "Gauss-Jordan: one pass above and below each pivot (Higham 14.4)")         \
    X(BICGSTAB, "bicgstab", "BiCGStab iterative solver (van der Vorst 1992)")               \
    X(LAPACK, "lapack", "LAPACK dgesv/sgesv through LAPACKE/OpenBLAS")                      \
    X(GE_NAIVE, "ge-naive", "GE, one thread per row, one launch per pivot")                \
    X(GE_BLOCKED, "ge-blocked", "GE, pivot row cached in shared/local memory")             \
    X(GE_COALESCED, "ge-coalesced", "GE, one thread per matrix element")                   \
    X(LU_SEED, "lu-seed", "unblocked LU (LAPACK getf2): pivot/swap/scale/update kernels")  \
    X(GE_LOCAL, "ge-local", "OpenCL: GE on the whole [A | B] in local memory")             \
    X(GE_IMAGE, "ge-image", "OpenCL: GE ping-ponging between two images, float only")      \
    X(GE_BUFFER, "ge-buffer", "OpenCL: GE ping-ponging between two buffers")

typedef enum ls_method {
#define LS_METHOD_ENUM_(id, name, desc) LS_METHOD_##id,
    LS_METHOD_MAP(LS_METHOD_ENUM_)
#undef LS_METHOD_ENUM_
    LS_METHOD_COUNT_
} ls_method;

LS_API const char *ls_method_name(ls_method m);
LS_API const char *ls_method_description(ls_method m);
/** @return 0 and sets *out, or LS_EINVAL for an unknown name. */
LS_API int ls_method_parse(const char *name, ls_method *out);
LS_API const char *ls_backend_name(ls_backend_kind b);
LS_API int ls_backend_parse(const char *name, ls_backend_kind *out);
/**
 * Describe the LAPACK that the CPU `lapack` method calls: the shared object
 * that provides dgetrf_ in this process and, when it is OpenBLAS, its build
 * configuration and threading. @return 0, or LS_EUNAVAIL (buf says why).
 */
LS_API int ls_lapack_library(char *buf, size_t len);
LS_API const char *ls_precision_name(ls_precision p);
LS_API int ls_precision_parse(const char *name, ls_precision *out);

/* ------------------------------------------------------------------------
 * Context: owns the backend choice and device. No global mutable state.
 * ---------------------------------------------------------------------- */
typedef struct ls_context ls_context;

/**
 * @param[out] ctx     new context (NULL on failure)
 * @param[in]  backend LS_BACKEND_AUTO tries CUDA, then OpenCL GPUs, then CPU
 *                     and never fails for lack of a GPU
 * @param[in]  device  device index within the backend (0 = first); -1 = the
 *                     backend's default (OpenCL: first GPU, else first device)
 * @return 0, LS_EUNAVAIL, LS_EUNSUPPORTED, LS_ENOMEM. On any failure but
 *         LS_ENOMEM, *ctx still holds an unusable context whose
 *         ls_context_error() says why; destroy it with ls_context_destroy().
 */
LS_API int ls_context_create(ls_context **ctx, ls_backend_kind backend, int device);
LS_API void ls_context_destroy(ls_context *ctx);
/** The backend actually in use (never AUTO). */
LS_API ls_backend_kind ls_context_backend(const ls_context *ctx);
/** One line: "cuda:0 NVIDIA H100 80GB HBM3 (132 SMs, cc 9.0)". */
LS_API const char *ls_context_device_name(const ls_context *ctx);
/** Why AUTO picked what it picked, e.g. "no CUDA device: using cpu". */
LS_API const char *ls_context_note(const ls_context *ctx);
/** Last error detail with file:line where known ("" if none). */
LS_API const char *ls_context_error(const ls_context *ctx);
/** Is method m available in precision p on this context's backend? 0 if yes. */
LS_API int ls_context_supports(ls_context *ctx, ls_method m, ls_precision p);
/** Write a description of all backends, platforms and devices to a FILE*. */
LS_API int ls_print_info(void *file);

/* ------------------------------------------------------------------------
 * LAPACK-shaped drivers. ctx may be NULL: the CPU reference is used.
 * Argument numbering for info = -i follows LAPACK (ctx is not counted).
 * ---------------------------------------------------------------------- */
/** LU with partial pivoting of the n x n matrix A: A = P L U. */
LS_API int ls_dgetrf(int m, int n, double *A, int lda, int *ipiv, int *info, ls_context *ctx);
LS_API int ls_sgetrf(int m, int n, float *A, int lda, int *ipiv, int *info, ls_context *ctx);
/** Solve op(A) X = B with the factors of getrf; trans = 'N' or 'T'. On a
 *  CUDA context the solve runs on the GPU (A, ipiv and B copied over and
 *  X back); elsewhere on the CPU. */
LS_API int ls_dgetrs(char trans, int n, int nrhs, const double *A, int lda, const int *ipiv,
                     double *B, int ldb, int *info, ls_context *ctx);
LS_API int ls_sgetrs(char trans, int n, int nrhs, const float *A, int lda, const int *ipiv,
                     float *B, int ldb, int *info, ls_context *ctx);
/** getrf + getrs: A is overwritten by its factors, B by X. */
LS_API int ls_dgesv(int n, int nrhs, double *A, int lda, int *ipiv, double *B, int ldb, int *info,
                    ls_context *ctx);
LS_API int ls_sgesv(int n, int nrhs, float *A, int lda, int *ipiv, float *B, int ldb, int *info,
                    ls_context *ctx);

/* ------------------------------------------------------------------------
 * Device-resident API (MAGMA's _gpu convention): the matrices live in the
 * caller's device memory and the work is queued on the context's stream.
 * CUDA only: with ctx NULL or a CPU context these return LS_EUNAVAIL (the
 * message, "the device API needs the CUDA backend ...", is in
 * ls_context_error when ctx is not NULL); on OpenCL, LS_EUNSUPPORTED.
 *
 * ipiv and info may each be host or device memory (told apart with the
 * CUDA runtime). When both are device memory the call is asynchronous:
 * it returns 0 at once, pivots and info are written on the device when the
 * stream gets there, and nothing waits for the device. Host memory (or info
 * NULL) makes the call wait for the stream and copy them back; it then
 * returns info as LAPACK does. Argument errors return -i (LAPACK numbering,
 * ctx not counted), set info to -i wherever it lives, and say why in
 * ls_context_error. A routine's first call at a new largest size may grow
 * the context's device workspace, and that allocation may synchronise the
 * device; later calls allocate nothing. getrf and getrs called again with
 * the same pointers, sizes and stream run as a CUDA graph captured on the
 * second such call (one launch instead of hundreds; LS_CUDA_GRAPH=0 turns
 * this off); a stream the caller is capturing gets the kernels instead.
 *
 * The context's own stream is a blocking one: it waits for work the caller
 * queued on CUDA's legacy default stream (a plain cudaMemcpy or kernel
 * launch), as MAGMA's and cuSOLVER's users expect. A caller on its own
 * non-blocking stream passes it to ls_context_set_stream.
 * ---------------------------------------------------------------------- */
/**
 * Queue the context's work on a stream of the caller's.
 * @param[in,out] ctx    a CUDA context
 * @param[in]     stream a cudaStream_t of the context's device, as void *;
 *                       NULL restores the context's own stream. The caller
 *                       keeps it alive while the context uses it.
 * @return 0; LS_EINVAL for a handle that is not a CUDA stream;
 *         LS_EUNAVAIL / LS_EUNSUPPORTED without CUDA
 */
LS_API int ls_context_set_stream(ls_context *ctx, void *stream);
/** The cudaStream_t (as void *) the context's work goes to: the caller's
 *  from ls_context_set_stream, else the context's own; NULL without CUDA. */
LS_API void *ls_context_get_stream(const ls_context *ctx);
/**
 * Device memory on the context's device (cudaMalloc).
 * @param[out] ptr   the allocation; NULL for bytes == 0 or on failure
 * @param[in]  bytes size
 * @return 0; LS_EDEVMEM with the bytes asked for and free in the message;
 *         LS_EINVAL for ptr NULL
 */
LS_API int ls_device_malloc(ls_context *ctx, void **ptr, size_t bytes);
/** Free what ls_device_malloc returned (NULL: nothing). May synchronise
 *  the device, as cudaFree does. @return 0, LS_EINVAL for host memory */
LS_API int ls_device_free(ls_context *ctx, void *ptr);
/**
 * Copy bytes between any two of host and device memory, the direction
 * taken from the pointers (cudaMemcpyDefault), on the context's stream.
 * Device to device is asynchronous; a copy from or to host memory returns
 * when the host buffer may be used (it waits for the stream).
 * @return 0; LS_EINVAL for dst or src NULL with bytes > 0
 */
LS_API int ls_device_copy(ls_context *ctx, void *dst, const void *src, size_t bytes);
/** Wait until the context's stream has done all its work.
 *  @return 0, or the device error that asynchronous work met */
LS_API int ls_device_synchronize(ls_context *ctx);
/**
 * LU with partial pivoting of the m x n device matrix dA: A = P L U.
 * @param[in]     m,n   dimensions (>= 0)
 * @param[in,out] dA    device, column-major, ldda >= max(1, m): the factors
 * @param[out]    ipiv  min(m, n) 1-based pivots, host or device memory
 * @param[out]    info  host or device memory (or NULL): 0, or the first
 *                      zero pivot's 1-based column (the factorization ran to
 *                      the end, as LAPACK's)
 * @return info when info is host memory or NULL; 0 when it is device memory;
 *         -i for argument i; LS_EDEVICE / LS_EDEVMEM / LS_EUNAVAIL ...
 */
LS_API int ls_dgetrf_gpu(int m, int n, double *dA, int ldda, int *ipiv, int *info,
                         ls_context *ctx);
LS_API int ls_sgetrf_gpu(int m, int n, float *dA, int ldda, int *ipiv, int *info,
                         ls_context *ctx);
/**
 * Solve op(A) X = B with the factors and pivots of ls_?getrf_gpu.
 * @param[in]     trans 'N', 'T' or 'C' ('C' is 'T' for real data)
 * @param[in]     dA    device factors, ldda >= max(1, n)
 * @param[in]     ipiv  n 1-based pivots, host or device memory
 * @param[in,out] dB    device, n x nrhs, lddb >= max(1, n): B in, X out
 * @param[out]    info  host or device memory (or NULL): 0 or -i
 * @return 0; -i; LS_EDEVICE ...
 */
LS_API int ls_dgetrs_gpu(char trans, int n, int nrhs, const double *dA, int ldda, const int *ipiv,
                         double *dB, int lddb, int *info, ls_context *ctx);
LS_API int ls_sgetrs_gpu(char trans, int n, int nrhs, const float *dA, int ldda, const int *ipiv,
                         float *dB, int lddb, int *info, ls_context *ctx);
/**
 * Solve A X = B on the device: getrf then getrs, queued back to back.
 * @param[in,out] dA   device, n x n, ldda >= max(1, n): the factors
 * @param[out]    ipiv n 1-based pivots, host or device memory
 * @param[in,out] dB   device, n x nrhs, lddb >= max(1, n): B in, X out
 * @param[out]    info host or device memory (or NULL). In host memory (or
 *                     NULL), a zero pivot (info > 0) skips the solve and dB
 *                     keeps B, as LAPACK. In device memory the solve is
 *                     queued without waiting for info, so dB is undefined
 *                     when info > 0: read info before using X.
 * @return info when info is host memory or NULL; 0 when it is device memory;
 *         -i for argument i; LS_EDEVICE ...
 */
LS_API int ls_dgesv_gpu(int n, int nrhs, double *dA, int ldda, int *ipiv, double *dB, int lddb,
                        int *info, ls_context *ctx);
LS_API int ls_sgesv_gpu(int n, int nrhs, float *dA, int ldda, int *ipiv, float *dB, int lddb,
                        int *info, ls_context *ctx);

/* ------------------------------------------------------------------------
 * High-level solve with options and a report.
 * ---------------------------------------------------------------------- */
typedef void (*ls_progress_fn)(void *arg, double fraction, const char *what);

typedef struct ls_options {
    ls_method method;       /**< LS_METHOD_AUTO picks per backend */
    ls_precision precision; /**< working precision */
    ls_pivot pivot;         /**< partial (default) or none (study mode) */
    double rtol;            /**< iterative: stop at ||r||2 <= rtol ||b||2; 0 (default) =
                                 10 sqrt(n) eps, which implies a scaled residual <= 10 */
    double atol;            /**< iterative: absolute tolerance on ||r|| (0) */
    int max_iter;           /**< iterative: iteration cap (default 2000) */
    int check;              /**< compute the scaled residual (default 1) */
    ls_progress_fn progress; /**< optional: called on long work */
    void *progress_arg;
    int refine;             /**< 1 (default): a checked direct solve with partial pivoting
                                 whose scaled residual exceeds 30 gets up to 4 steps of
                                 iterative refinement (each a new solve of A D = B - A X
                                 with the same method), counted in ls_report.iterations
                                 and said in its message; 0: the method's answer as is */
} ls_options;

/** Fill defaults: auto, double, partial pivoting, rtol automatic, 2000 its,
 *  check and refine on. */
LS_API void ls_options_init(ls_options *opt);

typedef struct ls_report {
    ls_method method;       /**< method actually run */
    ls_backend_kind backend;
    ls_precision precision;
    int n, nrhs;
    int info;               /**< LAPACK info of the factorization */
    double t_read;          /**< seconds reading input (filled by callers that read) */
    double t_h2d;           /**< host->device transfer */
    double t_factor;        /**< factorization / elimination */
    double t_solve;         /**< substitution / iterations */
    double t_d2h;           /**< device->host transfer */
    double t_total;         /**< wall time of the whole ls_solve call */
    double flops;           /**< LAPACK-exact count for the dense methods */
    double bytes;           /**< modelled device-memory traffic (docs/metrics.md) */
    double gflops;          /**< flops / (t_factor + t_solve) / 1e9 */
    double gbps;            /**< bytes / (t_factor + t_solve) / 1e9 */
    double residual;        /**< ||B-AX||inf / (n ||A||inf ||X||inf eps) */
    int iterations;         /**< iterative methods */
    double *history;        /**< relative residual per iteration (library-owned) */
    int history_len;
    char device[128];       /**< device the work ran on */
    char message[256];      /**< human-readable outcome detail, in plain words */
    char where[64];         /**< source location(s) of a failure ("solve.c:172"), "" if none:
                                 kept out of message so tools can log it apart */
    /* Filled by ls_solve_problem (ls_solve leaves them empty): */
    char path[32];          /**< the planner's path that ran ("dense", "batched", "mixed",
                                 "sparse-direct", ...: ls_path_name) */
    char why[512];          /**< why the planner chose it, in plain words (with a sparse
                                 problem's retries: "...; CG broke down, GMRES instead") */
    long long index;        /**< stack: 0-based index of the first system that failed
                                 (singular: info is its pivot column); -1 when none */
    long long batch;        /**< systems solved by the call (1 for one system) */
} ls_report;

/** Release what the library allocated inside a report (history). */
LS_API void ls_report_clear(ls_report *rep);

/**
 * Solve A X = B. Inputs are double; the work runs in opt->precision.
 * @param[in]     A   n x n, column-major, lda >= max(1,n); not modified
 * @param[in,out] B   n x nrhs on entry, X on exit
 * @param[out]    rep filled (may be NULL); call ls_report_clear() after
 * @return 0; LS_EINVAL/-i for bad arguments; the 1-based zero-pivot column
 *         for a singular matrix (info > 0); LS_NOT_CONVERGED; LS_BREAKDOWN;
 *         LS_INACCURATE when opt->check finds residual > 30;
 *         LS_EUNAVAIL / LS_EUNSUPPORTED / LS_EDEVMEM / LS_EDEVICE ...
 */
LS_API int ls_solve(ls_context *ctx, const ls_options *opt, int n, int nrhs, const double *A,
                    int lda, double *B, int ldb, ls_report *rep);

/* ------------------------------------------------------------------------
 * Verification and counts.
 * ---------------------------------------------------------------------- */
/** ||B-AX||inf / (n ||A||inf ||X||inf eps); eps of the working precision. */
LS_API double ls_scaled_residual(int n, int nrhs, const double *A, int lda, const double *X,
                                 int ldx, const double *B, int ldb, double eps);
LS_API double ls_eps(ls_precision p);
/** LAPACK's exact counts. */
LS_API double ls_flops_getrf(double m, double n);
LS_API double ls_flops_getrs(double n, double nrhs);
LS_API double ls_flops_gesv(double n, double nrhs);

/* ------------------------------------------------------------------------
 * Dense matrices and files (src/io). Column-major, library-allocated.
 * ---------------------------------------------------------------------- */
typedef struct ls_matrix {
    int rows, cols;
    int ld;           /**< = rows */
    double *data;     /**< column-major, rows*cols */
    int sparse_input; /**< 1 if read from a coordinate file */
    long long nnz;    /**< stored entries read (coordinate) */
} ls_matrix;

LS_API void ls_matrix_free(ls_matrix *m);

/**
 * Read a Matrix Market (.mtx) or NumPy (.npy) file, chosen by content.
 * Rectangular matrices read successfully (solvers refuse non-square A);
 * m->nnz counts the stored entries for every format.
 * @param[in]  path  file name
 * @param[out] m     the matrix (free with ls_matrix_free)
 * @param[out] err   message naming file, line/byte offset and what was expected
 * @return 0, LS_EIO, LS_EFORMAT, LS_EUNSUPPORTED, LS_ENONFINITE, LS_ESIZE, LS_ENOMEM
 */
LS_API int ls_matrix_read(const char *path, ls_matrix *m, char *err, size_t errlen);
/** As ls_matrix_read, calling progress(arg, fraction, "reading") for files of 100 MB or more. */
LS_API int ls_matrix_read_ex(const char *path, ls_matrix *m, ls_progress_fn progress, void *arg,
                             char *err, size_t errlen);
LS_API int ls_mm_read(const char *path, ls_matrix *m, char *err, size_t errlen);
LS_API int ls_npy_read(const char *path, ls_matrix *m, char *err, size_t errlen);
/** Write as Matrix Market array real general, "%.17g". */
LS_API int ls_mm_write(const char *path, const ls_matrix *m, char *err, size_t errlen);
/** Write as .npy version 1.0, '<f8', Fortran order. */
LS_API int ls_npy_write(const char *path, const ls_matrix *m, char *err, size_t errlen);
/** Write by extension: .npy -> npy, anything else -> Matrix Market array. */
LS_API int ls_matrix_write(const char *path, const ls_matrix *m, char *err, size_t errlen);
/** Cap on elements a reader will allocate (default: 2^31, or LS_MAX_ELEMENTS env). */
LS_API long long ls_io_max_elements(void);

/* ------------------------------------------------------------------------
 * Test-matrix generators (src/gen).
 * ---------------------------------------------------------------------- */
#define LS_GEN_MAP(X)                                                           \
    X(RANDOM, "random", "uniform entries in [-1,1]")                             \
    X(DIAGDOM, "diagdom", "random, strictly diagonally dominant")                \
    X(ZERODIAG, "zerodiag", "random with zero diagonal: needs pivoting")          \
    X(HILBERT, "hilbert", "Hilbert matrix 1/(i+j-1): ill-conditioned")           \
    X(GFPP, "gfpp", "Wilkinson's growth matrix: growth 2^(n-1) under GEPP")      \
    X(KAHAN, "kahan", "Kahan's upper-triangular matrix")                         \
    X(RANDSVD, "randsvd", "random orthogonal U S V^T with chosen condition")     \
    X(SINGULAR, "singular", "random with an exactly zero column")               \
    X(POISSON2D, "poisson2d", "5-point 2-D Poisson, n = k^2 (sparse)")          \
    X(CONVDIFF, "convdiff", "5-point 2-D convection-diffusion, n = k^2 (sparse)")

typedef enum ls_gen_kind {
#define LS_GEN_ENUM_(id, name, desc) LS_GEN_##id,
    LS_GEN_MAP(LS_GEN_ENUM_)
#undef LS_GEN_ENUM_
    LS_GEN_COUNT_
} ls_gen_kind;

LS_API const char *ls_gen_name(ls_gen_kind k);
LS_API const char *ls_gen_description(ls_gen_kind k);
LS_API int ls_gen_parse(const char *name, ls_gen_kind *out);
/** Is this kind naturally sparse (written as coordinate)? */
LS_API int ls_gen_is_sparse(ls_gen_kind k);
/**
 * Fill A (n x n, column-major, lda >= n) deterministically from seed.
 * cond is used by RANDSVD (default 1e6 when <= 1).
 */
LS_API int ls_generate(ls_gen_kind kind, int n, double *A, int lda, uint64_t seed, double cond);
/** Uniform [-1,1] fill of an m x n block (for right-hand sides). */
LS_API void ls_fill_random(int m, int n, double *A, int lda, uint64_t seed);
/** Can ls_generate_block make this kind one block at a time? (random,
 *  diagdom, zerodiag, singular, hilbert, gfpp, kahan: 1; randsvd and the
 *  sparse grid kinds: 0.) */
LS_API int ls_gen_is_local(ls_gen_kind kind);
/**
 * The block A(i0:i0+m-1, j0:j0+nc-1) (0-based) of ls_generate(kind, n, ...,
 * seed)'s n x n matrix, bit for bit, without forming the rest: every entry
 * is computed from (seed, i, j) (diagdom's diagonal from its row, O(n)).
 * For distributed generation: each rank fills its own blocks.
 * @param[out] A  m x nc, column-major, lda >= max(1, m)
 * @return 0, LS_EINVAL (bad sizes), LS_EUNSUPPORTED (!ls_gen_is_local)
 */
LS_API int ls_generate_block(ls_gen_kind kind, int n, int i0, int j0, int m, int nc, double *A,
                             int lda, uint64_t seed);

/* ------------------------------------------------------------------------
 * Sparse matrices: compressed sparse row (CSR), read and written as Matrix
 * Market coordinate files without ever forming the dense matrix.
 * ---------------------------------------------------------------------- */
/**
 * CSR, 0-based. Row i holds entries row_ptr[i] .. row_ptr[i+1]-1, with
 * column indices col_idx[] and values val[]; row_ptr has n_rows + 1 entries,
 * row_ptr[0] = 0, row_ptr[n_rows] = nnz. Indices are 64-bit throughout so
 * that neither nnz nor a dimension stops at 2^31. The library's readers and
 * generators give every row its columns in increasing order, each at most
 * once (duplicates summed), explicit zeros kept. Fill one with the library
 * and release it with ls_csr_free(); the struct itself is the caller's.
 */
typedef struct ls_csr {
    int64_t n_rows, n_cols, nnz;
    int64_t *row_ptr; /**< n_rows + 1 */
    int64_t *col_idx; /**< nnz, 0-based */
    double *val;      /**< nnz */
} ls_csr;

/** Release the arrays the library allocated and zero *A (NULL: nothing). */
LS_API void ls_csr_free(ls_csr *A);

/**
 * Read a Matrix Market coordinate file into CSR, streaming: memory is
 * O(nnz + n_rows), never n_rows x n_cols. Fields real, integer, pattern
 * (values 1.0); symmetric and skew-symmetric storage expanded to both
 * triangles; duplicate entries summed; explicit zeros kept; the rules and
 * messages are the dense reader's (src/io/README.md). Array files are
 * refused (LS_EUNSUPPORTED): read those with ls_matrix_read.
 * @param[in]  path  file name
 * @param[out] out   zeroed first; the matrix on success (ls_csr_free)
 * @param[out] err   message naming the file, the line and what was expected
 * @return 0, LS_EINVAL, LS_EIO, LS_EFORMAT, LS_EUNSUPPORTED, LS_ENONFINITE,
 *         LS_ESIZE (a header claiming more than the caps or the file allow),
 *         LS_ENOMEM
 */
LS_API int ls_csr_read_mm(const char *path, ls_csr *out, char *err, size_t errlen);

/**
 * Write A as "%%MatrixMarket matrix coordinate real general", one line per
 * stored entry in row order, values as "%.17g": ls_csr_read_mm reads back
 * the same bits. A is checked first (row_ptr non-decreasing from 0 to nnz,
 * column indices in range, values finite); a failed write removes the file.
 * @return 0, LS_EINVAL (a malformed A), LS_ENONFINITE, LS_EIO
 */
LS_API int ls_csr_write_mm(const char *path, const ls_csr *A, char *err, size_t errlen);

/**
 * y = A x.
 * @param[in]  A  n_rows x n_cols CSR
 * @param[in]  x  n_cols values
 * @param[out] y  n_rows values (may not overlap x)
 * @return 0; -1, -2, -3 for a NULL (or, for A, arrays missing) argument
 */
LS_API int ls_csr_matvec(const ls_csr *A, const double *x, double *y);

/**
 * The standard Dirichlet Laplacian on a k x k (dims 2, 5-point: 4 on the
 * diagonal, -1 to each grid neighbour) or k x k x k grid (dims 3, 7-point:
 * 6 and -1), unscaled (no 1/h^2): symmetric positive definite, n = k^dims,
 * nnz = 5n - 4k or 7n - 6k^2. Unknown p = ix + k*iy (+ k^2*iz), so dims 2
 * is ls_generate(LS_GEN_POISSON2D)'s matrix.
 * @param[in]  dims  2 or 3
 * @param[in]  k     grid points per side, >= 1
 * @param[out] out   zeroed first; the matrix on success (ls_csr_free)
 * @return 0; -1 (dims), -2 (k < 1, or nnz beyond what can be addressed),
 *         -3 (out NULL); LS_ENOMEM
 */
LS_API int ls_gen_poisson(int dims, int64_t k, ls_csr *out);

/**
 * Grid problems of any size: kx x ky (dims 2, 5-point, kz ignored) or
 * kx x ky x kz (dims 3, 7-point) unknowns, p = ix + kx*iy + kx*ky*iz.
 * -Laplace(u) + w . grad(u) with w = peclet (1, 1, 1), one mesh width
 * h = 1 / (max k + 1), central differences times h^2: 2*dims on the
 * diagonal, -1 - peclet h / 2 to the lower and -1 + peclet h / 2 to the
 * upper neighbour in each direction. peclet 0 is ls_gen_poisson's matrix;
 * dims 2, kx = ky = k, peclet 20 is ls_generate(LS_GEN_CONVDIFF)'s.
 * @return 0; -1 (dims), -2 (a side < 1, or n beyond what can be addressed),
 *         -3 (out NULL), -4 (peclet negative or not finite); LS_ENOMEM
 */
LS_API int ls_gen_grid(int dims, int64_t kx, int64_t ky, int64_t kz, double peclet,
                       ls_csr *out);
/**
 * ls_gen_grid's matrix written straight to Matrix Market coordinate real
 * general, row by row, in O(1) memory (a 1 MiB buffer): nothing of size n
 * is allocated. To the open FILE* stream (flushed, left open) or, with
 * stream NULL, to the file path (removed again when the write fails).
 * comment: one '%' line after the banner (NULL: a default).
 * @return 0, LS_EINVAL (bad grid, as ls_gen_grid), LS_EIO, LS_ENOMEM
 */
LS_API int ls_gen_grid_write_mm(void *stream, const char *path, int dims, int64_t kx,
                                int64_t ky, int64_t kz, double peclet, const char *comment,
                                char *err, size_t errlen);

/* ------------------------------------------------------------------------
 * Preconditioned Krylov solvers on CSR (double precision, CPU).
 * ---------------------------------------------------------------------- */
typedef enum ls_iter_method {
    LS_ITER_BICGSTAB = 0, /**< BiCGStab, right-preconditioned */
    LS_ITER_GMRES = 1,    /**< restarted GMRES(m), right-preconditioned, modified Gram-Schmidt */
    LS_ITER_CG = 2        /**< conjugate gradients: A symmetric positive definite (Jacobi or
                               ILU(0) = IC(0) preconditioner; equilibration kept symmetric);
                               otherwise LS_BREAKDOWN, naming the product that was not > 0 */
} ls_iter_method;

typedef enum ls_precond {
    LS_PRECOND_NONE = 0,
    LS_PRECOND_JACOBI = 1, /**< diagonal; every diagonal entry must be stored and non-zero */
    LS_PRECOND_ILU0 = 2,   /**< incomplete LU on A's own pattern; needs non-zero pivots */
    LS_PRECOND_ILUT = 3    /**< dual-threshold incomplete LU (Saad's ILUT): ilut_tol, ilut_fill;
                                a tiny pivot is perturbed and counted in the message */
} ls_precond;

/** The row/column permutation (and scaling) applied before the preconditioner. */
typedef enum ls_permute {
    LS_PERMUTE_AUTO = 0,     /**< MC64 when Jacobi/ILU(0)/ILUT is used with BiCGStab or GMRES
                                  and some |a_ii| is zero or small against its row or column */
    LS_PERMUTE_MC64 = 1,     /**< always (BiCGStab, GMRES): maximum-product weighted matching
                                  with scaling, |diagonal| = 1 and every |entry| <= 1 */
    LS_PERMUTE_MAXTRANS = 2, /**< structural maximum transversal (SuiteSparse BTF), only when
                                  a diagonal entry is missing or zero */
    LS_PERMUTE_NONE = 3      /**< never: Jacobi and ILU(0) then refuse a zero diagonal */
} ls_permute;

typedef struct ls_iter_options {
    ls_iter_method method; /**< default LS_ITER_BICGSTAB */
    ls_precond precond;    /**< default LS_PRECOND_NONE */
    double rtol;     /**< stop at ||b - A x||2 <= rtol ||b||2 (true residual, original system);
                          0 (default) = 10 sqrt(n) eps, the dense iterative methods' rule */
    int max_iter;    /**< iteration cap (default 2000); GMRES counts inner steps */
    int restart;     /**< GMRES restart length m (default 30) */
    int equilibrate; /**< 1: scale rows, then columns, by their largest magnitude (powers of
                          2) before iterating; x is returned unscaled. Default 0 */
    double ilut_tol; /**< ILUT: drop |entry| < ilut_tol ||row of A||2 (default 1e-4; 0 keeps all) */
    int ilut_fill;   /**< ILUT: L and U each keep at most A's count in the row + ilut_fill
                          entries per row (default 10; >= 0) */
    ls_permute permute; /**< default LS_PERMUTE_AUTO; CG never permutes (A Q is not
                             symmetric) */
} ls_iter_options;

typedef struct ls_iter_report {
    int iterations;      /**< iterations run (GMRES: inner steps over all cycles) */
    double rel_residual; /**< ||b - A x||2 / ||b||2, recomputed from x on the original A */
    int converged;       /**< 1 when rel_residual <= the tolerance */
    int breakdown;       /**< 1 when the method broke down (a zero or non-finite scalar) */
    double rtol;         /**< the tolerance actually used */
    char message[256];   /**< outcome in plain words */
} ls_iter_report;

/** Fill defaults: BiCGStab, no preconditioner, rtol automatic, 2000 its, restart 30,
 *  no equilibration. */
LS_API void ls_iter_options_init(ls_iter_options *opt);

/**
 * Solve A x = b with a preconditioned Krylov method. Success is only
 * reported after the true residual b - A x of the original system meets
 * the tolerance.
 * @param[in]     A      square CSR, columns sorted within each row (as the library makes them)
 * @param[in]     b      n values
 * @param[in,out] x      in: initial guess (pass zeros for none); out: the last iterate
 * @param[in]     opt    options (NULL: defaults)
 * @param[out]    rep    optional: iterations, true relative residual, flags, message
 * @param[out]    err    optional: message on any non-zero return
 * @return 0 converged; LS_NOT_CONVERGED (iteration cap) or LS_BREAKDOWN, with x the
 *         last iterate and the report filled; LS_EINVAL (NULL argument, malformed A,
 *         bad option, Jacobi/ILU(0) with a missing or zero diagonal or ILU(0) zero
 *         pivot: the message names the 1-based row), LS_ESIZE (not square),
 *         LS_ENONFINITE (b or x0), LS_ENOMEM
 */
LS_API int ls_csr_solve_iter(const ls_csr *A, const double *b, double *x,
                             const ls_iter_options *opt, ls_iter_report *rep, char *err,
                             size_t errlen);

/* ------------------------------------------------------------------------
 * Sparse direct solver on CSR (double precision, CPU): SuiteSparse UMFPACK's
 * LU when the library was built with it (ls_csr_direct_available()).
 * ---------------------------------------------------------------------- */
typedef struct ls_csr_direct_report {
    double residual;  /**< max over columns of ||b-Ax||inf / (n ||A||inf ||x||inf eps) */
    double rcond;     /**< 1 / cond1(A), Hager's estimate on the factors (< eps: numerically
                           singular: small residual, but the forward error may be large) */
    int64_t nnz_lu;   /**< entries in L + U (diagonal counted once) */
    int singular;     /**< 1 when an exactly zero pivot stopped the solve */
    double t_factor, t_solve; /**< seconds */
    char message[256]; /**< outcome in plain words */
} ls_csr_direct_report;

/** 1 when built with UMFPACK, else 0 (ls_csr_solve_direct then says so). */
LS_API int ls_csr_direct_available(void);

/**
 * Solve A X = B by sparse LU (UMFPACK, fill-reducing ordering, threshold
 * pivoting, its iterative refinement), then check the scaled residual on
 * CSR in O(nnz * nrhs).
 * @param[in]  A     square CSR, columns strictly increasing within each row
 * @param[in]  nrhs  number of right-hand sides (>= 0)
 * @param[in]  B     n x nrhs, column-major, leading dimension ldb >= n
 * @param[out] X     n x nrhs, leading dimension ldx >= n (may not overlap B)
 * @param[out] rep   optional: residual, rcond, fill, times, message
 * @param[out] err   optional: message on any non-zero return
 * @return 0 solved with residual <= 30; k > 0: singular (U(k,k) of the permuted
 *         factors is exactly zero, UMFPACK_WARNING_singular_matrix; X set to NaN);
 *         LS_INACCURATE (residual > 30); LS_EINVAL, LS_ESIZE, LS_ENONFINITE,
 *         LS_ENOMEM; LS_EUNSUPPORTED ("unsupported: built without UMFPACK")
 */
LS_API int ls_csr_solve_direct(const ls_csr *A, int nrhs, const double *B, int64_t ldb,
                               double *X, int64_t ldx, ls_csr_direct_report *rep, char *err,
                               size_t errlen);

/** What a sparse LU of A would cost, from UMFPACK's symbolic analysis. */
typedef struct ls_csr_direct_cost {
    double peak_bytes; /**< peak memory, estimated (see ls_csr_direct_estimate) */
    double flops;      /**< floating-point operations of the factorization, estimated */
    double nnz_lu;     /**< entries of L + U, estimated (diagonal counted once) */
    double t_analysis; /**< seconds the analysis took (ordering: about O(nnz)) */
} ls_csr_direct_cost;

/**
 * Estimate ls_csr_solve_direct's memory and work without factoring: the
 * fill-reducing ordering and symbolic analysis only. When UMFPACK picks its
 * symmetric strategy, its exact fill and flop counts for AMD's ordering
 * (off-diagonal pivoting would add to them); otherwise its upper bounds,
 * which can be loose by orders of magnitude. `linsolve solve
 * --method auto` picks the direct solver from it (docs/sparse.md).
 * @return 0; LS_EINVAL, LS_ESIZE, LS_ENONFINITE (as ls_csr_solve_direct),
 *         LS_ENOMEM; LS_EUNSUPPORTED without UMFPACK
 */
LS_API int ls_csr_direct_estimate(const ls_csr *A, ls_csr_direct_cost *cost, char *err,
                                  size_t errlen);

/**
 * ls_csr_solve_iter on a context's backend. CPU (or ctx NULL): the same as
 * ls_csr_solve_iter. CUDA: the equilibration, permutation and preconditioner
 * factors are made on the host exactly as there, and the iteration runs on
 * the device (cuSPARSE SpMV and triangular solves, cuBLAS); x comes back to
 * the host. Other backends: LS_EUNSUPPORTED naming the backend. Statuses as
 * ls_csr_solve_iter's, plus LS_EDEVMEM and LS_EDEVICE (ls_context_error).
 */
LS_API int ls_csr_solve_iter_ctx(ls_context *ctx, const ls_csr *A, const double *b, double *x,
                                 const ls_iter_options *opt, ls_iter_report *rep, char *err,
                                 size_t errlen);

/**
 * ls_csr_solve_direct on a context's backend. CPU (or ctx NULL): UMFPACK.
 * CUDA: NVIDIA cuDSS when the CUDA backend was built with it, else
 * LS_EUNSUPPORTED ("unsupported: ... built without cuDSS"). Statuses and the
 * report as ls_csr_solve_direct's (rcond is not estimated on CUDA: NaN).
 */
LS_API int ls_csr_solve_direct_ctx(ls_context *ctx, const ls_csr *A, int nrhs, const double *B,
                                   int64_t ldb, double *X, int64_t ldx,
                                   ls_csr_direct_report *rep, char *err, size_t errlen);
/** 1 when ls_csr_solve_direct_ctx can run on ctx's backend (ctx NULL: the CPU's UMFPACK). */
LS_API int ls_csr_direct_available_ctx(ls_context *ctx);

/** ||A||inf (largest absolute row sum) of a CSR matrix. */
LS_API double ls_csr_norm_inf(const ls_csr *A);
/** max over columns of ||B-AX||inf / (n ||A||inf ||X||inf eps), on CSR in O(nnz * nrhs). */
LS_API double ls_csr_scaled_residual(const ls_csr *A, int nrhs, const double *B, int64_t ldb,
                                     const double *X, int64_t ldx);

/* ------------------------------------------------------------------------
 * Mixed precision (LAPACK's dsgesv idea): factor A in a low precision,
 * refine X in FP64 until ||B-AX||inf / (n ||A||inf ||X||inf eps64) <= 30,
 * and factor in FP64 instead when refinement stalls, diverges or runs out
 * of iterations. A never gets a worse answer than ls_dgesv, only sometimes
 * a slower one.
 * ---------------------------------------------------------------------- */
/** Precision of the LU factors. The CPU backend has FP32 only. */
typedef enum ls_factor_prec {
    LS_FACTOR_AUTO = 0, /**< the backend picks (CPU: FP32; CUDA: FP64 when the pivoting is
                             rbt or none, else FP32, or TF32 from the order in
                             LS_CUDA_MIXED_TF32_MIN_N, refactored in FP32 when U's diagonal
                             spread says TF32's refinement would crawl) */
    LS_FACTOR_FP32,     /**< single precision */
    LS_FACTOR_TF32,     /**< FP32 panel, trailing GEMMs on TF32 tensor cores */
    LS_FACTOR_TF32X3,   /**< trailing GEMMs as 3 TF32 products (FP32-accurate) */
    LS_FACTOR_BF16,     /**< equilibrated A, trailing GEMMs with BF16 inputs */
    LS_FACTOR_FP16,     /**< equilibrated A, trailing GEMMs with FP16 inputs */
    LS_FACTOR_FP64,     /**< FP64 factors without interchanges (pivot rbt or none; CUDA):
                             the time of FP64 tensor-core GEMMs with no pivot search */
    LS_FACTOR_COUNT_
} ls_factor_prec;

/** Refinement of the low-precision solution, in FP64. */
typedef enum ls_refine_kind {
    LS_REFINE_AUTO = 0, /**< classic IR, switching to GMRES-IR when IR converges slowly */
    LS_REFINE_IR,       /**< classic iterative refinement: X += (LU)^-1 (B - A X) */
    LS_REFINE_GMRES,    /**< GMRES-IR: each correction by GMRES preconditioned with the LU */
    LS_REFINE_COUNT_
} ls_refine_kind;

/** "auto", "fp32", "tf32", "tf32x3", "bf16", "fp16", "fp64"; NULL when out of range. */
LS_API const char *ls_factor_name(ls_factor_prec f);
LS_API int ls_factor_parse(const char *name, ls_factor_prec *out);
/** "auto", "ir", "gmres". */
LS_API const char *ls_refine_name(ls_refine_kind r);
LS_API int ls_refine_parse(const char *name, ls_refine_kind *out);
/** "partial", "none", "rbt", "auto"; NULL when out of range. */
LS_API const char *ls_pivot_name(ls_pivot p);
LS_API int ls_pivot_parse(const char *name, ls_pivot *out);

typedef struct ls_mixed_opts {
    ls_factor_prec factor; /**< default LS_FACTOR_AUTO */
    ls_refine_kind refine; /**< default LS_REFINE_AUTO */
    int max_iter;          /**< refinement steps at most (default 30, LAPACK's ITERMAX) */
    int restart;           /**< GMRES-IR: inner steps per correction (default 30) */
    int fallback;          /**< 1 (default): factor in FP64 when refinement fails;
                                0: return LS_NOT_CONVERGED instead (for studies) */
    ls_pivot pivot;        /**< default LS_PIVOT_AUTO */
} ls_mixed_opts;

/** Defaults: auto factor, auto refinement, 30 steps, restart 30, fallback on, auto pivot. */
LS_API void ls_mixed_opts_init(ls_mixed_opts *opts);

#define LS_MIXED_HISTORY_MAX 64

typedef struct ls_mixed_result {
    ls_factor_prec factor;  /**< the low precision that was tried (never AUTO) */
    ls_refine_kind refine;  /**< the refinement that ran last (IR or GMRES; AUTO: none ran) */
    int iterations;         /**< refinement steps (corrections) taken in low precision */
    int inner_iterations;   /**< GMRES steps summed over all corrections */
    int history_len;        /**< entries in history (at most LS_MIXED_HISTORY_MAX) */
    double history[LS_MIXED_HISTORY_MAX]; /**< FP64 scaled residual of each iterate,
                                               [0] = the plain low-precision solve */
    int converged;          /**< 1 when low-precision refinement met the test */
    int fell_back;          /**< 1 when X came from the FP64 factorization */
    double residual;        /**< scaled residual of the X returned (NaN: not computed) */
    char message[256];      /**< what happened, in plain words */
    ls_pivot pivot;         /**< the interchanges of the low factors (never AUTO once run) */
} ls_mixed_result;

/**
 * Solve A X = B (FP64) with low-precision LU and FP64 refinement, with
 * LAPACK dsgesv's contract for A, B and ipiv.
 * @param[in]     ctx  context (NULL: the CPU); on CUDA the arrays are copied
 *                     to the device and the work runs there
 * @param[in]     n,nrhs orders (>= 0)
 * @param[in,out] A    n x n, lda >= max(1,n): unchanged, or the FP64 factors
 *                     when res->fell_back is 1
 * @param[out]    ipiv n pivots of the factors used (low precision or FP64)
 * @param[in]     B    n x nrhs, ldb >= max(1,n); not modified
 * @param[out]    X    n x nrhs, ldx >= max(1,n); never NaN or Inf: zeros
 *                     when no answer was found (info > 0, non-finite input
 *                     or iterate, a device failure)
 * @param[in]     opts options (NULL: defaults)
 * @param[out]    res  what happened (may be NULL)
 * @return 0 (residual <= 30); -i for argument i (ctx not counted);
 *         i > 0 when U(i,i) of the FP64 factors is exactly zero;
 *         LS_ENONFINITE for NaN/Inf in A or B; LS_EUNSUPPORTED for a factor
 *         precision the backend lacks (the message names it);
 *         LS_NOT_CONVERGED (fallback off); LS_INACCURATE when even the FP64
 *         answer fails the check; LS_ENOMEM / LS_EDEVMEM / LS_EDEVICE ...
 */
LS_API int ls_dsgesv(ls_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv,
                     const double *B, int ldb, double *X, int ldx, const ls_mixed_opts *opts,
                     ls_mixed_result *res);
/**
 * As ls_dsgesv on device arrays (dA, dB, dX: device memory of the context's
 * GPU; ipiv host or device memory), queued on the context's stream. The
 * call returns when X is final: the refinement reads one residual norm
 * back per step. CUDA only (LS_EUNAVAIL / LS_EUNSUPPORTED elsewhere).
 */
LS_API int ls_dsgesv_gpu(ls_context *ctx, int n, int nrhs, double *dA, int ldda, int *ipiv,
                         const double *dB, int lddb, double *dX, int lddx,
                         const ls_mixed_opts *opts, ls_mixed_result *res);

/* ------------------------------------------------------------------------
 * Batched solves: `batch` independent systems of one order n at once.
 *
 * Strided layout (cuBLAS's strided-batched): system b's matrix starts at
 * A + b*strideA, its right-hand sides at B + b*strideB, its n pivots at
 * ipiv + b*n (1-based) and its outcome in info[b]: 0, or the first zero
 * pivot's column as LAPACK's getrf says it. A singular system is reported
 * in its own info, its A holds the factors, its B is left unchanged; every
 * other system is still solved. The return value is 0 when every system
 * was processed (whatever their info), -i for an illegal argument i (info
 * is then not written), or LS_E* for a library or device failure.
 * batch = 0 is a successful no-op. ctx NULL or a CPU context runs on the
 * CPU (threads over the systems); a CUDA or OpenCL context runs on its
 * device (host arrays are copied over and back; OpenCL: one work-group a
 * system, the whole stack in one launch).
 *
 * The layout flag tells how each matrix is stored:
 *  - LS_COL_MAJOR: element (i, j) of A at A[i + j*lda], of B at B[i + j*ldb]
 *    (ldb >= max(1, n)), as LAPACK;
 *  - LS_ROW_MAJOR: element (i, j) of A at A[i*lda + j], of B at B[i*ldb + j]
 *    (ldb >= max(1, nrhs)): a C-order NumPy stack of shape (batch, n, n)
 *    with lda = n, strideA = n*n, and B of shape (batch, n) or (batch, n,
 *    nrhs), read and written in place without a copy. Only the addressing
 *    changes: the factorization is still P A = L U of A itself, with L and
 *    U written row-major where A was, and the same pivots and info as
 *    LAPACK's getrf on the column-major copy of A (equivalently: the bytes
 *    read column-major are A^T, and solving with them is LAPACK's getrs
 *    with trans = 'T' on A^T's factors; this API does that bookkeeping).
 *    Pass the same layout to getrf and getrs.
 * Matrices must not overlap: strideA >= lda*n and strideB >= ldb times the
 * other dimension when batch > 1.
 *
 * Argument numbering for -i: gesv (layout 1, n 2, nrhs 3, A 4, lda 5,
 * strideA 6, ipiv 7, B 8, ldb 9, strideB 10, info 11, batch 12); getrf
 * (layout 1, n 2, A 3, lda 4, strideA 5, ipiv 6, info 7, batch 8); getrs
 * (layout 1, trans 2, n 3, nrhs 4, A 5, lda 6, strideA 7, ipiv 8, B 9,
 * ldb 10, strideB 11, info 12, batch 13).
 * ---------------------------------------------------------------------- */
typedef enum ls_layout { LS_COL_MAJOR = 0, LS_ROW_MAJOR = 1 } ls_layout;

/**
 * Solve A_b X_b = B_b for b = 0 .. batch-1 (getrf then getrs, fused where
 * the backend can).
 * @param[in]     layout  LS_COL_MAJOR or LS_ROW_MAJOR (see above)
 * @param[in]     n,nrhs  order and right-hand sides (>= 0), the same for all
 * @param[in,out] A       batch matrices strideA elements apart: the factors
 * @param[out]    ipiv    n pivots per system, or NULL: not stored (gesv only;
 *                        a row-major stack's A is then scratch, as the GPU
 *                        may factor the bytes as they lie, A^T, and solve
 *                        with op = T, which spares it two transposes; a
 *                        singular system's info is still nonzero but may name
 *                        another column)
 * @param[in,out] B       batch blocks strideB elements apart: X on exit
 * @param[out]    info    batch entries
 * @return 0; -i; LS_EUNSUPPORTED / LS_EDEVMEM / LS_EDEVICE / LS_ENOMEM
 */
LS_API int ls_dgesv_batched(ls_layout layout, int n, int nrhs, double *A, int lda,
                            long long strideA, int *ipiv, double *B, int ldb, long long strideB,
                            int *info, int batch, ls_context *ctx);
LS_API int ls_sgesv_batched(ls_layout layout, int n, int nrhs, float *A, int lda,
                            long long strideA, int *ipiv, float *B, int ldb, long long strideB,
                            int *info, int batch, ls_context *ctx);
/** LU with partial pivoting, P A_b = L_b U_b, of every matrix of the
 *  stack; ipiv is required. */
LS_API int ls_dgetrf_batched(ls_layout layout, int n, double *A, int lda, long long strideA,
                             int *ipiv, int *info, int batch, ls_context *ctx);
LS_API int ls_sgetrf_batched(ls_layout layout, int n, float *A, int lda, long long strideA,
                             int *ipiv, int *info, int batch, ls_context *ctx);
/** op(A_b) X_b = B_b with the factors and pivots of ls_?getrf_batched made
 *  with the same layout; trans 'N', 'T' or 'C'. info[b] is set to 0. */
LS_API int ls_dgetrs_batched(ls_layout layout, char trans, int n, int nrhs, const double *A,
                             int lda, long long strideA, const int *ipiv, double *B, int ldb,
                             long long strideB, int *info, int batch, ls_context *ctx);
LS_API int ls_sgetrs_batched(ls_layout layout, char trans, int n, int nrhs, const float *A,
                             int lda, long long strideA, const int *ipiv, float *B, int ldb,
                             long long strideB, int *info, int batch, ls_context *ctx);
/**
 * The same on device memory of a CUDA context, queued on the context's
 * stream (ls_context_set_stream) without waiting for it: A, B, ipiv and
 * info must all be device memory of the context's GPU; info is written when
 * the stream gets there. Numbering and return values as above; without a
 * CUDA context, LS_EUNAVAIL / LS_EUNSUPPORTED as the other _gpu routines.
 */
LS_API int ls_dgesv_batched_gpu(ls_layout layout, int n, int nrhs, double *dA, int ldda,
                                long long strideA, int *dipiv, double *dB, int lddb,
                                long long strideB, int *dinfo, int batch, ls_context *ctx);
LS_API int ls_sgesv_batched_gpu(ls_layout layout, int n, int nrhs, float *dA, int ldda,
                                long long strideA, int *dipiv, float *dB, int lddb,
                                long long strideB, int *dinfo, int batch, ls_context *ctx);
LS_API int ls_dgetrf_batched_gpu(ls_layout layout, int n, double *dA, int ldda,
                                 long long strideA, int *dipiv, int *dinfo, int batch,
                                 ls_context *ctx);
LS_API int ls_sgetrf_batched_gpu(ls_layout layout, int n, float *dA, int ldda, long long strideA,
                                 int *dipiv, int *dinfo, int batch, ls_context *ctx);
LS_API int ls_dgetrs_batched_gpu(ls_layout layout, char trans, int n, int nrhs, const double *dA,
                                 int ldda, long long strideA, const int *dipiv, double *dB,
                                 int lddb, long long strideB, int *dinfo, int batch,
                                 ls_context *ctx);
LS_API int ls_sgetrs_batched_gpu(ls_layout layout, char trans, int n, int nrhs, const float *dA,
                                 int ldda, long long strideA, const int *dipiv, float *dB,
                                 int lddb, long long strideB, int *dinfo, int batch,
                                 ls_context *ctx);

/**
 * The checks of solved systems in one pass over device memory, queued on
 * the context's stream without waiting: for b = 0 .. batch-1, LAPACK's
 * scaled residual ||B_b - A_b X_b||inf / (n ||A_b||inf ||X_b||inf eps)
 * (the matrix inf-norms, eps = ls_eps(prec), FP64 arithmetic on data of
 * either precision; ls_scaled_residual's rules: NaN anywhere in a system
 * makes its residual NaN, 0 for a zero residual, Inf for a zero or
 * overflowing denominator), and whether any entry of A_b or B_b is NaN or
 * Inf (isfinite on each entry as stored, so a row sum that overflows is
 * not mistaken for one). A, B and X are read once each and not written;
 * the systems are reduced on the device and four doubles written to dout:
 *   dout[0] the worst residual over the systems (NaN counts as worst),
 *   dout[1] that system's index (the first of equal ones),
 *   dout[2] 1 when some A_b or B_b holds NaN or Inf, else 0,
 *   dout[3] the first such system's index, or -1.
 * With dX NULL only the finiteness part runs: dout[0] = 0, dout[1] = -1.
 * With no systems (n or batch 0): 0, -1, 0, -1. A reader of dout waits
 * for the stream (one copy of 32 bytes, which may ride with other results).
 * Each matrix has its own layout (LS_COL_MAJOR or LS_ROW_MAJOR, as the
 * batched routines) and leading dimension; strides may be 0 (one matrix
 * for every system) since nothing is written. Work and memory: one read of
 * each matrix; at most 40 bytes a system of device scratch, allocated and
 * freed on the stream (cudaMallocAsync where the device has memory pools).
 * @param[in]  prec    LS_DOUBLE or LS_SINGLE: the type of A, B and X
 * @param[in]  n,nrhs  order and right-hand sides (>= 0)
 * @param[in]  layoutA,dA,ldda,strideA  A_b, n x n, ldda >= max(1, n)
 * @param[in]  layoutB,dB,lddb,strideB  B_b, n x nrhs, lddb >= max(1, n)
 *                     column-major, >= max(1, nrhs) row-major
 * @param[in]  layoutX,dX,lddx,strideX  X_b as B_b, or dX NULL
 * @param[in]  batch   number of systems (>= 0)
 * @param[out] dout    4 doubles of device memory of the context's GPU
 * @return 0; -i for argument i (prec 1, n 2, nrhs 3, layoutA 4, dA 5,
 *         ldda 6, strideA 7, layoutB 8, dB 9, lddb 10, strideB 11,
 *         layoutX 12, dX 13, lddx 14, strideX 15, batch 16, dout 17; a
 *         pointer that is not device memory of the context's GPU included);
 *         LS_EDEVICE / LS_EDEVMEM; without a CUDA context LS_EUNAVAIL /
 *         LS_EUNSUPPORTED as the other _gpu routines
 */
LS_API int ls_check_batched_gpu(ls_precision prec, int n, int nrhs, ls_layout layoutA,
                                const void *dA, int ldda, long long strideA, ls_layout layoutB,
                                const void *dB, int lddb, long long strideB, ls_layout layoutX,
                                const void *dX, int lddx, long long strideX, int batch,
                                double *dout, ls_context *ctx);

/* ------------------------------------------------------------------------
 * One front door: describe the problem once, the planner picks the path.
 *
 * ls_solve_problem takes one description of any problem the library solves
 * -- one dense system, a strided stack of systems of one order, or a sparse
 * (CSR) system; in host memory or in the context's device memory; FP64 or
 * FP32 data; a precision policy; a method ("auto" or a name) -- and runs the
 * fastest correct path of its table (src/core/plan/plan_paths.c: dense LU and
 * the other dense methods, the batched kernels, the mixed-precision solver,
 * sparse direct and Krylov), saying in the report which path ran and why
 * (ls_report.path, .why). The CLI's `solve`, the Python package and C
 * callers all come through here, so a path added to the table reaches every
 * front end. The LAPACK- and MAGMA-shaped routines above stay the expert
 * layer it calls.
 * ---------------------------------------------------------------------- */
typedef enum ls_shape {
    LS_SHAPE_DENSE = 0, /**< one n x n system */
    LS_SHAPE_STACK = 1, /**< `batch` systems of order n, strided (the batched routines' layout) */
    LS_SHAPE_CSR = 2    /**< one sparse system: A in problem.csr, host memory, FP64 */
} ls_shape;

typedef enum ls_dtype { LS_FLOAT64 = 0, LS_FLOAT32 = 1 } ls_dtype;

typedef enum ls_memory {
    LS_MEMORY_HOST = 0,  /**< ordinary host memory */
    LS_MEMORY_DEVICE = 1 /**< the context's GPU memory (CUDA); work queued on its stream */
} ls_memory;

typedef enum ls_policy {
    LS_POLICY_AUTO = 0,   /**< the data's precision (FP32 data: single; FP64: double), as NumPy */
    LS_POLICY_DOUBLE = 1, /**< FP64 arithmetic */
    LS_POLICY_SINGLE = 2, /**< FP32 arithmetic */
    LS_POLICY_MIXED = 3   /**< low-precision factors refined to an FP64 answer (ls_dsgesv);
                               FP64 data only */
} ls_policy;

/** How ls_solve_problem's "auto" treats a sparse (CSR) problem
 *  (docs/sparse.md); ls_sparse_opts_init gives the defaults. */
typedef struct ls_sparse_opts {
    double direct_memory; /**< bytes: auto runs the sparse LU (UMFPACK) only when its symbolic
                               analysis estimates a peak within; <= 0 (default): half the
                               physical memory */
    double direct_flops;  /**< the same for its estimated flop count; <= 0 (default): 5e10
                               (under a minute at UMFPACK's 0.7-1.3 GFLOP/s on two cores) */
    int fixed_precond;    /**< 1: problem.iter->precond as given even under auto (no ILUT
                               retry, no Jacobi first on a GPU); 0 (default): auto picks */
    int fixed_max_iter;   /**< 1: problem.iter->max_iter is the cap even for auto's CG;
                               0 (default): auto's CG gets at least 4 sqrt(n) iterations */
} ls_sparse_opts;

/** Zero *o: the budgets and choices above are auto. */
LS_API void ls_sparse_opts_init(ls_sparse_opts *o);

/** What a sparse problem's solve ran last (ls_problem.sparse_result). */
typedef struct ls_sparse_result {
    int direct;            /**< 1: the sparse LU gave X; 0: a Krylov method */
    ls_iter_options iter;  /**< the Krylov method's settings in the last run (direct: unused) */
    char method[96];       /**< in words: "direct (UMFPACK sparse LU)", "gmres, precond ilu0,
                                equilibrated", ... */
    double t_choose;       /**< seconds auto spent choosing (UMFPACK's symbolic analysis) */
} ls_sparse_result;

typedef struct ls_problem {
    ls_shape shape;
    ls_dtype dtype;       /**< element type of A and B (dense and stack); CSR is FP64 */
    ls_memory memory;     /**< where A, B and info live */
    ls_layout layout;     /**< LS_COL_MAJOR (default) or LS_ROW_MAJOR, as the batched routines */
    int n;                /**< order of each system */
    int nrhs;             /**< right-hand sides per system */
    int batch;            /**< stack: number of systems (>= 0); dense and CSR: ignored (1) */
    void *A;              /**< dense/stack: A. One system in host memory keeps it (ls_solve
                               reads a copy); otherwise it may be overwritten by factors
                               or scratch, as LAPACK's gesv overwrites it */
    int lda;
    long long strideA;    /**< stack: elements between matrices */
    void *B;              /**< B on entry, X on exit (n x nrhs per system, ldb, strideB) */
    int ldb;
    long long strideB;
    const ls_csr *csr;    /**< LS_SHAPE_CSR: the matrix (host memory) */
    int *info;            /**< `batch` entries (1 for one system) in the problem's memory,
                               each system's LAPACK info; NULL: the planner keeps its own and
                               the report names the first failure. In device memory (with
                               ipiv also given for one system) the call does not wait for the
                               device: info is written when the stream gets there, the caller
                               reads it, and the report has no info, index or device time */
    int *ipiv;            /**< optional: n pivots per system (1-based, as LAPACK's), in the
                               problem's memory; NULL: the planner's own */
    ls_policy policy;     /**< default LS_POLICY_AUTO; ls_options.precision is not read */
    const char *method;   /**< NULL or "auto": the planner picks; else a path name
                               (ls_path_name) or a dense method name (ls_method_name), or for
                               CSR "direct", "bicgstab", "gmres", "cg" */
    /* Optional (NULL from ls_problem_init: the defaults). */
    const ls_mixed_opts *mixed;    /**< policy mixed: ls_dsgesv's options (factor, refinement,
                                        pivoting, max_iter, fallback); NULL: ls_mixed_opts_init */
    ls_mixed_result *mixed_result; /**< out, policy mixed: what ls_dsgesv did (history,
                                        fallback, inner iterations); a stack's last system
                                        solved (its first failure, if any) */
    const ls_iter_options *iter;   /**< CSR Krylov settings: with a named Krylov method used
                                        as given (method replaced by the name); under auto the
                                        planner picks method, preconditioner (unless
                                        sparse->fixed_precond) and CG's cap (unless
                                        sparse->fixed_max_iter), the rest as given. NULL:
                                        GMRES(30), ILU(0), equilibrated, ls_options' rtol and
                                        max_iter. B holds the last iterate when a Krylov
                                        method does not converge */
    const ls_sparse_opts *sparse;  /**< CSR auto's budgets and choices; NULL: defaults */
    ls_sparse_result *sparse_result; /**< out, CSR: what ran last */
} ls_problem;

/** Zero *p and set the defaults: dense, FP64, host, column-major, policy and method auto. */
LS_API void ls_problem_init(ls_problem *p);

/**
 * Solve the problem on ctx (NULL: the CPU), on the path the planner picks.
 * Options (ls_options, NULL: defaults) mean what they mean to ls_solve;
 * opt->method is read only when problem->method is NULL. The report says
 * the path and why, the times, GFLOP/s and, for host problems with
 * opt->check, the scaled residual in the working precision (FP64 for mixed).
 * @return as ls_solve: 0; -i for an illegal field (the message names it);
 *         k > 0 singular (a stack: the first singular system's column, its
 *         index in rep->index; the other systems are still solved);
 *         LS_INACCURATE; LS_NOT_CONVERGED; LS_BREAKDOWN; LS_EUNSUPPORTED when
 *         no path of the table fits (the message names what is missing);
 *         LS_EUNAVAIL / LS_EDEVMEM / LS_EDEVICE / LS_ENOMEM ...
 */
LS_API int ls_solve_problem(ls_context *ctx, const ls_options *opt, ls_problem *problem,
                            ls_report *rep);

/** The planner's table: number of paths, and each one's name and description. */
LS_API int ls_path_count(void);
LS_API const char *ls_path_name(int i);
LS_API const char *ls_path_description(int i);

#ifdef __cplusplus
}
#endif
#endif /* LINSOLVE_H */
