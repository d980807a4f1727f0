/* Internal declarations of the linsolve._core extension (prefix lsx_).
 * The extension sees liblinsolve through its public header only. */
#ifndef LSX_H
#define LSX_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <linsolve.h>

/* ------------------------------------------------------------ contexts */
/* One cached context per (backend, device): creating one can take long
 * (plugin loading, OpenCL platform start-up), and a context is not safe
 * for two threads at once, hence its lock, taken with the GIL released. */
typedef struct lsx_ctx {
    ls_backend_kind kind; /* as asked (may be AUTO) */
    int device;
    ls_context *ctx;
    PyThread_type_lock lock;
    void *scratch; /* kept between calls (fresh pages cost more than the copy into them) */
    size_t scratch_bytes;
} lsx_ctx;

/* Needs the GIL. On failure sets a Python exception whose args carry the
 * status and the library's message, and returns NULL. */
lsx_ctx *lsx_context_get(ls_backend_kind kind, int device);
void lsx_context_lock(lsx_ctx *c);   /* without the GIL */
void lsx_context_unlock(lsx_ctx *c);
void lsx_context_clear_all(void);
/* Scratch of at least `bytes` owned by the context (its lock held), NULL
 * when out of memory; reused by the next call of the same context. */
void *lsx_context_scratch(lsx_ctx *c, size_t bytes);
int lsx_parse_backend(PyObject *name, ls_backend_kind *out);

/* ------------------------------------------------------------ arrays */
/* A strided array seen through the buffer protocol: a stack of matrices
 * (nbatch leading dimensions, then rows and columns) or of vectors. */
typedef struct lsx_arr {
    Py_buffer view;
    int held;
    char fmt;     /* 'd', 'f' or 'i' */
    int esize;    /* bytes per element */
    int nbatch;   /* leading batch dimensions */
} lsx_arr;

/* Take obj's buffer; fmt must be one of accept ("df", "i", ...), native. */
int lsx_arr_get(lsx_arr *a, PyObject *obj, const char *name, const char *accept, int writable,
                int core_dims);
void lsx_arr_release(lsx_arr *a);
/* Number of matrices in the stack; the batch shapes of all arrays must agree. */
int lsx_batch_check(lsx_arr **arrs, int count, Py_ssize_t *total);
/* Address of stack element idx (flat, C order over the batch dims). */
char *lsx_arr_at(const lsx_arr *a, Py_ssize_t idx);
Py_ssize_t lsx_rows(const lsx_arr *a);
Py_ssize_t lsx_cols(const lsx_arr *a); /* 1 for a vector stack */
Py_ssize_t lsx_rstride(const lsx_arr *a);
Py_ssize_t lsx_cstride(const lsx_arr *a);
/* Leading dimension when the matrices are column-major in memory of the
 * element type fmt (rows contiguous), else 0: then a copy is needed. */
int lsx_arr_ld(const lsx_arr *a, char fmt);
/* Do all stack elements share one matrix (all batch strides zero)? */
int lsx_arr_batch_shared(const lsx_arr *a);

/* Copy an m x n matrix between strided float/double storage, converting.
 * Strides in bytes. With check, stops at the first non-finite value read,
 * returns 1 and its 0-based position; otherwise returns 0. dst NULL: only
 * check. */
int lsx_copy(int m, int n, const char *src, char sfmt, Py_ssize_t srs, Py_ssize_t scs, char *dst,
             char dfmt, Py_ssize_t drs, Py_ssize_t dcs, int check, int *bi, int *bj);

/* One matrix of a strided stack, as lsx_pack reads it (strides in bytes). */
typedef struct lsx_pack_src {
    const char *base;
    char fmt; /* 'd' or 'f' */
    int esize;
    int rows, cols;
    Py_ssize_t rs, cs;
} lsx_pack_src;

/* Copy one matrix into dst (type dfmt, strides drs/dcs in bytes), quickly
 * when both sides run the same way or the copy only transposes. With
 * check, stops at the first non-finite value: returns 1 and its 0-based
 * (row, column). dst NULL: only check. */
int lsx_pack(const lsx_pack_src *s, char *dst, char dfmt, Py_ssize_t drs, Py_ssize_t dcs,
             int check, int *bi, int *bj);

/* Position of the first NaN or Inf of count contiguous elements, or -1. */
Py_ssize_t lsx_scan(const char *p, char fmt, Py_ssize_t count);
/* Copy count contiguous elements and find the first NaN or Inf among them
 * (-1: none) in one pass over memory. */
Py_ssize_t lsx_copy_scan(char *dst, const char *src, char fmt, Py_ssize_t count);
/* ||B - A X||inf / (n ||A||inf ||X||inf eps) of one system (check.c). */
double lsx_residual(const lsx_pack_src *A, const lsx_pack_src *B, const lsx_pack_src *X,
                    double eps);

/* Stack element idx of x, where idx counts over the batch shape of full
 * (C order) and x's batch shape broadcasts to it (fewer or size-1 dims). */
char *lsx_arr_at_bcast(const lsx_arr *x, const lsx_arr *full, Py_ssize_t idx);
/* Does x broadcast to full's batch shape? 0 yes; -1 with ValueError set. */
int lsx_bcast_check(const lsx_arr *x, const lsx_arr *full, const char *name);
/* 1 when element idx of x lies at base + idx * (*step) bytes for every idx
 * (step 0: one matrix shared by the whole stack), else 0. */
int lsx_uniform_stride(const lsx_arr *x, const lsx_arr *full, Py_ssize_t *step);

/* ------------------------------------------------------------ results */
/* Sum of the reports of a stack: times, flops and bytes add up; the
 * residual and iterations are the worst; the message is the worst
 * system's (or the failing one's). */
typedef struct lsx_summary {
    ls_report rep;       /* the aggregate (history owned by the summary) */
    Py_ssize_t batch;    /* systems solved or tried */
    Py_ssize_t index;    /* the system the message speaks of (-1: none) */
    int status;
    int have_residual;
} lsx_summary;

void lsx_summary_init(lsx_summary *s);
void lsx_summary_add(lsx_summary *s, const ls_report *r, int status, Py_ssize_t idx);
void lsx_summary_free(lsx_summary *s);
PyObject *lsx_summary_dict(const lsx_summary *s);

/* One report of ls_solve_problem as a dict: lsx_summary_dict's keys and the
 * planner's path and why; index is the flat stack index (-1: none). */
PyObject *lsx_report_dict(const ls_report *r, int status);

/* Systems per chunk of a stack solve (Ctrl-C is checked between chunks). */
extern Py_ssize_t lsx_stack_chunk;

/* (status, index, message, where): what Python raises from. */
PyObject *lsx_outcome(int status, Py_ssize_t index, const char *message, const char *where);

/* ------------------------------------------------------------ entry points */
PyObject *lsx_py_solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *lsx_py_solve_csr(PyObject *self, PyObject *args);
PyObject *lsx_py_stack_chunk(PyObject *self, PyObject *args);
PyObject *lsx_py_lu_factor(PyObject *self, PyObject *args);
PyObject *lsx_py_lu_solve(PyObject *self, PyObject *args);
PyObject *lsx_py_info(PyObject *self, PyObject *args);
PyObject *lsx_py_backend_of(PyObject *self, PyObject *arg);
PyObject *lsx_py_device_api(PyObject *self, PyObject *args);
PyObject *lsx_py_device_run(PyObject *self, PyObject *args);
PyObject *lsx_py_device_solve(PyObject *self, PyObject *args);
PyObject *lsx_py_device_check(PyObject *self, PyObject *args);
PyObject *lsx_py_csr_solve_on(PyObject *self, PyObject *args);

/* device.c: the library's routines looked up at run time (see there). */
int lsx_device_stream(ls_context *ctx, void *stream);
/* One strided stack of device matrices, as ls_check_batched_gpu takes it. */
typedef struct lsx_strided {
    ls_layout layout;
    const void *ptr;
    int ld;
    long long stride;
} lsx_strided;
/* ls_check_batched_gpu (A, B, X in m[0..2]); LS_EUNAVAIL without it. */
int lsx_check_batched(ls_precision prec, int n, int nrhs, const lsx_strided m[3], int batch,
                      double *dout, ls_context *ctx);

#endif
