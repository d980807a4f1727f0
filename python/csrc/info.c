/* linsolve._core.info: what each backend says about itself, and the text
 * of ls_print_info, for linsolve.info(). */
#include "lsx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PyObject *backend_entry(ls_backend_kind kind)
{
    ls_context *ctx = NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = ls_context_create(&ctx, kind, -1);
    Py_END_ALLOW_THREADS
    const char *err = ctx ? ls_context_error(ctx) : "";
    PyObject *d = Py_BuildValue(
        "{s:s,s:O,s:i,s:s,s:s,s:s,s:s}", "name", ls_backend_name(kind), "available",
        st == 0 ? Py_True : Py_False, "status", st, "backend",
        st == 0 ? ls_backend_name(ls_context_backend(ctx)) : ls_backend_name(kind), "device",
        st == 0 ? ls_context_device_name(ctx) : "", "note", ctx ? ls_context_note(ctx) : "",
        "error", st == 0 ? "" : (err && err[0] ? err : ls_strerror(st)));
    ls_context_destroy(ctx);
    return d;
}

static PyObject *print_info_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    ls_print_info(f);
    Py_END_ALLOW_THREADS
    fclose(f);
    PyObject *s = PyUnicode_DecodeUTF8(buf ? buf : "", (Py_ssize_t)len, "replace");
    free(buf);
    return s;
}

PyObject *lsx_py_info(PyObject *self, PyObject *args)
{
    PyObject *backends = PyList_New(0);
    if (!backends)
        return NULL;
    /* every kind of the library's list (src/core/names.c), auto first */
    for (int k = LS_BACKEND_AUTO; k < LS_BACKEND_COUNT_; k++) {
        PyObject *e = backend_entry((ls_backend_kind)k);
        if (!e || PyList_Append(backends, e)) {
            Py_XDECREF(e);
            Py_DECREF(backends);
            return NULL;
        }
        Py_DECREF(e);
    }
    char lapack[512] = "";
    if (ls_lapack_library(lapack, sizeof lapack))
        lapack[sizeof lapack - 1] = '\0';
    return Py_BuildValue("{s:(iii),s:N,s:s,s:N}", "version", LS_VERSION_MAJOR, LS_VERSION_MINOR,
                         LS_VERSION_PATCH, "backends", backends, "lapack", lapack, "text",
                         print_info_text());
}
