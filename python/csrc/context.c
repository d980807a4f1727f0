/* Cached contexts, one per (backend, device) asked for. A context is made
 * once per process because making one may load plugins and start OpenCL;
 * its lock lets threads that released the GIL take turns on it. */
#include "lsx.h"

#include <stdlib.h>
#include <string.h>

#define LSX_MAX_CONTEXTS 32

static lsx_ctx cache[LSX_MAX_CONTEXTS];
static int cache_len;

extern PyObject *lsx_error; /* module.c */

lsx_ctx *lsx_context_get(ls_backend_kind kind, int device)
{
    for (int i = 0; i < cache_len; i++)
        if (cache[i].kind == kind && cache[i].device == device)
            return &cache[i];
    if (cache_len == LSX_MAX_CONTEXTS) {
        PyErr_SetString(PyExc_RuntimeError, "too many distinct (backend, device) contexts");
        return NULL;
    }
    ls_context *ctx = NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = ls_context_create(&ctx, kind, device);
    Py_END_ALLOW_THREADS
    if (st) {
        const char *why = ctx ? ls_context_error(ctx) : "";
        PyObject *args = Py_BuildValue("(insn)", st, (Py_ssize_t)-1,
                                       why && why[0] ? why : ls_strerror(st), (Py_ssize_t)0);
        ls_context_destroy(ctx);
        if (args) {
            PyErr_SetObject(lsx_error, args);
            Py_DECREF(args);
        }
        return NULL;
    }
    /* Another thread may have made the same one while the GIL was free. */
    for (int i = 0; i < cache_len; i++)
        if (cache[i].kind == kind && cache[i].device == device) {
            ls_context_destroy(ctx);
            return &cache[i];
        }
    PyThread_type_lock lock = PyThread_allocate_lock();
    if (!lock) {
        ls_context_destroy(ctx);
        PyErr_NoMemory();
        return NULL;
    }
    lsx_ctx *c = &cache[cache_len++];
    c->kind = kind;
    c->device = device;
    c->ctx = ctx;
    c->lock = lock;
    c->scratch = NULL;
    c->scratch_bytes = 0;
    return c;
}

void lsx_context_lock(lsx_ctx *c)
{
    PyThread_acquire_lock(c->lock, WAIT_LOCK);
}

void lsx_context_unlock(lsx_ctx *c)
{
    PyThread_release_lock(c->lock);
}

void *lsx_context_scratch(lsx_ctx *c, size_t bytes)
{
    if (bytes > c->scratch_bytes) {
        free(c->scratch);
        c->scratch = malloc(bytes);
        c->scratch_bytes = c->scratch ? bytes : 0;
    }
    return c->scratch;
}

void lsx_context_clear_all(void)
{
    for (int i = 0; i < cache_len; i++) {
        free(cache[i].scratch);
        ls_context_destroy(cache[i].ctx);
        PyThread_free_lock(cache[i].lock);
    }
    cache_len = 0;
}

int lsx_parse_backend(PyObject *name, ls_backend_kind *out)
{
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    if (s && ls_backend_parse(s, out) == 0)
        return 0;
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError,
                     "backend must be one of 'auto', 'cpu', 'cuda', 'opencl', not %R", name);
    return -1;
}

/* backend_of(name) -> the backend a context asked for as name really uses
 * ("auto" resolves to "cpu" on a machine without GPUs). */
PyObject *lsx_py_backend_of(PyObject *self, PyObject *arg)
{
    ls_backend_kind kind;
    if (lsx_parse_backend(arg, &kind))
        return NULL;
    lsx_ctx *c = lsx_context_get(kind, -1);
    return c ? PyUnicode_FromString(ls_backend_name(ls_context_backend(c->ctx))) : NULL;
}
