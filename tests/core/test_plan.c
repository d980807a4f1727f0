/* ls_solve_problem: every path of the planner's table on the problem it is
 * for, the path the report names, the answer's scaled residual against the
 * data as given (each dtype and layout), a singular system in a stack (its
 * index), and the refusals (a field out of range, device memory without
 * CUDA, a path asked for by name that cannot run the problem).
 * `test_plan cuda` runs the device-memory problems (exit 77 without a GPU). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Scaled residual of X for A X = B, all column-major FP64. */
static double residual(int n, int k, const double *A, const double *X, const double *B)
{
    return ls_scaled_residual(n, k, A, n, X, n, B, n, ls_eps(LS_DOUBLE));
}

/* Element (r, c) of a stored block in either layout. */
static size_t at(ls_layout l, int ld, int r, int c)
{
    return l == LS_ROW_MAJOR ? (size_t)r * ld + c : (size_t)r + (size_t)c * ld;
}

/* A random system stored in the layout and dtype asked; a and b keep the
 * column-major FP64 values it was made from. */
typedef struct sys {
    int n, k, batch;
    double *a, *b;  /* batch x (n*n), batch x (n*k), column-major FP64 */
    void *A, *B;    /* as stored for the problem */
} sys;

static void make(sys *s, int n, int k, int batch, ls_dtype dt, ls_layout l, unsigned seed)
{
    size_t na = (size_t)n * n, nb = (size_t)n * k, es = dt == LS_FLOAT32 ? 4 : 8;
    s->n = n, s->k = k, s->batch = batch;
    s->a = lt_doubles(na * batch);
    s->b = lt_doubles(nb * batch);
    s->A = lt_xmalloc(es * na * batch);
    s->B = lt_xmalloc(es * nb * batch);
    for (int i = 0; i < batch; i++) {
        double *a = s->a + na * i, *b = s->b + nb * i;
        ls_fill_random(n, n, a, n, seed + 2u * i);
        for (int d = 0; d < n; d++) /* comfortably nonsingular */
            a[d + (size_t)d * n] += n;
        ls_fill_random(n, k, b, n, seed + 2u * i + 1);
        for (int c = 0; c < n; c++)
            for (int r = 0; r < n; r++) {
                size_t o = na * i + at(l, n, r, c);
                if (dt == LS_FLOAT32) {
                    ((float *)s->A)[o] = (float)a[r + (size_t)c * n];
                    a[r + (size_t)c * n] = ((float *)s->A)[o]; /* the values solved */
                } else
                    ((double *)s->A)[o] = a[r + (size_t)c * n];
            }
        for (int c = 0; c < k; c++)
            for (int r = 0; r < n; r++) {
                size_t o = nb * i + at(l, l == LS_ROW_MAJOR ? k : n, r, c);
                if (dt == LS_FLOAT32) {
                    ((float *)s->B)[o] = (float)b[r + (size_t)c * n];
                    b[r + (size_t)c * n] = ((float *)s->B)[o];
                } else
                    ((double *)s->B)[o] = b[r + (size_t)c * n];
            }
    }
}

/* Worst scaled residual of the stored X over the systems (skip one: -1 none). */
static double worst(const sys *s, ls_dtype dt, ls_layout l, double eps, int skip)
{
    size_t nb = (size_t)s->n * s->k;
    double *x = lt_doubles(nb), w = 0;
    for (int i = 0; i < s->batch; i++) {
        if (i == skip)
            continue;
        for (int c = 0; c < s->k; c++)
            for (int r = 0; r < s->n; r++) {
                size_t o = nb * i + at(l, l == LS_ROW_MAJOR ? s->k : s->n, r, c);
                x[r + (size_t)c * s->n] =
                    dt == LS_FLOAT32 ? ((float *)s->B)[o] : ((double *)s->B)[o];
            }
        double r = residual(s->n, s->k, s->a + (size_t)s->n * s->n * i, x, s->b + nb * i) *
                   ls_eps(LS_DOUBLE) / eps;
        if (!(r <= w))
            w = r;
    }
    free(x);
    return w;
}

static void drop(sys *s)
{
    free(s->a);
    free(s->b);
    free(s->A);
    free(s->B);
}

static void describe(ls_problem *p, sys *s, ls_shape sh, ls_dtype dt, ls_layout l, ls_memory m)
{
    ls_problem_init(p);
    p->shape = sh, p->dtype = dt, p->layout = l, p->memory = m;
    p->n = s->n, p->nrhs = s->k, p->batch = s->batch;
    p->A = s->A, p->lda = s->n, p->strideA = (long long)s->n * s->n;
    p->B = s->B, p->ldb = l == LS_ROW_MAJOR ? s->k : s->n, p->strideB = (long long)s->n * s->k;
}

/* One problem on the host: path and residual. */
static int host_case(ls_context *ctx, ls_shape sh, ls_dtype dt, ls_layout l, ls_policy pol,
                     const char *method, int n, int k, int batch, const char *want_path)
{
    sys s;
    make(&s, n, k, batch, dt, l, 11u * (unsigned)n + (unsigned)batch);
    ls_problem p;
    describe(&p, &s, sh, dt, l, LS_MEMORY_HOST);
    p.policy = pol;
    p.method = method;
    ls_report rep;
    int st = ls_solve_problem(ctx, NULL, &p, &rep);
    int single = pol == LS_POLICY_SINGLE || (pol == LS_POLICY_AUTO && dt == LS_FLOAT32);
    double eps = ls_eps(single ? LS_SINGLE : LS_DOUBLE);
    double w = worst(&s, dt, l, eps, -1);
    int f = lt_check(st == 0 && !strcmp(rep.path, want_path) && w <= LS_TEST_TOL &&
                         rep.why[0] && rep.index == -1,
                     "%s n=%d k=%d batch=%d %s %s policy %d method %s: status %d path '%s' (%s) "
                     "residual %.3g",
                     sh == LS_SHAPE_STACK ? "stack" : "dense", n, k, batch,
                     dt == LS_FLOAT32 ? "f32" : "f64", l == LS_ROW_MAJOR ? "row" : "col", (int)pol,
                     method ? method : "auto", st, rep.path, rep.why, w);
    ls_report_clear(&rep);
    drop(&s);
    return f;
}

/* A stack with system `bad` singular: every other system solved, the index. */
static int singular_in_stack(ls_context *ctx, ls_memory mem, const char *method)
{
    sys s;
    const int n = 6, batch = 50, bad = 37;
    make(&s, n, 1, batch, LS_FLOAT64, LS_ROW_MAJOR, 5u);
    double *A = s.A;
    for (int c = 0; c < n; c++) /* row 2 of system 37 is zero */
        A[(size_t)bad * n * n + at(LS_ROW_MAJOR, n, 2, c)] = 0;
    ls_problem p;
    describe(&p, &s, LS_SHAPE_STACK, LS_FLOAT64, LS_ROW_MAJOR, mem);
    p.method = method;
    void *dA = NULL, *dB = NULL;
    size_t ba = sizeof(double) * n * n * batch, bb = sizeof(double) * n * batch;
    if (mem == LS_MEMORY_DEVICE) {
        ls_device_malloc(ctx, &dA, ba);
        ls_device_malloc(ctx, &dB, bb);
        ls_device_copy(ctx, dA, s.A, ba);
        ls_device_copy(ctx, dB, s.B, bb);
        p.A = dA, p.B = dB;
    }
    ls_report rep;
    int st = ls_solve_problem(ctx, NULL, &p, &rep);
    if (mem == LS_MEMORY_DEVICE) {
        ls_device_copy(ctx, s.B, dB, bb);
        ls_device_free(ctx, dA);
        ls_device_free(ctx, dB);
    }
    double w = worst(&s, LS_FLOAT64, LS_ROW_MAJOR, ls_eps(LS_DOUBLE), bad);
    int f = lt_check(st > 0 && st < LS_NOT_CONVERGED && rep.index == bad && rep.info == st &&
                         w <= LS_TEST_TOL && strstr(rep.message, "37"),
                     "singular system %d of a stack (%s, %s): status %d index %lld path %s, "
                     "others' residual %.3g: %s",
                     bad, mem == LS_MEMORY_DEVICE ? "device" : "host", method ? method : "auto",
                     st, rep.index, rep.path, w, rep.message);
    ls_report_clear(&rep);
    drop(&s);
    return f;
}

static int sparse_cases(ls_context *ctx)
{
    int f = 0;
    ls_csr A;
    if (ls_gen_poisson(2, 20, &A))
        return lt_check(0, "ls_gen_poisson");
    int n = (int)A.n_rows;
    double *b = lt_doubles(n), *x = lt_doubles(n), *y = lt_doubles(n);
    ls_fill_random(n, 1, b, n, 3);
    const char *methods[] = {NULL, "gmres", "bicgstab", "cg", "direct"};
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
        int direct = !methods[m] || !strcmp(methods[m], "direct");
        if (direct && !ls_csr_direct_available())
            continue;
        memcpy(x, b, sizeof(double) * n);
        ls_problem p;
        ls_problem_init(&p);
        p.shape = LS_SHAPE_CSR, p.csr = &A, p.n = n, p.nrhs = 1, p.B = x, p.ldb = n;
        p.method = methods[m];
        ls_report rep;
        int st = ls_solve_problem(ctx, NULL, &p, &rep);
        ls_csr_matvec(&A, x, y);
        double r = ls_csr_scaled_residual(&A, 1, b, n, x, n);
        const char *want = direct ? "sparse-direct" : "sparse-krylov";
        f += lt_check(st == 0 && !strcmp(rep.path, want) && r <= LS_TEST_TOL,
                      "sparse Poisson n=%d method %s: status %d path %s (%s) residual %.3g", n,
                      methods[m] ? methods[m] : "auto", st, rep.path, rep.why, r);
        ls_report_clear(&rep);
    }
    /* not square */
    ls_csr R = A;
    R.n_cols = A.n_cols + 1;
    ls_problem p;
    ls_problem_init(&p);
    p.shape = LS_SHAPE_CSR, p.csr = &R, p.n = n, p.nrhs = 1, p.B = x, p.ldb = n;
    f += lt_check(ls_solve_problem(ctx, NULL, &p, NULL) == LS_ESIZE, "non-square CSR: LS_ESIZE");
    /* singular: a row of zeros (values only, the pattern stays) */
    if (ls_csr_direct_available()) {
        for (int64_t e = A.row_ptr[3]; e < A.row_ptr[4]; e++)
            A.val[e] = 0;
        memcpy(x, b, sizeof(double) * n);
        p.csr = &A;
        ls_report rep;
        int st = ls_solve_problem(ctx, NULL, &p, &rep);
        f += lt_check(st > 0 && st < LS_NOT_CONVERGED && rep.info == st,
                      "singular sparse: status %d (%s)", st, rep.message);
        ls_report_clear(&rep);
    }
    free(b);
    free(x);
    free(y);
    ls_csr_free(&A);
    return f;
}

static int refusals(ls_context *ctx)
{
    int f = 0;
    sys s;
    make(&s, 4, 1, 1, LS_FLOAT64, LS_COL_MAJOR, 9u);
    ls_problem p;
    ls_report rep;
    describe(&p, &s, LS_SHAPE_DENSE, LS_FLOAT64, LS_COL_MAJOR, LS_MEMORY_DEVICE);
    f += lt_check(ls_solve_problem(ctx, NULL, &p, &rep) == LS_EUNAVAIL && strstr(rep.message,
                                                                                "CUDA"),
                  "device memory on the CPU: LS_EUNAVAIL (%s)", rep.message);
    /* one FP64 system on the CPU: NaN in A or B named, a zero pivot's column */
    for (int l = 0; l < 2; l++) {
        ls_layout lay = l ? LS_ROW_MAJOR : LS_COL_MAJOR;
        sys z;
        make(&z, 5, 2, 1, LS_FLOAT64, lay, 21u);
        ls_problem q;
        describe(&q, &z, LS_SHAPE_DENSE, LS_FLOAT64, lay, LS_MEMORY_HOST);
        ((double *)z.A)[at(lay, 5, 3, 1)] = NAN;
        f += lt_check(ls_solve_problem(ctx, NULL, &q, &rep) == LS_ENONFINITE &&
                          strstr(rep.message, "A(4,2)"),
                      "NaN in A (%s): %s", l ? "row" : "col", rep.message);
        make(&z, 5, 2, 1, LS_FLOAT64, lay, 21u);
        describe(&q, &z, LS_SHAPE_DENSE, LS_FLOAT64, lay, LS_MEMORY_HOST);
        ((double *)z.B)[at(lay, l ? 2 : 5, 4, 1)] = INFINITY;
        f += lt_check(ls_solve_problem(ctx, NULL, &q, &rep) == LS_ENONFINITE &&
                          strstr(rep.message, "B(5,2)"),
                      "Inf in B (%s): %s", l ? "row" : "col", rep.message);
        make(&z, 5, 2, 1, LS_FLOAT64, lay, 21u);
        describe(&q, &z, LS_SHAPE_DENSE, LS_FLOAT64, lay, LS_MEMORY_HOST);
        for (int c = 0; c < 5; c++) /* column 3 a copy of column 1: U(3,3) = 0 */
            ((double *)z.A)[at(lay, 5, c, 2)] = ((double *)z.A)[at(lay, 5, c, 0)];
        int st = ls_solve_problem(ctx, NULL, &q, &rep);
        f += lt_check(st > 0 && st < LS_NOT_CONVERGED && rep.info == st,
                      "singular one system (%s): status %d (%s)", l ? "row" : "col", st,
                      rep.message);
        drop(&z);
    }
    describe(&p, &s, LS_SHAPE_DENSE, LS_FLOAT64, LS_COL_MAJOR, LS_MEMORY_HOST);
    p.method = "no-such";
    f += lt_check(ls_solve_problem(ctx, NULL, &p, &rep) == LS_EINVAL, "unknown method: LS_EINVAL");
    p.method = "batched";
    f += lt_check(ls_solve_problem(ctx, NULL, &p, &rep) == LS_EUNSUPPORTED &&
                      strstr(rep.message, "stack"),
                  "batched asked for one system: LS_EUNSUPPORTED (%s)", rep.message);
    p.method = NULL;
    p.dtype = LS_FLOAT32;
    p.policy = LS_POLICY_MIXED;
    f += lt_check(ls_solve_problem(ctx, NULL, &p, &rep) == LS_EINVAL, "mixed on FP32 data");
    describe(&p, &s, LS_SHAPE_DENSE, LS_FLOAT64, LS_COL_MAJOR, LS_MEMORY_HOST);
    p.lda = 2;
    f += lt_check(ls_solve_problem(ctx, NULL, &p, &rep) == LS_EINVAL, "lda < n: LS_EINVAL");
    describe(&p, &s, LS_SHAPE_STACK, LS_FLOAT64, LS_COL_MAJOR, LS_MEMORY_HOST);
    p.batch = 0;
    f += lt_check(ls_solve_problem(ctx, NULL, &p, &rep) == 0 && !strcmp(rep.path, "batched") &&
                      rep.batch == 0,
                  "empty stack: 0, path %s", rep.path);
    drop(&s);
    f += lt_check(ls_path_count() >= 6 && ls_path_name(ls_path_count()) == NULL &&
                      ls_path_description(0) != NULL,
                  "path table: %d paths", ls_path_count());
    return f;
}

/* ls_problem.mixed is honoured (the factor and refinement asked for are
 * the ones reported in mixed_result) and fallback off on a Hilbert matrix
 * (condition ~1e16, beyond classic refinement of FP32 factors) gives
 * LS_NOT_CONVERGED, on gives the FP64 answer and says so. */
static int mixed_options(ls_context *ctx)
{
    int f = 0, n = 40;
    sys s;
    make(&s, n, 1, 1, LS_FLOAT64, LS_COL_MAJOR, 11);
    static const ls_refine_kind kinds[] = {LS_REFINE_IR, LS_REFINE_GMRES};
    for (int k = 0; k < 2; k++) {
        ls_mixed_opts mo;
        ls_mixed_opts_init(&mo);
        mo.factor = LS_FACTOR_FP32;
        mo.refine = kinds[k];
        mo.pivot = LS_PIVOT_PARTIAL;
        ls_mixed_result mr;
        ls_problem p;
        describe(&p, &s, LS_SHAPE_DENSE, LS_FLOAT64, LS_COL_MAJOR, LS_MEMORY_HOST);
        memcpy(s.B, s.b, sizeof(double) * n);
        p.policy = LS_POLICY_MIXED;
        p.mixed = &mo;
        p.mixed_result = &mr;
        ls_report rep;
        int st = ls_solve_problem(ctx, NULL, &p, &rep);
        double r = worst(&s, LS_FLOAT64, LS_COL_MAJOR, ls_eps(LS_DOUBLE), -1);
        f += lt_check(st == 0 && !strcmp(rep.path, "mixed") && mr.factor == LS_FACTOR_FP32 &&
                          mr.refine == kinds[k] && mr.history_len >= 1 && mr.converged &&
                          !mr.fell_back && (k == 0 || mr.inner_iterations > 0) && r <= 30,
                      "mixed n=%d factor fp32, refine %s: status %d, result factor %s refine %s, "
                      "%d steps (%d inner), residual %.3g", n, ls_refine_name(kinds[k]), st,
                      ls_factor_name(mr.factor), ls_refine_name(mr.refine), mr.iterations,
                      mr.inner_iterations, r);
        ls_report_clear(&rep);
    }
    drop(&s);
    int h = 12;
    double *a = lt_doubles((size_t)h * h), *b = lt_doubles(h), *x = lt_doubles(h);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < h; i++)
            a[i + (size_t)j * h] = 1.0 / (i + j + 1);
    ls_fill_random(h, 1, b, h, 5);
    for (int fb = 0; fb < 2; fb++) {
        ls_mixed_opts mo;
        ls_mixed_opts_init(&mo);
        mo.factor = LS_FACTOR_FP32;
        mo.pivot = LS_PIVOT_PARTIAL;
        mo.refine = LS_REFINE_IR; /* GMRES-IR would still converge here */
        mo.fallback = fb;
        ls_mixed_result mr;
        ls_problem p;
        ls_problem_init(&p);
        p.n = h, p.nrhs = 1, p.A = a, p.lda = h, p.B = x, p.ldb = h;
        p.policy = LS_POLICY_MIXED;
        p.mixed = &mo;
        p.mixed_result = &mr;
        memcpy(x, b, sizeof(double) * h);
        ls_report rep;
        int st = ls_solve_problem(ctx, NULL, &p, &rep);
        int ok = fb ? st == 0 && mr.fell_back && residual(h, 1, a, x, b) <= 30
                    : st == LS_NOT_CONVERGED && !mr.fell_back && !mr.converged;
        f += lt_check(ok, "mixed Hilbert n=%d fp32, fallback %s: status %d, fell_back %d (%s)", h,
                      fb ? "on" : "off", st, mr.fell_back, rep.message);
        ls_report_clear(&rep);
    }
    free(a);
    free(b);
    free(x);
    return f;
}

/* One CSR problem under auto with the budgets given (0: defaults). */
static int sparse_auto_one(ls_context *ctx, ls_csr *A, double flops, const char *want_path,
                           ls_iter_method want_iter, const char *want_why, const char *label)
{
    int n = (int)A->n_rows;
    double *b = lt_doubles(n), *x = lt_doubles(n);
    ls_fill_random(n, 1, b, n, 9);
    memcpy(x, b, sizeof(double) * n);
    ls_sparse_opts so;
    ls_sparse_opts_init(&so);
    so.direct_flops = flops;
    ls_sparse_result sr;
    ls_problem p;
    ls_problem_init(&p);
    p.shape = LS_SHAPE_CSR, p.csr = A, p.n = n, p.nrhs = 1, p.B = x, p.ldb = n;
    p.sparse = &so;
    p.sparse_result = &sr;
    ls_report rep;
    int st = ls_solve_problem(ctx, NULL, &p, &rep);
    double r = ls_csr_scaled_residual(A, 1, b, n, x, n);
    int direct = !strcmp(want_path, "sparse-direct");
    int f = lt_check(st == 0 && !strcmp(rep.path, want_path) && strstr(rep.why, want_why) &&
                         sr.direct == direct && (direct || sr.iter.method == want_iter) &&
                         r <= LS_TEST_TOL,
                     "sparse auto %s n=%d: status %d path %s, ran %s (%s) residual %.3g", label, n,
                     st, rep.path, sr.method, rep.why, r);
    ls_report_clear(&rep);
    free(b);
    free(x);
    return f;
}

/* Sparse auto's rule: SPD Poisson and a nonsymmetric convection-diffusion
 * grid go direct within the budget, CG and GMRES beyond it. */
static int sparse_auto_cases(ls_context *ctx)
{
    int f = 0;
    ls_csr P, C;
    if (ls_gen_poisson(2, 20, &P) || ls_gen_grid(2, 20, 20, 1, 20.0, &C))
        return lt_check(0, "sparse generators");
    if (ls_csr_direct_available()) {
        f += sparse_auto_one(ctx, &P, 0, "sparse-direct", LS_ITER_CG, ": direct", "Poisson");
        f += sparse_auto_one(ctx, &C, 0, "sparse-direct", LS_ITER_GMRES, ": direct", "convdiff");
        f += sparse_auto_one(ctx, &P, 1e3, "sparse-krylov", LS_ITER_CG,
                             ": CG with ILU(0)", "Poisson, flop budget 1e3");
        f += sparse_auto_one(ctx, &C, 1e3, "sparse-krylov", LS_ITER_GMRES,
                             ": GMRES with ILU(0)", "convdiff, flop budget 1e3");
    } else {
        f += sparse_auto_one(ctx, &P, 0, "sparse-krylov", LS_ITER_CG, "CG with ILU(0)", "Poisson");
        f += sparse_auto_one(ctx, &C, 0, "sparse-krylov", LS_ITER_GMRES, "GMRES with ILU(0)",
                             "convdiff");
    }
    ls_csr_free(&P);
    ls_csr_free(&C);
    return f;
}

static int host_suite(void)
{
    ls_context *ctx;
    if (ls_context_create(&ctx, LS_BACKEND_CPU, 0))
        return lt_check(0, "CPU context");
    int f = 0;
    for (int l = 0; l < 2; l++)
        for (int d = 0; d < 2; d++) {
            ls_layout lay = l ? LS_ROW_MAJOR : LS_COL_MAJOR;
            ls_dtype dt = d ? LS_FLOAT32 : LS_FLOAT64;
            f += host_case(ctx, LS_SHAPE_DENSE, dt, lay, LS_POLICY_AUTO, NULL, 60, 3, 1, "dense");
            f += host_case(ctx, LS_SHAPE_STACK, dt, lay, LS_POLICY_AUTO, NULL, 8, 2, 300,
                           "batched");
            f += host_case(ctx, LS_SHAPE_STACK, dt, lay, LS_POLICY_AUTO, "gj1", 7, 1, 20,
                           "stack-loop");
        }
    f += host_case(ctx, LS_SHAPE_DENSE, LS_FLOAT64, LS_COL_MAJOR, LS_POLICY_MIXED, NULL, 120, 2,
                   1, "mixed");
    f += host_case(ctx, LS_SHAPE_DENSE, LS_FLOAT64, LS_ROW_MAJOR, LS_POLICY_MIXED, NULL, 50, 1, 1,
                   "mixed");
    f += host_case(ctx, LS_SHAPE_STACK, LS_FLOAT64, LS_ROW_MAJOR, LS_POLICY_MIXED, NULL, 9, 1, 5,
                   "mixed");
    /* FP64 data solved in single: the stack goes through the loop */
    f += host_case(ctx, LS_SHAPE_STACK, LS_FLOAT64, LS_COL_MAJOR, LS_POLICY_SINGLE, NULL, 5, 1, 4,
                   "stack-loop");
    f += host_case(ctx, LS_SHAPE_DENSE, LS_FLOAT64, LS_COL_MAJOR, LS_POLICY_AUTO, "gj2", 30, 1, 1,
                   "dense");
    f += singular_in_stack(ctx, LS_MEMORY_HOST, NULL);
    f += singular_in_stack(ctx, LS_MEMORY_HOST, "gj1");
    f += sparse_cases(ctx);
    f += mixed_options(ctx);
    f += sparse_auto_cases(ctx);
    f += refusals(ctx);
    ls_context_destroy(ctx);
    return f;
}

/* Device memory: dense (both layouts), a stack, mixed, on a CUDA context. */
static int device_case(ls_context *ctx, ls_shape sh, ls_dtype dt, ls_layout l, ls_policy pol,
                       int n, int k, int batch, const char *want_path, int async)
{
    sys s;
    make(&s, n, k, batch, dt, l, 7u * (unsigned)n + 1u);
    size_t es = dt == LS_FLOAT32 ? 4 : 8, ba = es * n * n * batch, bb = es * n * k * batch;
    void *dA = NULL, *dB = NULL;
    if (ls_device_malloc(ctx, &dA, ba) || ls_device_malloc(ctx, &dB, bb))
        return lt_check(0, "device memory for n=%d batch=%d", n, batch);
    ls_device_copy(ctx, dA, s.A, ba);
    ls_device_copy(ctx, dB, s.B, bb);
    ls_problem p;
    describe(&p, &s, sh, dt, l, LS_MEMORY_DEVICE);
    p.A = dA, p.B = dB, p.policy = pol;
    int *dinfo = NULL, *dipiv = NULL, bad = 0;
    if (async) { /* the caller's info and pivots on the device: nothing waits */
        ls_device_malloc(ctx, (void **)&dinfo, sizeof(int) * batch);
        ls_device_malloc(ctx, (void **)&dipiv, sizeof(int) * n * batch);
        p.info = dinfo, p.ipiv = dipiv;
    }
    ls_report rep;
    int st = ls_solve_problem(ctx, NULL, &p, &rep);
    ls_device_copy(ctx, s.B, dB, bb);
    if (async) {
        int *info = lt_xmalloc(sizeof(int) * batch);
        ls_device_copy(ctx, info, dinfo, sizeof(int) * batch);
        for (int i = 0; i < batch; i++)
            bad += info[i] != 0;
        free(info);
        ls_device_free(ctx, dinfo);
        ls_device_free(ctx, dipiv);
        rep.t_total = 1; /* an asynchronous call reports no device time */
    }
    double eps = pol == LS_POLICY_MIXED ? ls_eps(LS_DOUBLE)
                                        : ls_eps(dt == LS_FLOAT32 ? LS_SINGLE : LS_DOUBLE);
    double w = worst(&s, dt, l, eps, -1);
    int f = lt_check(st == 0 && !bad && !strcmp(rep.path, want_path) && w <= LS_TEST_TOL &&
                         rep.t_total > 0,
                     "device %s%s n=%d k=%d batch=%d %s %s: status %d path %s residual %.3g, "
                     "%.3f ms",
                     async ? "(queued) " : "", sh == LS_SHAPE_STACK ? "stack" : "dense", n, k, batch,
                     dt == LS_FLOAT32 ? "f32" : "f64", l == LS_ROW_MAJOR ? "row" : "col", st,
                     rep.path, w, rep.t_total * 1e3);
    ls_report_clear(&rep);
    ls_device_free(ctx, dA);
    ls_device_free(ctx, dB);
    drop(&s);
    return f;
}

static int device_suite(void)
{
    char why[256];
    if (!lt_backend_available(LS_BACKEND_CUDA, why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    ls_context *ctx;
    if (ls_context_create(&ctx, LS_BACKEND_CUDA, 0))
        return lt_check(0, "CUDA context");
    int f = 0;
    for (int l = 0; l < 2; l++)
        for (int d = 0; d < 2; d++) {
            ls_layout lay = l ? LS_ROW_MAJOR : LS_COL_MAJOR;
            ls_dtype dt = d ? LS_FLOAT32 : LS_FLOAT64;
            for (int q = 0; q < 2; q++) {
                f += device_case(ctx, LS_SHAPE_DENSE, dt, lay, LS_POLICY_AUTO, 300, 1, 1, "dense",
                                 q);
                f += device_case(ctx, LS_SHAPE_DENSE, dt, lay, LS_POLICY_AUTO, 70, 3, 1, "dense",
                                 q);
                f += device_case(ctx, LS_SHAPE_STACK, dt, lay, LS_POLICY_AUTO, 8, 1, 1000,
                                 "batched", q);
            }
        }
    f += device_case(ctx, LS_SHAPE_DENSE, LS_FLOAT64, LS_COL_MAJOR, LS_POLICY_MIXED, 1100, 1, 1,
                     "mixed", 0);
    f += singular_in_stack(ctx, LS_MEMORY_DEVICE, NULL);
    ls_context_destroy(ctx);
    return f;
}

int main(int argc, char **argv)
{
    int f = argc > 1 && !strcmp(argv[1], "cuda") ? device_suite() : host_suite();
    if (f == 77)
        return 77;
    printf("%s\n", f ? "FAILED" : "all passed");
    return f ? 1 : 0;
}
