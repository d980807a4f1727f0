/* linsolve._core.solve: ls_solve over a stack of systems, GIL released.
 * Python has broadcast the stack, so a, b and out share one batch shape;
 * a matrix already column-major in double goes to the library as is,
 * anything else is copied into column-major scratch once. */
#include "lsx.h"

#include <stdlib.h>
#include <string.h>

typedef struct solve_job {
    lsx_arr a, b, out;
    Py_ssize_t count;
    int n, k;
    ls_options opt;
    lsx_ctx *ctx;
    lsx_summary sum;
    int nomem;
} solve_job;

/* Copy b (n x k) into column-major double storage x (leading dim ldx). */
static void load_rhs(solve_job *j, Py_ssize_t i, double *x, int ldx)
{
    int bi, bj;
    lsx_copy(j->n, j->k, lsx_arr_at(&j->b, i), j->b.fmt, lsx_rstride(&j->b), lsx_cstride(&j->b),
             (char *)x, 'd', 8, (Py_ssize_t)ldx * 8, 0, &bi, &bj);
}

static void store_x(solve_job *j, Py_ssize_t i, const double *x, int ldx)
{
    int bi, bj;
    lsx_copy(j->n, j->k, (const char *)x, 'd', 8, (Py_ssize_t)ldx * 8, lsx_arr_at(&j->out, i),
             j->out.fmt, lsx_rstride(&j->out), lsx_cstride(&j->out), 0, &bi, &bj);
}

static const double *load_a(solve_job *j, Py_ssize_t i, double *scratch, int *lda)
{
    int ld = lsx_arr_ld(&j->a, 'd');
    if (ld) {
        *lda = ld;
        return (const double *)lsx_arr_at(&j->a, i);
    }
    int bi, bj;
    lsx_copy(j->n, j->n, lsx_arr_at(&j->a, i), j->a.fmt, lsx_rstride(&j->a), lsx_cstride(&j->a),
             (char *)scratch, 'd', 8, (Py_ssize_t)j->n * 8, 0, &bi, &bj);
    *lda = j->n > 1 ? j->n : 1;
    return scratch;
}

static int done(int st)
{
    return st != 0 && st != LS_INACCURATE; /* an inaccurate answer goes on */
}

/* One matrix for the whole stack: one solve with every right-hand side. */
static void run_shared(solve_job *j)
{
    size_t cols = (size_t)j->count * (size_t)j->k;
    int ldx = j->n;
    double *sa = malloc(sizeof(double) * (size_t)j->n * (size_t)j->n);
    double *x = malloc(sizeof(double) * (size_t)j->n * cols);
    if (!sa || !x || cols > INT_MAX) {
        free(sa);
        free(x);
        j->nomem = 1;
        return;
    }
    for (Py_ssize_t i = 0; i < j->count; i++)
        load_rhs(j, i, x + (size_t)i * j->k * ldx, ldx);
    int lda;
    const double *A = load_a(j, 0, sa, &lda);
    ls_report rep;
    int st = ls_solve(j->ctx->ctx, &j->opt, j->n, (int)cols, A, lda, x, ldx, &rep);
    lsx_summary_add(&j->sum, &rep, st, done(st) ? -1 : 0);
    ls_report_clear(&rep);
    j->sum.batch = j->count;
    if (!done(st))
        for (Py_ssize_t i = 0; i < j->count; i++)
            store_x(j, i, x + (size_t)i * j->k * ldx, ldx);
    free(sa);
    free(x);
}

static void run_each(solve_job *j)
{
    int ldo = lsx_arr_ld(&j->out, 'd');
    double *sa = malloc(sizeof(double) * (size_t)j->n * (size_t)j->n);
    double *sx = ldo ? NULL : malloc(sizeof(double) * (size_t)j->n * (size_t)j->k);
    if (!sa || (!ldo && !sx)) {
        free(sa);
        free(sx);
        j->nomem = 1;
        return;
    }
    for (Py_ssize_t i = 0; i < j->count; i++) {
        int lda, ldx = ldo ? ldo : j->n;
        double *x = ldo ? (double *)lsx_arr_at(&j->out, i) : sx;
        load_rhs(j, i, x, ldx);
        const double *A = load_a(j, i, sa, &lda);
        ls_report rep;
        int st = ls_solve(j->ctx->ctx, &j->opt, j->n, j->k, A, lda, x, ldx, &rep);
        lsx_summary_add(&j->sum, &rep, st, i);
        ls_report_clear(&rep);
        if (done(st))
            break;
        if (!ldo)
            store_x(j, i, x, ldx);
    }
    free(sa);
    free(sx);
}

static int parse_options(ls_options *o, const char *method, const char *precision, int check,
                         int refine)
{
    ls_options_init(o);
    if (ls_method_parse(method, &o->method)) {
        PyErr_Format(PyExc_ValueError, "unknown method '%s' (see linsolve.methods())", method);
        return -1;
    }
    if (ls_precision_parse(precision, &o->precision)) {
        PyErr_Format(PyExc_ValueError, "precision must be 'single' or 'double', not '%s'",
                     precision);
        return -1;
    }
    o->check = check;
    o->refine = refine;
    return 0;
}

/* solve(a, b, out, method, backend, precision, check, refine)
 *   -> (status, index, report dict) */
PyObject *lsx_py_solve(PyObject *self, PyObject *args)
{
    PyObject *oa, *ob, *oo, *backend;
    const char *method, *precision;
    int check, refine;
    if (!PyArg_ParseTuple(args, "OOOsOspp", &oa, &ob, &oo, &method, &backend, &precision, &check,
                          &refine))
        return NULL;
    solve_job j;
    memset(&j, 0, sizeof j);
    lsx_summary_init(&j.sum);
    ls_backend_kind kind;
    if (parse_options(&j.opt, method, precision, check, refine) ||
        lsx_parse_backend(backend, &kind))
        return NULL;
    PyObject *result = NULL;
    if (lsx_arr_get(&j.a, oa, "a", "df", 0, 2) || lsx_arr_get(&j.b, ob, "b", "df", 0, 2) ||
        lsx_arr_get(&j.out, oo, "out", "df", 1, 2))
        goto out;
    lsx_arr *all[3] = {&j.a, &j.b, &j.out};
    if (lsx_batch_check(all, 3, &j.count))
        goto out;
    j.n = (int)lsx_rows(&j.a);
    j.k = (int)lsx_cols(&j.b);
    if (lsx_cols(&j.a) != j.n || lsx_rows(&j.b) != j.n || lsx_rows(&j.out) != j.n ||
        lsx_cols(&j.out) != j.k) {
        PyErr_SetString(PyExc_ValueError, "a must be (..., n, n), b and out (..., n, k)");
        goto out;
    }
    if (j.count > 0 && j.n > 0 && j.k > 0) {
        j.ctx = lsx_context_get(kind, -1);
        if (!j.ctx)
            goto out;
        Py_BEGIN_ALLOW_THREADS
        lsx_context_lock(j.ctx);
        if (j.count > 1 && lsx_arr_batch_shared(&j.a))
            run_shared(&j);
        else
            run_each(&j);
        lsx_context_unlock(j.ctx);
        Py_END_ALLOW_THREADS
        if (j.nomem) {
            PyErr_NoMemory();
            goto out;
        }
    }
    PyObject *rep = lsx_summary_dict(&j.sum);
    if (rep && j.ctx) {
        PyObject *note = PyUnicode_FromString(ls_context_note(j.ctx->ctx));
        if (!note || PyDict_SetItemString(rep, "note", note)) {
            Py_CLEAR(rep);
        }
        Py_XDECREF(note);
    }
    if (rep)
        result = Py_BuildValue("(inN)", j.sum.status, j.sum.index, rep);
out:
    lsx_summary_free(&j.sum);
    lsx_arr_release(&j.a);
    lsx_arr_release(&j.b);
    lsx_arr_release(&j.out);
    return result;
}
