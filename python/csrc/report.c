/* ls_report to Python: the planner's report of one call as a dict, and the
 * fold of several reports into one (lsx_summary) for callers that run a
 * stack system by system. */
#include "lsx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lsx_summary_init(lsx_summary *s)
{
    memset(s, 0, sizeof *s);
    s->index = -1;
    s->rep.residual = NAN;
}

static int worse(double r, double than)
{
    if (isnan(than))
        return 0;
    return isnan(r) || r > than;
}

void lsx_summary_add(lsx_summary *s, const ls_report *r, int status, Py_ssize_t idx)
{
    ls_report *a = &s->rep;
    int first = s->batch == 0;
    s->batch++;
    if (first) {
        a->method = r->method;
        a->backend = r->backend;
        a->precision = r->precision;
        a->n = r->n;
        a->nrhs = r->nrhs;
        memcpy(a->device, r->device, sizeof a->device);
    }
    a->t_h2d += r->t_h2d;
    a->t_factor += r->t_factor;
    a->t_solve += r->t_solve;
    a->t_d2h += r->t_d2h;
    a->t_total += r->t_total;
    a->flops += r->flops;
    a->bytes += r->bytes;
    if (r->iterations > a->iterations)
        a->iterations = r->iterations;
    double t = a->t_factor + a->t_solve;
    a->gflops = t > 0 ? a->flops / t * 1e-9 : 0;
    a->gbps = t > 0 ? a->bytes / t * 1e-9 : 0;
    /* The residual is the worst of the answers computed (NaN is worst). */
    if (status == 0 || status == LS_INACCURATE || status == LS_NOT_CONVERGED ||
        status == LS_BREAKDOWN) {
        if (!s->have_residual || worse(r->residual, a->residual))
            a->residual = r->residual;
        s->have_residual = 1;
    }
    /* The message: a failure speaks louder than an inaccurate answer, which
     * speaks louder than the worst residual of a good one. */
    int take;
    if (first)
        take = 1;
    else if (s->status != 0 && s->status != LS_INACCURATE)
        take = 0;
    else if (status != 0 && status != LS_INACCURATE)
        take = 1;
    else if (status != s->status)
        take = status == LS_INACCURATE;
    else
        take = a->residual == r->residual;
    if (!take)
        return;
    a->info = r->info;
    memcpy(a->message, r->message, sizeof a->message);
    memcpy(a->where, r->where, sizeof a->where);
    free(a->history);
    a->history = NULL;
    a->history_len = 0;
    if (r->history && r->history_len > 0) {
        a->history = malloc(sizeof(double) * (size_t)r->history_len);
        if (a->history) {
            memcpy(a->history, r->history, sizeof(double) * (size_t)r->history_len);
            a->history_len = r->history_len;
        }
    }
    s->status = status;
    s->index = idx;
}

void lsx_summary_free(lsx_summary *s)
{
    free(s->rep.history);
    s->rep.history = NULL;
}

static int put(PyObject *d, const char *key, PyObject *v)
{
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *text(const char *s)
{
    return PyUnicode_DecodeUTF8(s, strlen(s), "replace");
}

/* The keys every report dict has; batch and index as the caller counts them. */
static PyObject *report_fields(const ls_report *r, int status, Py_ssize_t batch,
                               Py_ssize_t index)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    PyObject *hist = Py_None;
    Py_INCREF(hist);
    if (r->history && r->history_len > 0) {
        Py_DECREF(hist);
        hist = PyList_New(r->history_len);
        for (int i = 0; hist && i < r->history_len; i++)
            PyList_SET_ITEM(hist, i, PyFloat_FromDouble(r->history[i]));
    }
    if (put(d, "status", PyLong_FromLong(status)) ||
        put(d, "status_name", PyUnicode_FromString(ls_status_name(status))) ||
        put(d, "method", PyUnicode_FromString(ls_method_name(r->method))) ||
        put(d, "backend", PyUnicode_FromString(ls_backend_name(r->backend))) ||
        put(d, "precision", PyUnicode_FromString(ls_precision_name(r->precision))) ||
        put(d, "device", text(r->device)) ||
        put(d, "n", PyLong_FromLong(r->n)) || put(d, "nrhs", PyLong_FromLong(r->nrhs)) ||
        put(d, "batch", PyLong_FromSsize_t(batch)) ||
        put(d, "index", PyLong_FromSsize_t(index)) ||
        put(d, "info", PyLong_FromLong(r->info)) ||
        put(d, "t_h2d", PyFloat_FromDouble(r->t_h2d)) ||
        put(d, "t_factor", PyFloat_FromDouble(r->t_factor)) ||
        put(d, "t_solve", PyFloat_FromDouble(r->t_solve)) ||
        put(d, "t_d2h", PyFloat_FromDouble(r->t_d2h)) ||
        put(d, "t_total", PyFloat_FromDouble(r->t_total)) ||
        put(d, "flops", PyFloat_FromDouble(r->flops)) ||
        put(d, "bytes", PyFloat_FromDouble(r->bytes)) ||
        put(d, "gflops", PyFloat_FromDouble(r->gflops)) ||
        put(d, "gbps", PyFloat_FromDouble(r->gbps)) ||
        put(d, "residual", PyFloat_FromDouble(r->residual)) ||
        put(d, "iterations", PyLong_FromLong(r->iterations)) || put(d, "history", hist) ||
        put(d, "message", text(r->message)) || put(d, "where", text(r->where))) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *lsx_summary_dict(const lsx_summary *s)
{
    return report_fields(&s->rep, s->status, s->batch, s->index);
}

PyObject *lsx_report_dict(const ls_report *r, int status)
{
    PyObject *d = report_fields(r, status, (Py_ssize_t)r->batch, (Py_ssize_t)r->index);
    if (d && (put(d, "path", text(r->path)) || put(d, "why", text(r->why))))
        Py_CLEAR(d);
    return d;
}

PyObject *lsx_outcome(int status, Py_ssize_t index, const char *message, const char *where)
{
    return Py_BuildValue("(inNN)", status, index,
                         PyUnicode_DecodeUTF8(message, strlen(message), "replace"),
                         PyUnicode_DecodeUTF8(where, strlen(where), "replace"));
}
