/* linsolve._core.lu_factor / lu_solve: ls_?getrf and ls_?getrs over a
 * stack, in the precision of the output array, GIL released. Pivots cross
 * the boundary 0-based (SciPy's convention) and are checked before getrs
 * reads them, since a bad pivot would send LAPACK out of bounds. As SciPy,
 * check_finite scans a (lu_factor) and b (lu_solve), never the factors:
 * scanning an n x n lu on every solve cost more than the O(n^2) solve. */
#include "lsx.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct lu_job {
    lsx_arr a, lu, piv, info, b, out;
    Py_ssize_t count;
    int m, n, k;
    char trans;
    int check_finite;
    int scan_diagonal; /* lu_solve: look for an exactly zero U(i,i) first */
    lsx_ctx *ctx;
    int status;      /* first failure */
    Py_ssize_t index;
    char message[256];
    int nomem;
} lu_job;

static void fail(lu_job *j, int st, Py_ssize_t i, const char *msg)
{
    j->status = st;
    j->index = i;
    snprintf(j->message, sizeof j->message, "%s", msg);
}

static int getrf(char fmt, int m, int n, void *A, int lda, int *ipiv, int *info, ls_context *c)
{
    return fmt == 'd' ? ls_dgetrf(m, n, (double *)A, lda, ipiv, info, c)
                      : ls_sgetrf(m, n, (float *)A, lda, ipiv, info, c);
}

static int getrs(char fmt, char t, int n, int k, const void *A, int lda, const int *ipiv,
                 void *B, int ldb, int *info, ls_context *c)
{
    return fmt == 'd' ? ls_dgetrs(t, n, k, (const double *)A, lda, ipiv, (double *)B, ldb, info, c)
                      : ls_sgetrs(t, n, k, (const float *)A, lda, ipiv, (float *)B, ldb, info, c);
}

/* Copy a stack element into column-major w (w NULL: only check it), and
 * refuse NaN and Inf when check is set. */
static int load(lu_job *j, const lsx_arr *src, Py_ssize_t i, int rows, int cols, char *w,
                char wfmt, int ldw, const char *name, int check)
{
    int bi = 0, bj = 0;
    int es = wfmt == 'd' ? 8 : 4;
    if (lsx_copy(rows, cols, lsx_arr_at(src, i), src->fmt, lsx_rstride(src), lsx_cstride(src), w,
                 wfmt, es, (Py_ssize_t)ldw * es, check, &bi, &bj)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s(%d,%d) is not finite", name, bi + 1, bj + 1);
        fail(j, LS_ENONFINITE, i, msg);
        return -1;
    }
    return 0;
}

/* A row-major matrix (row stride rs bytes, contiguous rows) of w's type into
 * column-major w, in 32 x 32 tiles so that both sides stay in cache, and
 * checked for NaN/Inf on the way: one pass where NumPy's transposing copy
 * followed by a scan took two. 1 and (row, column) at a non-finite entry. */
#define LU_TILE 32
#define LU_TRANSPOSE_BODY(T)                                                           \
    for (int j0 = 0; j0 < n; j0 += LU_TILE)                                            \
        for (int i0 = 0; i0 < m; i0 += LU_TILE) {                                      \
            int i1 = i0 + LU_TILE < m ? i0 + LU_TILE : m;                              \
            int j1 = j0 + LU_TILE < n ? j0 + LU_TILE : n;                              \
            for (int i = i0; i < i1; i++) {                                            \
                const T *row = (const T *)(src + (Py_ssize_t)i * rs);                  \
                T *col = (T *)w + i;                                                   \
                for (int c = j0; c < j1; c++) {                                        \
                    T v = row[c];                                                      \
                    if (check && !isfinite(v)) {                                       \
                        *bi = i;                                                       \
                        *bj = c;                                                       \
                        return 1;                                                      \
                    }                                                                  \
                    col[(size_t)c * (size_t)ldw] = v;                                  \
                }                                                                      \
            }                                                                          \
        }                                                                              \
    return 0

static int transpose_in(int m, int n, const char *src, Py_ssize_t rs, char f, char *w, int ldw,
                        int check, int *bi, int *bj)
{
    if (f == 'd') {
        LU_TRANSPOSE_BODY(double);
    } else {
        LU_TRANSPOSE_BODY(float);
    }
}

/* Does element i of a lie in row-major order, aligned, in w's type? */
static int row_major(const lu_job *j, Py_ssize_t i, char f, int es)
{
    Py_ssize_t rs = lsx_rstride(&j->a);
    return j->a.fmt == f && j->n > 1 && lsx_cstride(&j->a) == es && rs >= (Py_ssize_t)j->n * es &&
           rs % es == 0 && (uintptr_t)lsx_arr_at(&j->a, i) % (uintptr_t)es == 0;
}

static void run_factor(lu_job *j)
{
    char f = j->lu.fmt;
    int es = j->lu.esize, mn = j->m < j->n ? j->m : j->n;
    int ld = lsx_arr_ld(&j->lu, f);
    int ldw = ld ? ld : (j->m > 1 ? j->m : 1);
    char *scratch = ld ? NULL : malloc((size_t)es * (size_t)ldw * (size_t)j->n);
    int *ipiv = malloc(sizeof(int) * (size_t)(mn > 0 ? mn : 1));
    if ((!ld && !scratch) || !ipiv) {
        j->nomem = 1;
        goto out;
    }
    for (Py_ssize_t i = 0; i < j->count; i++) {
        char *w = ld ? lsx_arr_at(&j->lu, i) : scratch;
        /* a factored in place (Python's column-major copy): only checked */
        int in_place = w == lsx_arr_at(&j->a, i) && j->a.fmt == f &&
                       lsx_rstride(&j->a) == es && lsx_cstride(&j->a) == (Py_ssize_t)ldw * es;
        int bi = 0, bj = 0;
        if (!in_place && row_major(j, i, f, es)) {
            if (transpose_in(j->m, j->n, lsx_arr_at(&j->a, i), lsx_rstride(&j->a), f, w, ldw,
                             j->check_finite, &bi, &bj)) {
                char msg[128];
                snprintf(msg, sizeof msg, "a(%d,%d) is not finite", bi + 1, bj + 1);
                fail(j, LS_ENONFINITE, i, msg);
                break;
            }
        } else if (in_place ? j->check_finite && load(j, &j->a, i, j->m, j->n, NULL, f, ldw, "a", 1)
                            : load(j, &j->a, i, j->m, j->n, w, f, ldw, "a", j->check_finite))
            break;
        int info = 0;
        int st = getrf(f, j->m, j->n, w, ldw, ipiv, &info, j->ctx->ctx);
        if (st < 0) {
            fail(j, st, i, ls_context_error(j->ctx->ctx));
            break;
        }
        if (!ld)
            lsx_copy(j->m, j->n, w, f, es, (Py_ssize_t)ldw * es, lsx_arr_at(&j->lu, i), f,
                     lsx_rstride(&j->lu), lsx_cstride(&j->lu), 0, &bi, &bj);
        char *p = lsx_arr_at(&j->piv, i);
        for (int r = 0; r < mn; r++) {
            int v = ipiv[r] - 1;
            memcpy(p + r * lsx_rstride(&j->piv), &v, sizeof v);
        }
        memcpy(lsx_arr_at(&j->info, i), &info, sizeof info);
    }
out:
    free(scratch);
    free(ipiv);
}

/* 0-based pivots in, 1-based out; refuses any outside [0, n). */
static int load_piv(lu_job *j, Py_ssize_t i, int *ipiv)
{
    const char *p = lsx_arr_at(&j->piv, i);
    for (int r = 0; r < j->n; r++) {
        int v;
        memcpy(&v, p + r * lsx_rstride(&j->piv), sizeof v);
        if (v < 0 || v >= j->n) {
            char msg[128];
            snprintf(msg, sizeof msg, "piv[%d] = %d is outside [0, %d)", r, v, j->n);
            fail(j, LS_EINVAL, i, msg);
            return -1;
        }
        ipiv[r] = v + 1;
    }
    return 0;
}

/* An exactly zero U(c,c) would make getrs divide by zero: say which. */
static int zero_pivot(const char *A, char f, int n, int lda)
{
    for (int c = 0; c < n; c++) {
        size_t at = (size_t)c * (size_t)lda + (size_t)c;
        if (f == 'd' ? ((const double *)A)[at] == 0.0 : ((const float *)A)[at] == 0.0f)
            return c + 1;
    }
    return 0;
}

static void run_solve(lu_job *j)
{
    char f = j->out.fmt;
    int es = j->out.esize, n1 = j->n > 1 ? j->n : 1;
    int lda = lsx_arr_ld(&j->lu, f), ldx = lsx_arr_ld(&j->out, f);
    char *sa = lda ? NULL : malloc((size_t)es * (size_t)j->n * (size_t)j->n);
    char *sx = ldx ? NULL : malloc((size_t)es * (size_t)j->n * (size_t)j->k);
    int *ipiv = malloc(sizeof(int) * (size_t)n1);
    if ((!lda && !sa) || (!ldx && !sx) || !ipiv) {
        j->nomem = 1;
        goto out;
    }
    for (Py_ssize_t i = 0; i < j->count; i++) {
        const char *A = lda ? lsx_arr_at(&j->lu, i) : sa;
        char *X = ldx ? lsx_arr_at(&j->out, i) : sx;
        int la = lda ? lda : n1, lx = ldx ? ldx : n1;
        if ((!lda && load(j, &j->lu, i, j->n, j->n, sa, f, la, "lu", 0)) ||
            load_piv(j, i, ipiv) || load(j, &j->b, i, j->n, j->k, X, f, lx, "b", j->check_finite))
            break;
        int z = j->scan_diagonal ? zero_pivot(A, f, j->n, la) : 0;
        if (z) {
            char msg[128];
            snprintf(msg, sizeof msg, "matrix is singular: U(%d,%d) is exactly zero", z, z);
            fail(j, z, i, msg);
            break;
        }
        int info = 0;
        int st = getrs(f, j->trans, j->n, j->k, A, la, ipiv, X, lx, &info, j->ctx->ctx);
        if (st) {
            fail(j, st, i, ls_context_error(j->ctx->ctx));
            break;
        }
        int bi, bj;
        if (!ldx)
            lsx_copy(j->n, j->k, X, f, es, (Py_ssize_t)lx * es, lsx_arr_at(&j->out, i), f,
                     lsx_rstride(&j->out), lsx_cstride(&j->out), 0, &bi, &bj);
    }
out:
    free(sa);
    free(sx);
    free(ipiv);
}

static PyObject *finish(lu_job *j, lsx_arr **arrs, int count)
{
    PyObject *r = NULL;
    if (j->nomem)
        PyErr_NoMemory();
    else
        r = lsx_outcome(j->status, j->index, j->message, "");
    for (int i = 0; i < count; i++)
        lsx_arr_release(arrs[i]);
    return r;
}

static int start(lu_job *j, PyObject *backend)
{
    ls_backend_kind kind;
    if (lsx_parse_backend(backend, &kind))
        return -1;
    j->ctx = lsx_context_get(kind, -1);
    return j->ctx ? 0 : -1;
}

/* lu_factor(a, lu, piv, info, backend, check_finite) -> (status, index, message, where) */
PyObject *lsx_py_lu_factor(PyObject *self, PyObject *args)
{
    PyObject *oa, *olu, *opiv, *oinfo, *backend;
    lu_job j;
    memset(&j, 0, sizeof j);
    j.index = -1;
    if (!PyArg_ParseTuple(args, "OOOOOp", &oa, &olu, &opiv, &oinfo, &backend, &j.check_finite))
        return NULL;
    lsx_arr *all[4] = {&j.a, &j.lu, &j.piv, &j.info};
    if (lsx_arr_get(&j.a, oa, "a", "df", 0, 2) || lsx_arr_get(&j.lu, olu, "lu", "df", 1, 2) ||
        lsx_arr_get(&j.piv, opiv, "piv", "i", 1, 1) || lsx_arr_get(&j.info, oinfo, "info", "i", 1, 0) ||
        lsx_batch_check(all, 4, &j.count))
        return finish(&j, all, 4);
    j.m = (int)lsx_rows(&j.a);
    j.n = (int)lsx_cols(&j.a);
    int mn = j.m < j.n ? j.m : j.n;
    if (lsx_rows(&j.lu) != j.m || lsx_cols(&j.lu) != j.n || lsx_rows(&j.piv) != mn) {
        PyErr_SetString(PyExc_ValueError, "lu must be shaped as a, piv (..., min(m, n))");
        return finish(&j, all, 4);
    }
    if (j.count > 0 && mn > 0) {
        if (start(&j, backend))
            return finish(&j, all, 4);
        Py_BEGIN_ALLOW_THREADS
        lsx_context_lock(j.ctx);
        run_factor(&j);
        lsx_context_unlock(j.ctx);
        Py_END_ALLOW_THREADS
    }
    return finish(&j, all, 4);
}

/* lu_solve(lu, piv, b, out, trans, backend, check_finite, scan_diagonal)
 *   -> (status, index, message, where) */
PyObject *lsx_py_lu_solve(PyObject *self, PyObject *args)
{
    PyObject *olu, *opiv, *ob, *oo, *backend;
    int trans;
    lu_job j;
    memset(&j, 0, sizeof j);
    j.index = -1;
    if (!PyArg_ParseTuple(args, "OOOOiOpp", &olu, &opiv, &ob, &oo, &trans, &backend,
                          &j.check_finite, &j.scan_diagonal))
        return NULL;
    if (trans < 0 || trans > 2) {
        PyErr_Format(PyExc_ValueError, "trans must be 0, 1 or 2, not %d", trans);
        return NULL;
    }
    j.trans = "NTC"[trans];
    lsx_arr *all[4] = {&j.lu, &j.piv, &j.b, &j.out};
    if (lsx_arr_get(&j.lu, olu, "lu", "df", 0, 2) || lsx_arr_get(&j.piv, opiv, "piv", "i", 0, 1) ||
        lsx_arr_get(&j.b, ob, "b", "df", 0, 2) || lsx_arr_get(&j.out, oo, "out", "df", 1, 2) ||
        lsx_batch_check(all, 4, &j.count))
        return finish(&j, all, 4);
    j.n = (int)lsx_rows(&j.lu);
    j.k = (int)lsx_cols(&j.b);
    if (lsx_cols(&j.lu) != j.n || lsx_rows(&j.piv) != j.n || lsx_rows(&j.b) != j.n ||
        lsx_rows(&j.out) != j.n || lsx_cols(&j.out) != j.k) {
        PyErr_SetString(PyExc_ValueError, "lu must be (..., n, n), piv (..., n), b and out (..., n, k)");
        return finish(&j, all, 4);
    }
    if (j.count > 0 && j.n > 0 && j.k > 0) {
        if (start(&j, backend))
            return finish(&j, all, 4);
        Py_BEGIN_ALLOW_THREADS
        lsx_context_lock(j.ctx);
        run_solve(&j);
        lsx_context_unlock(j.ctx);
        Py_END_ALLOW_THREADS
    }
    return finish(&j, all, 4);
}
