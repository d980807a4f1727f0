/*
 * Systems generated in place (ls_pdgenerate) on every grid named on the
 * command line: A and b = A*ones gathered must equal the serial
 * ls_generate's bit for bit (random, diagdom; the other per-entry kinds for
 * A), ls_pdgesv's X must equal LAPACK's dgesv on the serial matrix to
 * rounding, and ls_pdresidual must be <= 30 (and catch a wrong X). nb in
 * {2, 32}, n in {1, 7, 64, 255}. One MAGMA-style row per case on rank 0;
 * exit status = failures.
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linsolve_dist.h"
#include "testutil.h"

static int one_case(ls_grid *g, ls_gen_kind kind, int n, int nb, int solve, const char *gname)
{
    int P, Q, myr, myc, grank;
    ls_grid_info(g, &P, &Q, &myr, &myc);
    MPI_Comm comm = ls_grid_comm(g);
    MPI_Comm_rank(comm, &grank);
    const uint64_t seed = 7u + (uint64_t)n;
    int lr = ls_numroc(n, nb, myr, 0, P), lc = ls_numroc(n, nb, myc, 0, Q);
    int lcb = ls_numroc(1, nb, myc, 0, Q), lld = lr > 1 ? lr : 1, info = -1;
    int da[LS_DESC_LEN], db[LS_DESC_LEN];
    ls_descinit(da, n, n, nb, nb, 0, 0, g, lld);
    ls_descinit(db, n, 1, nb, nb, 0, 0, g, lld);
    size_t la = (size_t)lld * (lc ? lc : 1), lb = (size_t)lld * (lcb ? lcb : 1);
    double *a = lt_doubles(la), *b = lt_doubles(lb), *b0 = lt_doubles(lb);
    int *ipiv = lt_xmalloc(sizeof(int) * (size_t)(lr + nb));
    double t0 = MPI_Wtime();
    int st = ls_pdgenerate(kind, seed, a, da, solve ? b : NULL, solve ? db : NULL, g);
    memcpy(b0, b, sizeof(double) * lb);
    double *GA = grank == 0 ? lt_doubles((size_t)n * n) : NULL;
    double *GB = grank == 0 ? lt_doubles((size_t)n) : NULL;
    double *X = grank == 0 ? lt_doubles((size_t)n) : NULL;
    st |= ls_pdgather(0, GA, n, a, da, g);
    if (solve)
        st |= ls_pdgather(0, GB, n, b, db, g);
    double res = 0, res_bad = 0;
    if (solve && st == 0) {
        st |= ls_pdgesv(n, 1, a, 1, 1, da, ipiv, b, 1, 1, db, &info, g);
        st |= ls_pdgather(0, X, n, b, db, g);
        st |= ls_pdgenerate(kind, seed, a, da, NULL, NULL, g); /* A again, over the factors */
        st |= ls_pdresidual(n, 1, a, da, b, db, b0, db, &res, g);
        for (size_t i = 0; i < lb; ++i) /* a wrong X must fail the check */
            b[i] *= 1.0 + 1e-6 * (double)(i % 3 + 1);
        st |= ls_pdresidual(n, 1, a, da, b, db, b0, db, &res_bad, g);
    }
    double t = MPI_Wtime() - t0;
    int fail = 0;
    if (grank == 0) {
        double *S = lt_doubles((size_t)n * n), *SB = lt_doubles((size_t)n);
        ls_generate(kind, n, S, n, seed, 0);
        for (int j = 0; j < n; ++j) /* b = A*ones as the serial CLI sums it */
            for (int i = 0; i < n; ++i)
                SB[i] += S[i + (size_t)j * n];
        int same_a = memcmp(S, GA, sizeof(double) * (size_t)n * n) == 0;
        int same_b = !solve || memcmp(SB, GB, sizeof(double) * (size_t)n) == 0;
        double d = 0, s = 0;
        int rinfo = 0;
        if (solve) {
            int *rp = lt_xmalloc(sizeof(int) * (size_t)n);
            rinfo = (int)LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, S, n, rp, SB, n);
            for (int i = 0; i < n; ++i) {
                d = fabs(X[i] - SB[i]) > d ? fabs(X[i] - SB[i]) : d;
                s = fabs(SB[i]) > s ? fabs(SB[i]) : s;
            }
            d = s > 0 ? d / s : d;
            free(rp);
        }
        /* same matrix, same pivots: X equal to rounding (cond(A) eps) */
        int ok = st == 0 && same_a && same_b &&
                 (!solve || (info == 0 && rinfo == 0 && d <= 1e-9 && res <= LS_TEST_TOL &&
                             !(res_bad <= LS_TEST_TOL)));
        char method[64];
        snprintf(method, sizeof method, "pdgenerate %s nb=%d%s", ls_gen_name(kind), nb,
                 solve ? " +gesv" : "");
        fail = lt_row(n, 1, method, gname, "d", t, 0, res, ok);
        if (!ok)
            printf("      status %d, A %s, b %s, info %d (LAPACK %d), max|X - X(LAPACK)|/max|X| "
                   "= %.3g, residual of a wrong X %.3g\n", st, same_a ? "same" : "DIFFERS",
                   same_b ? "same" : "DIFFERS", info, rinfo, d, res_bad);
        free(S);
        free(SB);
    }
    free(a), free(b), free(b0), free(ipiv), free(GA), free(GB), free(X);
    return fail;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, fails = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        lt_header();
    for (int k = 1; k < argc; ++k) {
        int P, Q;
        ls_grid *g = NULL;
        if (sscanf(argv[k], "%dx%d", &P, &Q) != 2 || P * Q > size ||
            ls_grid_create(&g, MPI_COMM_WORLD, P, Q) != 0) {
            fails++;
            continue;
        }
        if (ls_grid_comm(g) != MPI_COMM_NULL) {
            char gname[32];
            snprintf(gname, sizeof gname, "mpi %dx%d", P, Q);
            static const int ns[] = {1, 7, 64, 255}, nbs[] = {2, 32};
            for (int b = 0; b < 2; ++b)
                for (int i = 0; i < 4; ++i) {
                    fails += one_case(g, LS_GEN_RANDOM, ns[i], nbs[b], 1, gname);
                    fails += one_case(g, LS_GEN_DIAGDOM, ns[i], nbs[b], 1, gname);
                }
            static const ls_gen_kind more[] = {LS_GEN_ZERODIAG, LS_GEN_SINGULAR, LS_GEN_HILBERT,
                                               LS_GEN_GFPP, LS_GEN_KAHAN};
            for (size_t i = 0; i < sizeof more / sizeof more[0]; ++i)
                fails += one_case(g, more[i], 61, 4, 0, gname);
            /* no per-entry formula: refused on every rank, nothing touched */
            int n = 16, lr = ls_numroc(n, 4, 0, 0, P), d[LS_DESC_LEN];
            ls_descinit(d, n, n, 4, 4, 0, 0, g, lr > 1 ? lr : 1);
            double *a = lt_doubles((size_t)n * n);
            int st = ls_pdgenerate(LS_GEN_RANDSVD, 1, a, d, NULL, NULL, g), all = 0;
            int ok = st == LS_EUNSUPPORTED;
            MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ls_grid_comm(g));
            int grank;
            MPI_Comm_rank(ls_grid_comm(g), &grank);
            if (grank == 0)
                fails += lt_check(all, "%s pdgenerate randsvd: %s (%s)", gname,
                                  ls_status_name(st), ls_grid_error(g));
            free(a);
        }
        ls_grid_destroy(g);
    }
    MPI_Bcast(&fails, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return fails > 125 ? 125 : fails;
}
