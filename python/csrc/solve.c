/* linsolve._core.solve: NumPy arrays through the planner's front door
 * (ls_solve_problem), the GIL released.
 *
 * One system, or one matrix shared by a stack of right-hand sides, goes as
 * LS_SHAPE_DENSE: A packed column-major once (a tiled transposing copy for
 * C-order input), the right-hand sides side by side in `out`. A stack goes
 * as LS_SHAPE_STACK in the layout of `out`, which Python allocated to match
 * A's (C-order matrices: row-major), so that a contiguous stack of the
 * working dtype is copied with one memcpy -- or not at all when the caller
 * allows A to be overwritten. Large stacks run in chunks, between which the
 * GIL is taken back for a moment to let Ctrl-C (KeyboardInterrupt) through.
 * B is copied into `out` (X on return) unless they are the same array. */
#include "lsx.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Flags of the call (one int from Python). */
enum {
    LSX_TRANS = 1,   /* solve A^T X = B */
    LSX_OWN_A = 2,   /* A may be overwritten (overwrite_a, or Python's own copy) */
    LSX_FINITE = 4,  /* refuse NaN and Inf in A and B (check_finite) */
    LSX_CHECK = 8,   /* the library's residual check */
    LSX_REFINE = 16, /* iterative refinement of an inaccurate direct solve */
    LSX_REPORT = 32, /* build the report dict even on success */
};

/* Systems per chunk: a bound on the scratch copy of A and on how long
 * Ctrl-C waits. Chunks are also kept under LSX_CHUNK_BYTES of A and B. */
Py_ssize_t lsx_stack_chunk = 65536;
#define LSX_CHUNK_BYTES ((size_t)64 << 20)

typedef struct job {
    lsx_arr a, b, out;
    int n, k, flags, b_is_out;
    char fmt; /* the working element type: out's */
    int es;
    Py_ssize_t count;
    Py_ssize_t a_rs, a_cs; /* A's strides as solved (swapped for A^T) */
    ls_layout layout;
    ls_problem p;
    ls_options opt;
    lsx_ctx *ctx;
    ls_report rep; /* the first chunk's, later chunks added in */
    int have_rep, status, nomem, interrupted, bad_out;
    long long index;
    double worst; /* own_check: the worst scaled residual so far, at system `at` */
    Py_ssize_t at;
    PyThreadState *ts;
} job;

static int failed(int st)
{
    return st != 0 && st != LS_INACCURATE; /* an inaccurate answer goes on */
}

/* Fold one chunk's report into the call's: times and flops add up, the
 * residual is the worst, the first failure names its system. */
static void add_report(job *j, ls_report *r, int st, Py_ssize_t start)
{
    if (r->index >= 0)
        r->index += start;
    if (!j->have_rep) {
        j->rep = *r; /* takes over the history */
        j->have_rep = 1;
    } else {
        ls_report *a = &j->rep;
        a->t_total += r->t_total;
        a->t_factor += r->t_factor;
        a->t_solve += r->t_solve;
        a->flops += r->flops;
        a->bytes += r->bytes;
        a->batch += r->batch;
        if (!(r->residual <= a->residual) && !isnan(a->residual))
            a->residual = r->residual;
        if (r->iterations > a->iterations)
            a->iterations = r->iterations;
        double t = a->t_factor + a->t_solve > 0 ? a->t_factor + a->t_solve : a->t_total;
        a->gflops = t > 0 ? a->flops / t * 1e-9 : 0;
        if (st && (failed(st) || !j->status)) {
            a->info = r->info;
            a->index = r->index;
            memcpy(a->message, r->message, sizeof a->message);
            memcpy(a->where, r->where, sizeof a->where);
        }
        ls_report_clear(r);
    }
    if (st && (failed(st) || !j->status)) {
        j->status = st;
        j->index = j->rep.index;
    }
}

/* A NaN or Inf where the caller asked for finite input: the status and
 * the report's message say which array, system and element. */
static void nonfinite(job *j, const char *name, Py_ssize_t idx, int r, int c)
{
    ls_report rep;
    memset(&rep, 0, sizeof rep);
    rep.residual = NAN;
    rep.index = j->count > 1 ? idx : -1;
    rep.batch = j->count;
    rep.n = j->n;
    rep.nrhs = j->k;
    if (name[0] == 'a' && (j->flags & LSX_TRANS)) {
        int t = r;
        r = c;
        c = t;
    }
    snprintf(rep.message, sizeof rep.message, "%s[%d, %d] is not finite (NaN or Inf)", name, r,
             c);
    add_report(j, &rep, LS_ENONFINITE, 0);
}

static int compact(Py_ssize_t rs, Py_ssize_t cs, int rows, int cols, int es, ls_layout layout)
{
    if (layout == LS_ROW_MAJOR)
        return (cols <= 1 || cs == es) && (rows <= 1 || rs == (Py_ssize_t)cols * es);
    return (rows <= 1 || rs == es) && (cols <= 1 || cs == (Py_ssize_t)rows * es);
}

/* Leading dimension of a matrix stored in `layout` with these strides, in
 * elements, or 0 when it is not stored that way. */
static int lead_dim(Py_ssize_t rs, Py_ssize_t cs, int rows, int cols, int es, ls_layout layout)
{
    Py_ssize_t unit = layout == LS_ROW_MAJOR ? cs : rs, ld = layout == LS_ROW_MAJOR ? rs : cs;
    int inner = layout == LS_ROW_MAJOR ? cols : rows, outer = layout == LS_ROW_MAJOR ? rows : cols;
    if (inner > 1 && unit != es)
        return 0;
    if (outer <= 1)
        return inner > 1 ? inner : 1;
    if (ld % es || ld / es < (inner > 1 ? inner : 1) || ld / es > INT_MAX)
        return 0;
    return (int)(ld / es);
}

/* Scan a compact block of `count` matrices for NaN/Inf (copying it from src
 * to p first when src is not NULL); on one, report it. */
static int scan_block(job *j, const char *name, char *p, const char *src, Py_ssize_t start,
                      Py_ssize_t count, int rows, int cols)
{
    Py_ssize_t per = (Py_ssize_t)rows * cols;
    Py_ssize_t at = src ? lsx_copy_scan(p, src, j->fmt, per * count)
                        : lsx_scan(p, j->fmt, per * count);
    if (at < 0)
        return 0;
    Py_ssize_t in = at % per;
    int r = (int)(j->layout == LS_ROW_MAJOR ? in / cols : in % rows);
    int c = (int)(j->layout == LS_ROW_MAJOR ? in % cols : in / rows);
    nonfinite(j, name, start + at / per, r, c);
    return 1;
}

/* B of systems [start, start + count) into out (X's storage). */
static int load_b(job *j, Py_ssize_t start, Py_ssize_t count)
{
    int check = j->flags & LSX_FINITE, bi, bj;
    Py_ssize_t brs = lsx_rstride(&j->b), bcs = lsx_cstride(&j->b);
    Py_ssize_t ors = lsx_rstride(&j->out), ocs = lsx_cstride(&j->out), bstep, ostep;
    size_t sys = (size_t)j->n * (size_t)j->k * (size_t)j->es;
    char *o = lsx_arr_at(&j->out, start);
    if (j->b_is_out)
        return check ? scan_block(j, "b", o, NULL, start, count, j->n, j->k) : 0;
    if (j->b.fmt == j->fmt && lsx_uniform_stride(&j->b, &j->out, &bstep) &&
        bstep == (Py_ssize_t)sys && lsx_uniform_stride(&j->out, &j->out, &ostep) &&
        ostep == (Py_ssize_t)sys && compact(brs, bcs, j->n, j->k, j->es, j->layout) &&
        compact(ors, ocs, j->n, j->k, j->es, j->layout)) {
        const char *src = lsx_arr_at_bcast(&j->b, &j->out, start);
        if (check)
            return scan_block(j, "b", o, src, start, count, j->n, j->k);
        memcpy(o, src, sys * (size_t)count);
        return 0;
    }
    for (Py_ssize_t i = start; i < start + count; i++) {
        lsx_pack_src s = {lsx_arr_at_bcast(&j->b, &j->out, i), j->b.fmt, j->b.esize, j->n, j->k,
                          brs, bcs};
        if (lsx_pack(&s, lsx_arr_at(&j->out, i), j->fmt, ors, ocs, check, &bi, &bj)) {
            nonfinite(j, "b", i, bi, bj);
            return 1;
        }
    }
    return 0;
}

/* A of system i packed compactly in `layout` at dst. */
static int pack_a(job *j, Py_ssize_t i, char *dst, ls_layout layout)
{
    int bi, bj;
    Py_ssize_t row = layout == LS_ROW_MAJOR ? (Py_ssize_t)j->n * j->es : j->es;
    Py_ssize_t col = layout == LS_ROW_MAJOR ? j->es : (Py_ssize_t)j->n * j->es;
    lsx_pack_src s = {lsx_arr_at_bcast(&j->a, &j->out, i), j->a.fmt, j->a.esize, j->n, j->n,
                      j->a_rs, j->a_cs};
    if (lsx_pack(&s, dst, j->fmt, row, col, j->flags & LSX_FINITE, &bi, &bj)) {
        nonfinite(j, "a", i, bi, bj);
        return 1;
    }
    return 0;
}

static int call(job *j, ls_problem *p, Py_ssize_t start)
{
    ls_report r;
    int st = ls_solve_problem(j->ctx->ctx, &j->opt, p, &r);
    add_report(j, &r, st, start);
    return st;
}

/* One system, or one A for every right-hand side of a stack whose X are
 * column-major side by side in out (nrhs = count * k). */
static void run_dense(job *j, Py_ssize_t systems)
{
    int n = j->n, lda = 0;
    int ldb = lead_dim(lsx_rstride(&j->out), lsx_cstride(&j->out), n, j->k, j->es, LS_COL_MAJOR);
    char *A = lsx_arr_at_bcast(&j->a, &j->out, 0), *scratch = NULL;
    if (!ldb) {
        j->bad_out = 1; /* Python allocates one system's X column-major */
        return;
    }
    if ((j->flags & LSX_OWN_A) && j->a.fmt == j->fmt && (uintptr_t)A % (uintptr_t)j->es == 0)
        lda = lead_dim(j->a_rs, j->a_cs, n, n, j->es, LS_COL_MAJOR);
    if (lda && (j->flags & LSX_FINITE)) {
        int bi, bj;
        lsx_pack_src s = {A, j->fmt, j->es, n, n, j->a_rs, j->a_cs};
        if (lsx_pack(&s, NULL, j->fmt, 0, 0, 1, &bi, &bj)) {
            nonfinite(j, "a", 0, bi, bj);
            return;
        }
    }
    if (!lda) {
        scratch = malloc((size_t)n * (size_t)n * (size_t)j->es);
        if (!scratch) {
            j->nomem = 1;
            return;
        }
        A = scratch;
        lda = n;
    }
    if ((scratch && pack_a(j, 0, scratch, LS_COL_MAJOR)) || load_b(j, 0, systems)) {
        free(scratch);
        return;
    }
    ls_problem *p = &j->p;
    p->shape = LS_SHAPE_DENSE;
    p->layout = LS_COL_MAJOR;
    p->nrhs = (int)(systems * j->k);
    p->A = A;
    p->lda = lda;
    p->B = lsx_arr_at(&j->out, 0);
    p->ldb = ldb;
    call(j, p, 0);
    if (j->have_rep)
        j->rep.batch = systems;
    free(scratch);
}

/* Will the planner take the batched path, whose check of a stack copies A
 * and B before the LU overwrites them? Then the residuals are computed
 * here instead, from the caller's a and b, which are still there (not when
 * they are overwritten: A in place, or b as X). */
static int own_check(const job *j, int in_place)
{
    const char *m = j->p.method;
    ls_backend_kind be = ls_context_backend(j->ctx->ctx);
    int policy_fits = j->p.policy == LS_POLICY_AUTO ||
                      j->p.policy == (j->fmt == 'd' ? LS_POLICY_DOUBLE : LS_POLICY_SINGLE);
    return j->opt.check && !in_place && !j->b_is_out && policy_fits &&
           (be == LS_BACKEND_CPU || be == LS_BACKEND_CUDA || be == LS_BACKEND_OPENCL) &&
           (!strcmp(m, "auto") || !strcmp(m, "batched") || !strcmp(m, "lu"));
}

/* The scaled residual of systems [start, start + m), the worst kept. */
static void check_chunk(job *j, Py_ssize_t start, Py_ssize_t m)
{
    double eps = ls_eps(j->fmt == 'f' ? LS_SINGLE : LS_DOUBLE);
    Py_ssize_t brs = lsx_rstride(&j->b), bcs = lsx_cstride(&j->b);
    Py_ssize_t ors = lsx_rstride(&j->out), ocs = lsx_cstride(&j->out);
    for (Py_ssize_t i = start; i < start + m && !isnan(j->worst); i++) {
        lsx_pack_src A = {lsx_arr_at_bcast(&j->a, &j->out, i), j->a.fmt, j->a.esize, j->n, j->n,
                          j->a_rs, j->a_cs};
        lsx_pack_src B = {lsx_arr_at_bcast(&j->b, &j->out, i), j->b.fmt, j->b.esize, j->n, j->k,
                          brs, bcs};
        lsx_pack_src X = {lsx_arr_at(&j->out, i), j->fmt, j->es, j->n, j->k, ors, ocs};
        double r = lsx_residual(&A, &B, &X, eps);
        if (!(r <= j->worst)) { /* NaN counts as the worst */
            j->worst = r;
            j->at = i;
        }
    }
}

/* The residuals' verdict, as the planner gives it for a stack it checks. */
static void judge(job *j)
{
    j->rep.residual = j->worst;
    if (j->status || j->worst <= 30)
        return;
    j->status = LS_INACCURATE;
    j->index = j->rep.index = j->at;
    snprintf(j->rep.message, sizeof j->rep.message,
             "system %lld: scaled residual %.3g exceeds 30", (long long)j->at, j->worst);
}

/* Between chunks: let Python run its signal handlers (Ctrl-C). */
static int interrupted(job *j)
{
    lsx_context_unlock(j->ctx);
    PyEval_RestoreThread(j->ts);
    int sig = PyErr_CheckSignals();
    j->ts = PyEval_SaveThread();
    lsx_context_lock(j->ctx);
    return sig != 0;
}

/* A stack in out's layout, chunk by chunk. */
static void run_stack(job *j)
{
    int n = j->n, es = j->es, lda = n > 1 ? n : 1;
    size_t mat = (size_t)n * (size_t)n * (size_t)es, rhs = (size_t)n * (size_t)j->k * es;
    Py_ssize_t astep = 0, ostep = 0, chunk = lsx_stack_chunk > 0 ? lsx_stack_chunk : 1;
    if ((size_t)chunk * (mat + rhs) > LSX_CHUNK_BYTES)
        chunk = (Py_ssize_t)(LSX_CHUNK_BYTES / (mat + rhs));
    if (chunk < 1)
        chunk = 1;
    int uniform = lsx_uniform_stride(&j->a, &j->out, &astep) && astep > 0;
    lsx_uniform_stride(&j->out, &j->out, &ostep);
    int ld_in = lead_dim(j->a_rs, j->a_cs, n, n, es, j->layout);
    char *a0 = lsx_arr_at_bcast(&j->a, &j->out, 0);
    /* A used where it lies: allowed, of the working type, one stride */
    int in_place = (j->flags & LSX_OWN_A) && j->a.fmt == j->fmt && uniform && ld_in &&
                   astep % es == 0 && astep / es >= (Py_ssize_t)ld_in * n &&
                   (uintptr_t)a0 % (uintptr_t)es == 0;
    /* A copied with one memcpy a chunk: already a compact stack of that type */
    int block = !in_place && j->a.fmt == j->fmt && uniform && astep == (Py_ssize_t)mat &&
                compact(j->a_rs, j->a_cs, n, n, es, j->layout);
    if (j->count < chunk)
        chunk = j->count;
    int checking = own_check(j, in_place);
    if (checking)
        j->opt.check = 0;
    char *scratch = in_place ? NULL : lsx_context_scratch(j->ctx, mat * (size_t)chunk);
    if (!in_place && !scratch) {
        j->nomem = 1;
        return;
    }
    ls_problem *p = &j->p;
    p->shape = LS_SHAPE_STACK;
    p->layout = j->layout;
    p->nrhs = j->k;
    p->lda = in_place ? ld_in : lda;
    p->strideA = in_place ? astep / es : (long long)n * n;
    p->ldb = lead_dim(lsx_rstride(&j->out), lsx_cstride(&j->out), n, j->k, es, j->layout);
    p->strideB = ostep / es;
    for (Py_ssize_t start = 0; start < j->count; start += chunk) {
        Py_ssize_t m = j->count - start < chunk ? j->count - start : chunk;
        if (start > 0 && interrupted(j)) {
            j->interrupted = 1;
            break;
        }
        if (in_place) {
            p->A = a0 + start * astep;
            if ((j->flags & LSX_FINITE)) {
                int bi, bj, bad = 0;
                for (Py_ssize_t i = start; !bad && i < start + m; i++) {
                    lsx_pack_src s = {a0 + i * astep, j->fmt, es, n, n, j->a_rs, j->a_cs};
                    if ((bad = lsx_pack(&s, NULL, j->fmt, 0, 0, 1, &bi, &bj)))
                        nonfinite(j, "a", i, bi, bj);
                }
                if (bad)
                    break;
            }
        } else if (block) {
            if (!(j->flags & LSX_FINITE))
                memcpy(scratch, a0 + start * astep, mat * (size_t)m);
            else if (scan_block(j, "a", scratch, a0 + start * astep, start, m, n, n))
                break;
            p->A = scratch;
        } else {
            int bad = 0;
            for (Py_ssize_t i = 0; !bad && i < m; i++)
                bad = pack_a(j, start + i, scratch + (size_t)i * mat, j->layout);
            if (bad)
                break;
            p->A = scratch;
        }
        if (load_b(j, start, m))
            break;
        p->batch = (int)m;
        p->B = lsx_arr_at(&j->out, start);
        int st = call(j, p, start);
        if (failed(st))
            break;
        if (checking && !st)
            check_chunk(j, start, m);
    }
    if (checking && j->have_rep && !j->interrupted)
        judge(j);
}

/* Empty problems still go through the planner: the report names the path. */
static void run_empty(job *j)
{
    ls_problem *p = &j->p;
    p->shape = j->count == 1 ? LS_SHAPE_DENSE : LS_SHAPE_STACK;
    p->batch = (int)j->count;
    p->nrhs = j->k;
    p->lda = p->ldb = 1;
    call(j, p, 0);
}

/* The stack's layout: out's (Python made it follow A's); a vector stack
 * fits either, and then follows A. */
static int choose_layout(job *j)
{
    int n = j->n, k = j->k, es = j->es;
    Py_ssize_t ors = lsx_rstride(&j->out), ocs = lsx_cstride(&j->out);
    int row = lead_dim(ors, ocs, n, k, es, LS_ROW_MAJOR) != 0;
    int col = lead_dim(ors, ocs, n, k, es, LS_COL_MAJOR) != 0;
    int a_col = lead_dim(j->a_rs, j->a_cs, n, n, j->a.esize, LS_COL_MAJOR) != 0;
    int a_row = lead_dim(j->a_rs, j->a_cs, n, n, j->a.esize, LS_ROW_MAJOR) != 0;
    Py_ssize_t step;
    if ((!row && !col) || !lsx_uniform_stride(&j->out, &j->out, &step) || step % es) {
        PyErr_SetString(PyExc_ValueError, "out must be a contiguous stack of matrices");
        return -1;
    }
    j->layout = row && col ? (a_col && !a_row ? LS_COL_MAJOR : LS_ROW_MAJOR)
                           : row ? LS_ROW_MAJOR : LS_COL_MAJOR;
    return 0;
}

static void run(job *j)
{
    Py_ssize_t ostep = 0, astep = -1;
    int shared = j->count > 1 && lsx_uniform_stride(&j->a, &j->out, &astep) && astep == 0;
    Py_ssize_t cols = j->count * j->k;
    int side_by_side = shared && j->layout == LS_COL_MAJOR && cols <= INT_MAX &&
                       lsx_uniform_stride(&j->out, &j->out, &ostep) &&
                       ostep == (Py_ssize_t)j->n * j->k * j->es &&
                       lsx_cstride(&j->out) == (Py_ssize_t)j->n * j->es;
    if (j->count == 0 || j->n == 0 || j->k == 0)
        run_empty(j);
    else if (j->count == 1 || side_by_side)
        run_dense(j, j->count);
    else
        run_stack(j);
}

static int parse(job *j, PyObject *const *args, Py_ssize_t nargs, ls_backend_kind *kind)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "solve takes 8 arguments");
        return -1;
    }
    int vector = PyObject_IsTrue(args[3]);
    long flags = PyLong_AsLong(args[4]), policy = PyLong_AsLong(args[5]);
    const char *method = PyUnicode_Check(args[6]) ? PyUnicode_AsUTF8(args[6]) : NULL;
    if (vector < 0 || PyErr_Occurred() || !method || lsx_parse_backend(args[7], kind))
        return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_TypeError, "method: str"), -1);
    if (policy < LS_POLICY_AUTO || policy > LS_POLICY_MIXED) {
        PyErr_Format(PyExc_ValueError, "policy %ld is not a precision policy", policy);
        return -1;
    }
    int core = vector ? 1 : 2;
    if (lsx_arr_get(&j->a, args[0], "a", "df", 0, 2) ||
        lsx_arr_get(&j->b, args[1], "b", "df", 0, core) ||
        lsx_arr_get(&j->out, args[2], "out", "df", 1, core) ||
        lsx_bcast_check(&j->a, &j->out, "a") || lsx_bcast_check(&j->b, &j->out, "b"))
        return -1;
    j->flags = (int)flags;
    j->b_is_out = args[1] == args[2];
    j->n = (int)lsx_rows(&j->a);
    j->k = (int)lsx_cols(&j->out);
    j->fmt = j->out.fmt;
    j->es = j->out.esize;
    int t = flags & LSX_TRANS;
    j->a_rs = t ? lsx_cstride(&j->a) : lsx_rstride(&j->a);
    j->a_cs = t ? lsx_rstride(&j->a) : lsx_cstride(&j->a);
    if (lsx_cols(&j->a) != j->n || lsx_rows(&j->b) != j->n || lsx_cols(&j->b) != j->k ||
        lsx_rows(&j->out) != j->n || (j->b_is_out && j->b.fmt != j->fmt)) {
        PyErr_SetString(PyExc_ValueError, "a must be (..., n, n), b and out (..., n, k)");
        return -1;
    }
    j->count = 1;
    for (int d = 0; d < j->out.nbatch; d++)
        j->count *= j->out.view.shape[d];
    ls_problem_init(&j->p);
    j->p.dtype = j->fmt == 'd' ? LS_FLOAT64 : LS_FLOAT32;
    j->p.n = j->n;
    j->p.policy = (ls_policy)policy;
    j->p.method = method;
    ls_options_init(&j->opt);
    j->opt.check = (flags & LSX_CHECK) != 0;
    j->opt.refine = (flags & LSX_REFINE) != 0;
    j->layout = LS_COL_MAJOR;
    return j->count > 1 && j->n > 0 && j->k > 0 ? choose_layout(j) : 0;
}

/* solve(a, b, out, vector, flags, policy, method, backend)
 *   -> (status, flat index or -1, report dict or None) */
PyObject *lsx_py_solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    job j;
    memset(&j, 0, sizeof j);
    j.index = -1;
    ls_backend_kind kind;
    PyObject *result = NULL;
    if (parse(&j, args, nargs, &kind))
        goto out;
    j.ctx = lsx_context_get(kind, -1);
    if (!j.ctx)
        goto out;
    j.ts = PyEval_SaveThread();
    lsx_context_lock(j.ctx);
    run(&j);
    lsx_context_unlock(j.ctx);
    PyEval_RestoreThread(j.ts);
    if (j.interrupted) {
        if (!PyErr_Occurred())
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        goto out;
    }
    if (j.nomem) {
        PyErr_NoMemory();
        goto out;
    }
    if (j.bad_out) {
        PyErr_SetString(PyExc_ValueError, "out: one system's X must be column-major");
        goto out;
    }
    PyObject *rep = Py_None;
    if (j.status || (j.flags & LSX_REPORT)) {
        j.rep.index = j.index;
        rep = lsx_report_dict(&j.rep, j.status);
        PyObject *note = rep ? PyUnicode_FromString(ls_context_note(j.ctx->ctx)) : NULL;
        if (!note || PyDict_SetItemString(rep, "note", note))
            Py_CLEAR(rep);
        Py_XDECREF(note);
        if (!rep)
            goto out;
    } else {
        Py_INCREF(rep);
    }
    result = Py_BuildValue("(iLN)", j.status, j.index, rep);
out:
    if (j.have_rep)
        ls_report_clear(&j.rep);
    lsx_arr_release(&j.a);
    lsx_arr_release(&j.b);
    lsx_arr_release(&j.out);
    return result;
}

/* _stack_chunk(systems) -> the previous value: systems per chunk of a stack
 * solve (tests make it small to interrupt a short solve; 0 only reads). */
PyObject *lsx_py_stack_chunk(PyObject *self, PyObject *args)
{
    Py_ssize_t v = 0, old = lsx_stack_chunk;
    if (!PyArg_ParseTuple(args, "|n", &v))
        return NULL;
    if (v > 0) /* each call's batch is an int */
        lsx_stack_chunk = v < INT_MAX ? v : INT_MAX;
    return PyLong_FromSsize_t(old);
}
