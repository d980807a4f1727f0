/* Strided stacks of matrices through the buffer protocol, and the one copy
 * routine that turns any layout into the column-major storage the library
 * takes (and back). No NumPy headers: the package builds without NumPy. */
#include "lsx.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Native element formats only: Python converts anything else first. */
static char native_format(const char *f)
{
    if (!f)
        return 'B';
    if (f[0] == '@' || f[0] == '=')
        f++;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    else if (f[0] == '<')
        f++;
#endif
    if ((f[0] == 'd' || f[0] == 'f' || f[0] == 'i') && f[1] == '\0')
        return f[0];
    return '?';
}

int lsx_arr_get(lsx_arr *a, PyObject *obj, const char *name, const char *accept, int writable,
                int core_dims)
{
    memset(a, 0, sizeof *a);
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &a->view, flags) < 0)
        return -1;
    a->held = 1;
    a->fmt = native_format(a->view.format);
    if (!strchr(accept, a->fmt)) {
        PyErr_Format(PyExc_TypeError, "%s: element format '%s' is not one of '%s' (native)", name,
                     a->view.format ? a->view.format : "B", accept);
        lsx_arr_release(a);
        return -1;
    }
    a->esize = a->fmt == 'd' ? 8 : 4;
    if (a->view.itemsize != a->esize || a->view.ndim < core_dims) {
        PyErr_Format(PyExc_ValueError, "%s: expected %d core dimensions of %d-byte items", name,
                     core_dims, a->esize);
        lsx_arr_release(a);
        return -1;
    }
    a->nbatch = a->view.ndim - core_dims;
    for (int d = 0; d < a->view.ndim; d++)
        if (a->view.shape[d] > INT_MAX) {
            PyErr_Format(PyExc_ValueError, "%s: dimension %d is too large (%zd > %d)", name, d,
                         a->view.shape[d], INT_MAX);
            lsx_arr_release(a);
            return -1;
        }
    return 0;
}

void lsx_arr_release(lsx_arr *a)
{
    if (a->held)
        PyBuffer_Release(&a->view);
    a->held = 0;
}

int lsx_batch_check(lsx_arr **arrs, int count, Py_ssize_t *total)
{
    const lsx_arr *first = arrs[0];
    Py_ssize_t t = 1;
    for (int d = 0; d < first->nbatch; d++)
        t *= first->view.shape[d];
    for (int k = 1; k < count; k++) {
        const lsx_arr *a = arrs[k];
        int same = a->nbatch == first->nbatch;
        for (int d = 0; same && d < first->nbatch; d++)
            same = a->view.shape[d] == first->view.shape[d];
        if (!same) {
            PyErr_SetString(PyExc_ValueError, "batch shapes differ (broadcast them first)");
            return -1;
        }
    }
    *total = t;
    return 0;
}

char *lsx_arr_at(const lsx_arr *a, Py_ssize_t idx)
{
    char *p = (char *)a->view.buf;
    for (int d = a->nbatch - 1; d >= 0; d--) {
        Py_ssize_t len = a->view.shape[d];
        p += (idx % len) * a->view.strides[d];
        idx /= len;
    }
    return p;
}

Py_ssize_t lsx_rows(const lsx_arr *a)
{
    return a->view.ndim > a->nbatch ? a->view.shape[a->nbatch] : 1;
}

Py_ssize_t lsx_cols(const lsx_arr *a)
{
    return a->view.ndim > a->nbatch + 1 ? a->view.shape[a->nbatch + 1] : 1;
}

Py_ssize_t lsx_rstride(const lsx_arr *a)
{
    return a->view.ndim > a->nbatch ? a->view.strides[a->nbatch] : a->esize;
}

Py_ssize_t lsx_cstride(const lsx_arr *a)
{
    return a->view.ndim > a->nbatch + 1 ? a->view.strides[a->nbatch + 1]
                                        : lsx_rows(a) * a->esize;
}

int lsx_arr_ld(const lsx_arr *a, char fmt)
{
    Py_ssize_t m = lsx_rows(a), n = lsx_cols(a);
    /* The library reads typed elements: the buffer must be aligned too. */
    if (a->fmt != fmt || (uintptr_t)a->view.buf % (uintptr_t)a->esize)
        return 0;
    for (int d = 0; d < a->nbatch; d++)
        if (a->view.strides[d] % a->esize)
            return 0;
    if (m > 1 && lsx_rstride(a) != a->esize)
        return 0;
    if (n <= 1) /* one column: any leading dimension >= m will do */
        return m > 1 ? (int)m : 1;
    Py_ssize_t cs = lsx_cstride(a);
    if (cs <= 0 || cs % a->esize || cs / a->esize < (m > 1 ? m : 1) || cs / a->esize > INT_MAX)
        return 0;
    return (int)(cs / a->esize);
}

int lsx_arr_batch_shared(const lsx_arr *a)
{
    for (int d = 0; d < a->nbatch; d++)
        if (a->view.strides[d] != 0 && a->view.shape[d] > 1)
            return 0;
    return 1;
}

/* One body for the four type pairs; memcpy loads keep unaligned input safe. */
#define LSX_COPY_BODY(ST, DT)                                                     \
    for (int j = 0; j < n; j++) {                                                 \
        const char *s = src + j * scs;                                            \
        char *d = dst ? dst + j * dcs : NULL;                                     \
        for (int i = 0; i < m; i++) {                                             \
            ST v;                                                                 \
            memcpy(&v, s + i * srs, sizeof v);                                    \
            if (check && !isfinite(v)) {                                          \
                *bi = i;                                                          \
                *bj = j;                                                          \
                return 1;                                                         \
            }                                                                     \
            if (d) {                                                              \
                DT w = (DT)v;                                                     \
                memcpy(d + i * drs, &w, sizeof w);                                \
            }                                                                     \
        }                                                                         \
    }                                                                             \
    return 0

int lsx_copy(int m, int n, const char *src, char sfmt, Py_ssize_t srs, Py_ssize_t scs, char *dst,
             char dfmt, Py_ssize_t drs, Py_ssize_t dcs, int check, int *bi, int *bj)
{
    if (src == dst && sfmt == dfmt && srs == drs && scs == dcs && !check)
        return 0; /* already in place */
    if (sfmt == 'd' && dfmt == 'd') {
        LSX_COPY_BODY(double, double);
    } else if (sfmt == 'f' && dfmt == 'd') {
        LSX_COPY_BODY(float, double);
    } else if (sfmt == 'd' && dfmt == 'f') {
        LSX_COPY_BODY(double, float);
    } else {
        LSX_COPY_BODY(float, float);
    }
}

/* x's batch dimension matching full's dimension d, or -1 when x has none
 * there or broadcasts along it (size 1). */
static int bcast_dim(const lsx_arr *x, const lsx_arr *full, int d)
{
    int xd = d - (full->nbatch - x->nbatch);
    return xd >= 0 && x->view.shape[xd] != 1 ? xd : -1;
}

char *lsx_arr_at_bcast(const lsx_arr *x, const lsx_arr *full, Py_ssize_t idx)
{
    char *p = (char *)x->view.buf;
    for (int d = full->nbatch - 1; d >= 0; d--) {
        Py_ssize_t len = full->view.shape[d];
        int xd = bcast_dim(x, full, d);
        if (xd >= 0)
            p += (idx % len) * x->view.strides[xd];
        idx /= len;
    }
    return p;
}

int lsx_bcast_check(const lsx_arr *x, const lsx_arr *full, const char *name)
{
    int ok = x->nbatch <= full->nbatch;
    for (int xd = 0; ok && xd < x->nbatch; xd++) {
        Py_ssize_t len = x->view.shape[xd];
        ok = len == 1 || len == full->view.shape[xd + full->nbatch - x->nbatch];
    }
    if (!ok)
        PyErr_Format(PyExc_ValueError, "%s: batch shape does not broadcast to the result's", name);
    return ok ? 0 : -1;
}

int lsx_uniform_stride(const lsx_arr *x, const lsx_arr *full, Py_ssize_t *step)
{
    Py_ssize_t s = 0, span = 1;
    int have = 0;
    for (int d = full->nbatch - 1; d >= 0; d--) {
        Py_ssize_t len = full->view.shape[d];
        if (len == 1)
            continue;
        int xd = bcast_dim(x, full, d);
        Py_ssize_t eff = xd >= 0 ? x->view.strides[xd] : 0;
        if (!have) {
            s = eff;
            have = 1;
        } else if (eff != s * span) {
            return 0;
        }
        span *= len;
    }
    *step = s;
    return 1;
}
