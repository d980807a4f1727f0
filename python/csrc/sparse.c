/* linsolve._core.solve_csr: a scipy.sparse matrix, already CSR with int64
 * indices and float64 values, through the planner as LS_SHAPE_CSR (sparse
 * LU by default, a Krylov method by name), the GIL released. */
#include "lsx.h"

#include <stdint.h>
#include <string.h>

static int contiguous(const Py_buffer *v, Py_ssize_t items, Py_ssize_t itemsize)
{
    return v->len == items * itemsize && v->itemsize == itemsize &&
           PyBuffer_IsContiguous(v, 'C');
}

/* solve_csr(indptr, indices, data, n, x, method, backend, check, want_report)
 *   -> (status, index, report dict or None)
 * x: writable column-major float64 (n, k), B on entry, X on return. */
PyObject *lsx_py_solve_csr(PyObject *self, PyObject *args)
{
    PyObject *backend, *ox;
    const char *method;
    int n, check, want;
    Py_buffer ptr, idx, val;
    if (!PyArg_ParseTuple(args, "y*y*y*iOsOpp", &ptr, &idx, &val, &n, &ox, &method, &backend,
                          &check, &want))
        return NULL;
    PyObject *result = NULL;
    lsx_arr x;
    memset(&x, 0, sizeof x);
    ls_backend_kind kind;
    Py_ssize_t nnz = val.len / (Py_ssize_t)sizeof(double);
    if (n < 0 || !contiguous(&ptr, (Py_ssize_t)n + 1, 8) || !contiguous(&idx, nnz, 8) ||
        !contiguous(&val, nnz, 8)) {
        PyErr_SetString(PyExc_ValueError,
                        "solve_csr: indptr (n + 1), indices and data (nnz) must be contiguous "
                        "int64, int64 and float64");
        goto done;
    }
    if (lsx_parse_backend(backend, &kind) || lsx_arr_get(&x, ox, "x", "d", 1, 2))
        goto done;
    int k = (int)lsx_cols(&x), ldb = n > 1 ? n : 1;
    if (x.nbatch || lsx_rows(&x) != n || (n > 1 && lsx_rstride(&x) != 8) ||
        (k > 1 && lsx_cstride(&x) != (Py_ssize_t)ldb * 8)) {
        PyErr_SetString(PyExc_ValueError, "solve_csr: x must be (n, k), column-major, compact");
        goto done;
    }
    lsx_ctx *c = lsx_context_get(kind, -1);
    if (!c)
        goto done;
    ls_csr csr = {n, n, (int64_t)nnz, (int64_t *)ptr.buf, (int64_t *)idx.buf, (double *)val.buf};
    ls_problem p;
    ls_problem_init(&p);
    p.shape = LS_SHAPE_CSR;
    p.n = n;
    p.nrhs = k;
    p.B = x.view.buf;
    p.ldb = ldb;
    p.csr = &csr;
    p.method = method;
    ls_options opt;
    ls_options_init(&opt);
    opt.check = check;
    ls_report rep;
    int st;
    Py_BEGIN_ALLOW_THREADS
    lsx_context_lock(c);
    st = ls_solve_problem(c->ctx, &opt, &p, &rep);
    lsx_context_unlock(c);
    Py_END_ALLOW_THREADS
    PyObject *d = Py_None;
    if (st || want)
        d = lsx_report_dict(&rep, st);
    else
        Py_INCREF(d);
    if (d)
        result = Py_BuildValue("(iLN)", st, (long long)rep.index, d);
    ls_report_clear(&rep);
done:
    lsx_arr_release(&x);
    PyBuffer_Release(&ptr);
    PyBuffer_Release(&idx);
    PyBuffer_Release(&val);
    return result;
}
