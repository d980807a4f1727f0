/* linsolve._core: the C half of the Python package. It moves data between
 * Python buffers and the library and reports statuses; choosing shapes,
 * dtypes and exception classes is left to the Python half (_api.py). */
#include "lsx.h"

/* Raised with (status, index, message, where) for a failure that has no
 * result to carry; linsolve turns it into the exception the status means. */
PyObject *lsx_error;

static PyObject *py_strerror(PyObject *self, PyObject *arg)
{
    long st = PyLong_AsLong(arg);
    if (st == -1 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(ls_strerror((int)st));
}

static PyObject *py_status_name(PyObject *self, PyObject *arg)
{
    long st = PyLong_AsLong(arg);
    if (st == -1 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(ls_status_name((int)st));
}

/* (name, description) of every method, in the library's order. */
static PyObject *py_methods(PyObject *self, PyObject *args)
{
    PyObject *l = PyList_New(LS_METHOD_COUNT_);
    for (int m = 0; l && m < LS_METHOD_COUNT_; m++) {
        PyObject *t = Py_BuildValue("(ss)", ls_method_name((ls_method)m),
                                    ls_method_description((ls_method)m));
        if (!t) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, m, t);
    }
    return l;
}

static PyMethodDef methods[] = {
    {"solve", (PyCFunction)(void (*)(void))lsx_py_solve, METH_FASTCALL,
     "solve(a, b, out, vector, flags, policy, method, backend) -> (status, index, report)"},
    {"solve_csr", lsx_py_solve_csr, METH_VARARGS,
     "solve_csr(indptr, indices, data, n, x, method, backend, check, want_report) -> "
     "(status, index, report)"},
    {"_stack_chunk", lsx_py_stack_chunk, METH_VARARGS,
     "_stack_chunk(systems=0) -> previous systems per chunk of a stack solve"},
    {"lu_factor", lsx_py_lu_factor, METH_VARARGS,
     "lu_factor(a, lu, piv, info, backend, check_finite) -> (status, index, message, where)"},
    {"lu_solve", lsx_py_lu_solve, METH_VARARGS,
     "lu_solve(lu, piv, b, out, trans, backend, check_finite) -> (status, index, message, where)"},
    {"info", lsx_py_info, METH_NOARGS, "info() -> dict"},
    {"backend_of", lsx_py_backend_of, METH_O, "backend_of(name) -> the backend in use for name"},
    {"device_api", lsx_py_device_api, METH_NOARGS,
     "device_api() -> None, or the first device-API symbol this liblinsolve lacks"},
    {"device_run", lsx_py_device_run, METH_VARARGS,
     "device_run(op, dtype, device, stream, n, nrhs, count, a, a_bs, lda, ipiv, b, b_bs, ldb, "
     "info, trans) -> (status, index, message, where)"},
    {"device_solve", lsx_py_device_solve, METH_VARARGS,
     "device_solve(dtype, device, stream, stack, layout, n, nrhs, batch, a, lda, stride_a, b, "
     "ldb, stride_b, info, policy, method, want_report) -> (status, index, t_total, gflops, "
     "residual, message, report or None)"},
    {"device_check", lsx_py_device_check, METH_VARARGS,
     "device_check(dtype, device, stream, n, nrhs, batch, layout_a, a, lda, stride_a, layout_b, "
     "b, ldb, stride_b, layout_x, x, ldx, stride_x, out) -> (status, message)"},
    {"csr_solve_on", lsx_py_csr_solve_on, METH_VARARGS,
     "csr_solve_on(backend, device, n, indptr, indices, data, b, nrhs, method, check) -> "
     "(status, index, report)"},
    {"strerror", py_strerror, METH_O, "strerror(status) -> str"},
    {"status_name", py_status_name, METH_O, "status_name(status) -> str"},
    {"methods", py_methods, METH_NOARGS, "methods() -> [(name, description)]"},
    {NULL, NULL, 0, NULL},
};

static void module_free(void *m)
{
    lsx_context_clear_all();
}

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "linsolve._core", "C half of the linsolve package.", -1, methods,
    NULL, NULL, NULL, module_free,
};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    lsx_error = PyErr_NewException("linsolve._core.Error", NULL, NULL);
    if (!lsx_error || PyModule_AddObject(m, "Error", lsx_error) < 0) {
        Py_XDECREF(lsx_error);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(lsx_error); /* one reference for the module, one for C */
    /* Every status of the library's one table, by name (OK, EINVAL, ...). */
#define LSX_ADD_STATUS_(name, code, text) || PyModule_AddIntConstant(m, #name, code) < 0
    if (PyModule_AddIntConstant(m, "POLICY_AUTO", LS_POLICY_AUTO) < 0 ||
        PyModule_AddIntConstant(m, "POLICY_DOUBLE", LS_POLICY_DOUBLE) < 0 ||
        PyModule_AddIntConstant(m, "POLICY_SINGLE", LS_POLICY_SINGLE) < 0 ||
        PyModule_AddIntConstant(m, "POLICY_MIXED", LS_POLICY_MIXED) < 0 ||
        PyModule_AddObject(m, "LIBRARY_VERSION",
                           Py_BuildValue("(iii)", LS_VERSION_MAJOR, LS_VERSION_MINOR,
                                         LS_VERSION_PATCH)) < 0
        LS_STATUS_MAP(LSX_ADD_STATUS_)) {
        Py_DECREF(m);
        return NULL;
    }
#undef LSX_ADD_STATUS_
    return m;
}
