/*
 * The sparse Krylov methods on the CUDA backend (ls_csr_solve_iter_ctx):
 * every method x preconditioner on generated and real matrices converges
 * to the caller's tolerance, as the CPU's does on the same system; scalings
 * of 1e+-150 converge after equilibration; an iteration cap is reported as
 * LS_NOT_CONVERGED with the last iterate, never as success. Skips (77)
 * without a GPU.
 *
 * usage: test_cuda_sparse_krylov [--matrices DIR]   (DIR holds real/)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_testlib.h"

static int failures;

#define CHECK(cond, ...)                                     \
    do {                                                     \
        if (!(cond)) {                                       \
            failures++;                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);      \
            printf(__VA_ARGS__);                             \
            printf("\n");                                    \
        }                                                    \
    } while (0)

static const char *pc_name[] = {"none", "jacobi", "ilu0", "ilut"};
static const char *m_name[] = {"bicgstab", "gmres", "cg"};

/* b = A * ones. */
static double *rhs_ones(const ls_csr *A)
{
    double *b = ct_alloc((size_t)A->n_rows, sizeof(double));
    for (int64_t i = 0; i < A->n_rows; i++) {
        b[i] = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            b[i] += A->val[p];
    }
    return b;
}

/* One solve on the GPU and on the CPU with the same options: both must
 * give the same verdict, and a converged GPU answer must meet its own
 * tolerance on the caller's A. */
static void one(ls_context *ctx, const char *name, const ls_csr *A, ls_iter_method m,
                ls_precond pc, int expect_converge)
{
    const int64_t n = A->n_rows;
    double *b = rhs_ones(A);
    double *xg = ct_alloc((size_t)n, sizeof(double)), *xc = ct_alloc((size_t)n, sizeof(double));
    memset(xg, 0, sizeof(double) * (size_t)n);
    memset(xc, 0, sizeof(double) * (size_t)n);
    ls_iter_options o;
    ls_iter_options_init(&o);
    o.method = m;
    o.precond = pc;
    o.equilibrate = 1;
    o.max_iter = m == LS_ITER_CG ? 5000 : 2000;
    ls_iter_report rg, rc;
    char err[512] = "";
    int sg = ls_csr_solve_iter_ctx(ctx, A, b, xg, &o, &rg, err, sizeof err);
    int sc = ls_csr_solve_iter(A, b, xc, &o, &rc, NULL, 0);
    printf("%-12s %-8s %-6s gpu: %-16s %5d its rel %.2e | cpu: %-16s %5d its\n", name,
           m_name[m], pc_name[pc], ls_status_name(sg), rg.iterations, rg.rel_residual,
           ls_status_name(sc), rc.iterations);
    CHECK(sg >= 0 || sg == LS_EUNSUPPORTED, "%s: device failure %s: %s", name,
          ls_status_name(sg), err);
    if (expect_converge) {
        CHECK(sg == 0, "%s %s %s: %s (%s)", name, m_name[m], pc_name[pc], ls_status_name(sg),
              rg.message);
    }
    if (sg == 0) {
        CHECK(rg.converged && rg.rel_residual <= rg.rtol, "%s: converged but rel %.3e > %.3e",
              name, rg.rel_residual, rg.rtol);
        CHECK(strstr(rg.message, "cuda") != NULL, "%s: the report does not say where: %s", name,
              rg.message);
    } else if (sg > 0) {
        CHECK(!rg.converged, "%s: %s yet converged", name, ls_status_name(sg));
    }
    /* The same method on the same system: the iteration counts may differ
     * by rounding (GMRES's Gram-Schmidt is classical, twice, on the GPU),
     * but not the outcome when the CPU converges comfortably. */
    if (sc == 0 && expect_converge)
        CHECK(sg == 0, "%s: cpu converged, gpu %s", name, ls_status_name(sg));
    free(b), free(xg), free(xc);
}

static void scaled_case(ls_context *ctx)
{
    ls_csr A;
    if (ls_gen_grid(2, 30, 30, 1, 20.0, &A) != 0) {
        CHECK(0, "ls_gen_grid failed");
        return;
    }
    /* rows by 1e150 and 1e-150 in turn: breaks an unscaled iteration */
    for (int64_t i = 0; i < A.n_rows; i++)
        for (int64_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; p++)
            A.val[p] *= (i % 2) ? 1e150 : 1e-150;
    one(ctx, "convdiff*1e150", &A, LS_ITER_GMRES, LS_PRECOND_ILU0, 1);
    one(ctx, "convdiff*1e150", &A, LS_ITER_BICGSTAB, LS_PRECOND_JACOBI, 1);
    ls_csr_free(&A);
}

static void cap_case(ls_context *ctx)
{
    ls_csr A;
    if (ls_gen_poisson(2, 60, &A) != 0) {
        CHECK(0, "ls_gen_poisson failed");
        return;
    }
    double *b = rhs_ones(&A), *x = ct_alloc((size_t)A.n_rows, sizeof(double));
    memset(x, 0, sizeof(double) * (size_t)A.n_rows);
    ls_iter_options o;
    ls_iter_options_init(&o);
    o.method = LS_ITER_CG;
    o.max_iter = 5;
    ls_iter_report r;
    int st = ls_csr_solve_iter_ctx(ctx, &A, b, x, &o, &r, NULL, 0);
    CHECK(st == LS_NOT_CONVERGED && !r.converged && r.iterations == 5,
          "iteration cap: %s, converged %d, %d iterations", ls_status_name(st), r.converged,
          r.iterations);
    CHECK(isfinite(r.rel_residual) && r.rel_residual < 1, "cap: rel %.3e", r.rel_residual);
    free(b), free(x);
    ls_csr_free(&A);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--matrices"))
            dir = argv[i + 1];
    ls_context *ctx = ct_open_or_skip();

    ls_csr P, C;
    if (ls_gen_poisson(2, 100, &P) != 0 || ls_gen_grid(2, 100, 100, 1, 20.0, &C) != 0) {
        printf("FAIL: generators\n");
        return 1;
    }
    for (int pc = 0; pc < 4; pc++) {
        one(ctx, "poisson100^2", &P, LS_ITER_CG, (ls_precond)pc, pc != LS_PRECOND_ILUT);
        one(ctx, "poisson100^2", &P, LS_ITER_BICGSTAB, (ls_precond)pc, 1);
        one(ctx, "poisson100^2", &P, LS_ITER_GMRES, (ls_precond)pc, pc != LS_PRECOND_NONE);
        one(ctx, "convdiff", &C, LS_ITER_GMRES, (ls_precond)pc, pc >= LS_PRECOND_ILU0);
        one(ctx, "convdiff", &C, LS_ITER_BICGSTAB, (ls_precond)pc, pc >= LS_PRECOND_ILU0);
    }
    ls_csr_free(&P), ls_csr_free(&C);
    scaled_case(ctx);
    cap_case(ctx);

    if (dir) {
        /* the real matrices the CPU's tests use, with what converges there */
        static const struct {
            const char *file;
            ls_iter_method m;
            ls_precond pc;
        } cases[] = {
            {"494_bus.mtx", LS_ITER_CG, LS_PRECOND_ILU0},
            {"494_bus.mtx", LS_ITER_BICGSTAB, LS_PRECOND_ILU0},
            {"pde900.mtx", LS_ITER_GMRES, LS_PRECOND_ILU0},
            {"pde900.mtx", LS_ITER_BICGSTAB, LS_PRECOND_ILU0},
            {"west0479.mtx", LS_ITER_GMRES, LS_PRECOND_ILUT},
            {"west0479.mtx", LS_ITER_BICGSTAB, LS_PRECOND_ILUT},
            {"watt_2.mtx", LS_ITER_GMRES, LS_PRECOND_ILU0},
            {"watt_2.mtx", LS_ITER_BICGSTAB, LS_PRECOND_ILU0},
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            char path[1024], err[512];
            snprintf(path, sizeof path, "%s/real/%s", dir, cases[c].file);
            ls_csr A;
            if (ls_csr_read_mm(path, &A, err, sizeof err) != 0) {
                CHECK(0, "%s", err);
                continue;
            }
            one(ctx, cases[c].file, &A, cases[c].m, cases[c].pc, 1);
            ls_csr_free(&A);
        }
    }
    ls_context_destroy(ctx);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ok", failures);
    return failures ? 1 : 0;
}
