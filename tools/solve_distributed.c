/*
 * `mpirun -np R linsolve solve A [B] --distributed [--grid PxQ] [--nb N]`
 * (or `--gen KIND -n N [--seed S]` instead of A, or `linsolve gen KIND -n N
 * --distributed`: each rank generates its own blocks, nothing is read):
 * rank 0 reads A (and B, or b = A*ones), the ranks agree on the size, A and
 * B are scattered onto a P x Q block-cyclic layout, ls_pdgetrf and
 * ls_pdgetrs solve, X is gathered on rank 0, which checks it against the
 * untouched A and B and prints the usual report (solve_report.c). Every rank
 * exits with the same status. Times: h2d = scatter from rank 0, factor =
 * pdgetrf, solve = pdgetrs, d2h = gather (each the slowest rank's).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "solve_distributed.h"
#include "solve_report.h"

int solve_distributed_parse_grid(const char *text, int *p, int *q)
{
    char tail;
    if (!text || sscanf(text, "%dx%d%c", p, q, &tail) != 2 || *p < 1 || *q < 1 ||
        *p > 65536 || *q > 65536)
        return -1;
    return 0;
}

#ifndef LS_HAVE_MPI

int solve_distributed_dispatch(int *argc, char **argv, int *code)
{
    for (int i = 1; i < *argc; ++i) {
        if (!strcmp(argv[i], "--distributed")) {
            fprintf(stderr, "linsolve solve: --distributed: built without MPI (install "
                            "libopenmpi-dev and rebuild; see docs/distributed.md)\n");
            *code = LS_EXIT_UNAVAILABLE;
            return 1;
        }
    }
    return 0;
}

#else

#include "linsolve_dist.h"

typedef struct dist_args {
    const char *a_path, *b_path, *out_path;
    int p, q, nb, json, quiet;
    ls_backend_kind backend;  /* --backend cpu|cuda: the ranks' local engine */
    int device;               /* --device N; -1: by the rank's place on its host */
    int from_gen;             /* `linsolve gen KIND ... --distributed` */
    int have_gen;             /* --gen KIND: generated in place */
    ls_gen_kind kind;
    long long n;
    unsigned long long seed;
    char label[128];          /* what the report shows as A */
} dist_args;

static void dist_help(FILE *out)
{
    fprintf(out,
            "Usage: mpirun -np R linsolve solve A [B] --distributed [OPTIONS]\n"
            "       mpirun -np R linsolve solve --distributed --gen KIND -n N [--seed S] [OPTIONS]\n"
            "       mpirun -np R linsolve gen KIND -n N --distributed [--seed S] [OPTIONS]\n"
            "\n"
            "Solve A X = B on R MPI ranks (ScaLAPACK's pdgesv: LU with partial pivoting\n"
            "on a 2-D block-cyclic layout; docs/distributed.md). Rank 0 reads A and B\n"
            "(without B: b = A * ones), distributes them, gathers X and reports.\n"
            "With --gen, nothing is read: each rank generates only its own blocks of\n"
            "'linsolve gen KIND -n N --seed S''s matrix (the same bits on any grid) and\n"
            "b = A * ones; the residual is checked with a distributed product, so no\n"
            "rank ever holds A. KIND: random, diagdom, zerodiag, singular, hilbert,\n"
            "gfpp, kahan (randsvd and the sparse kinds have no per-entry formula).\n"
            "\n"
            "Options:\n"
            "  --gen KIND        generate A in place instead of reading it (with -n)\n"
            "  -n N              order of the generated matrix\n"
            "  --seed S          seed of the generator (default 1, as 'linsolve gen')\n"
            "  --grid PxQ        process grid, P*Q <= R (default: the squarest, P <= Q)\n"
            "  --backend B       each rank's local work: cpu (default) or cuda (a GPU per\n"
            "                    rank, NCCL between them; 1xQ grids suit GPUs best)\n"
            "  --device N        CUDA device (default: the rank's index on its host)\n"
            "  --nb N            block size (default 64; smaller when n is small)\n"
            "  -o, --output FILE write X (Matrix Market, or .npy by extension)\n"
            "  --json            one JSON object instead of the report\n"
            "  --quiet           print nothing on success\n"
            "\n"
            "Exit status as for 'linsolve solve'; every rank exits with it.\n");
}

/* 0 parsed; 1 help; -1 usage error (printed by rank 0 only). */
static int dist_parse(int argc, char **argv, dist_args *a, int rank)
{
    const char *cmd = "solve";
    memset(a, 0, sizeof *a);
    a->backend = LS_BACKEND_CPU;
    a->device = -1;
    a->nb = -1;
    a->seed = 1;
    a->from_gen = argc > 0 && !strcmp(argv[0], "gen");
    if (a->from_gen)
        cmd = "gen";
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        long long iv;
        if ((arg[0] != '-' || arg[1] == '\0') && a->from_gen && !a->have_gen) {
            if (ls_gen_parse(arg, &a->kind) != 0) {
                if (rank == 0)
                    ls_cli_usage_error(cmd, "unknown matrix kind '%s'", arg);
                return -1;
            }
            a->have_gen = 1;
        } else if (arg[0] != '-' || arg[1] == '\0') {
            if (!a->a_path) {
                a->a_path = arg;
            } else if (!a->b_path) {
                a->b_path = arg;
            } else {
                if (rank == 0)
                    ls_cli_usage_error(cmd, "unexpected argument '%s'", arg);
                return -1;
            }
        } else if (!strcmp(arg, "--distributed")) {
            continue;
        } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            if (rank == 0)
                dist_help(stdout);
            return 1;
        } else if (!strcmp(arg, "--json")) {
            a->json = 1;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            a->quiet = 1;
        } else if (!strcmp(arg, "--grid") && i + 1 < argc) {
            if (solve_distributed_parse_grid(argv[++i], &a->p, &a->q) != 0) {
                if (rank == 0)
                    ls_cli_usage_error(cmd, "--grid wants PxQ, e.g. 2x2 (got '%s')", argv[i]);
                return -1;
            }
        } else if (!strcmp(arg, "--backend") && i + 1 < argc) {
            if (ls_backend_parse(argv[++i], &a->backend) != 0 ||
                (a->backend != LS_BACKEND_CPU && a->backend != LS_BACKEND_CUDA)) {
                if (rank == 0)
                    ls_cli_usage_error(cmd, "--backend with --distributed is cpu or cuda (got "
                                       "'%s')", argv[i]);
                return -1;
            }
        } else if (!strcmp(arg, "--device") && i + 1 < argc) {
            if (ls_cli_parse_int(cmd, "--device", argv[++i], 0, 1024, &iv) != 0)
                return -1;
            a->device = (int)iv;
        } else if (!strcmp(arg, "--nb") && i + 1 < argc) {
            if (ls_cli_parse_int(cmd, "--nb", argv[++i], 1, 4096, &iv) != 0)
                return -1;
            a->nb = (int)iv;
        } else if ((!strcmp(arg, "-o") || !strcmp(arg, "--output")) && i + 1 < argc) {
            a->out_path = argv[++i];
        } else if (!strcmp(arg, "--gen") && i + 1 < argc && !a->from_gen) {
            if (ls_gen_parse(argv[++i], &a->kind) != 0) {
                if (rank == 0)
                    ls_cli_usage_error(cmd, "unknown matrix kind '%s'", argv[i]);
                return -1;
            }
            a->have_gen = 1;
        } else if (!strcmp(arg, "-n") && i + 1 < argc) {
            if (ls_cli_parse_int(cmd, "-n", argv[++i], 1, INT_MAX / 2, &a->n) != 0)
                return -1;
        } else if (!strcmp(arg, "--seed") && i + 1 < argc) {
            if (ls_cli_parse_int(cmd, "--seed", argv[++i], 0, LLONG_MAX, &iv) != 0)
                return -1;
            a->seed = (unsigned long long)iv;
        } else {
            if (rank == 0)
                ls_cli_usage_error(cmd, "option '%s' is not available with --distributed", arg);
            return -1;
        }
    }
    if (a->have_gen) {
        const char *why = a->a_path ? "--gen makes A: no matrix file with it"
                          : a->n == 0 ? "--gen needs -n N"
                          : !ls_gen_is_local(a->kind) ? "cannot be generated block by block "
                                                        "(no per-entry formula); supported: random, "
                                                        "diagdom, zerodiag, singular, hilbert, gfpp, "
                                                        "kahan"
                                                      : NULL;
        if (why) {
            if (rank == 0) {
                if (a->a_path || a->n == 0)
                    ls_cli_usage_error(cmd, "%s", why);
                else
                    ls_cli_usage_error(cmd, "%s %s", ls_gen_name(a->kind), why);
            }
            return -1;
        }
        snprintf(a->label, sizeof a->label, "gen %s -n %lld --seed %llu", ls_gen_name(a->kind),
                 a->n, a->seed);
    } else if (a->n != 0) {
        if (rank == 0)
            ls_cli_usage_error(cmd, "-n goes with --gen KIND");
        return -1;
    } else if (!a->a_path) {
        if (rank == 0)
            ls_cli_usage_error(cmd, "missing the matrix file A (or --gen KIND -n N)");
        return -1;
    }
    if (ls_cli_is_stream(a->a_path) || ls_cli_is_stream(a->b_path) ||
        ls_cli_is_stream(a->out_path)) {
        if (rank == 0)
            ls_cli_usage_error(cmd, "--distributed reads and writes files, not '-'");
        return -1;
    }
    return 0;
}

static void default_grid(int size, int *p, int *q)
{
    *p = 1;
    for (int d = 1; d * d <= size; ++d)
        if (size % d == 0)
            *p = d;
    *q = size / *p;
}

/* Rank 0: read A and B into res-owned matrices; nonzero on failure. */
static int read_system(const dist_args *a, ls_matrix *A, ls_matrix *B, solve_result *res)
{
    char err[512] = "";
    ls_io_info info;
    ls_cli_outcome bad = {LS_EXIT_INPUT, "invalid_input"};
    int st = ls_io_read_from(NULL, a->a_path, LS_IO_AUTO, A, &info, NULL, NULL, err, sizeof err);
    if (st != 0) {
        solve_result_fail(res, ls_cli_outcome_of(st, 1), st, "%s", err[0] ? err : ls_strerror(st));
        return -1;
    }
    if (A->rows != A->cols || A->rows < 1) {
        solve_result_fail(res, bad, LS_ESIZE, "%s: matrix is %d x %d; a square system is needed",
                          a->a_path, A->rows, A->cols);
        return -1;
    }
    const int n = A->rows;
    for (size_t i = 0; i < (size_t)n * (size_t)n; ++i)
        if (!isfinite(A->data[i])) {
            solve_result_fail(res, bad, LS_ENONFINITE, "%s: an entry is not finite", a->a_path);
            return -1;
        }
    if (a->b_path) {
        st = ls_io_read_from(NULL, a->b_path, LS_IO_AUTO, B, &info, NULL, NULL, err, sizeof err);
        if (st != 0) {
            solve_result_fail(res, ls_cli_outcome_of(st, 1), st, "%s",
                              err[0] ? err : ls_strerror(st));
            return -1;
        }
        if (B->rows != n || B->cols < 1) {
            solve_result_fail(res, bad, LS_ESIZE,
                              "%s: right-hand side is %d x %d; A is %d x %d, so B needs %d rows",
                              a->b_path, B->rows, B->cols, n, n, n);
            return -1;
        }
        res->nrhs = B->cols;
        return 0;
    }
    if (!(B->data = calloc((size_t)n, sizeof(double)))) {
        ls_cli_outcome oom = {LS_EXIT_UNAVAILABLE, "out_of_memory"};
        solve_result_fail(res, oom, LS_ENOMEM, "out of memory for the right-hand side");
        return -1;
    }
    B->rows = B->ld = n;
    B->cols = 1;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            B->data[i] += A->data[(size_t)j * (size_t)n + (size_t)i];
    res->nrhs = 1;
    res->rhs_is_A_ones = 1;
    return 0;
}

/* The slowest rank's time since t0. */
static double slowest(double t0, MPI_Comm comm)
{
    double t = MPI_Wtime() - t0, tmax = t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    return tmax;
}

/* getrf + getrs ('N') of the local pieces a (la doubles) and b (lb) on the
 * grid's engine: for a GPU engine they are copied to its memory first (added
 * to h2d) and X back (d2h); on the CPU they are used in place. */
static int engine_solve(ls_grid *g, int n, int nrhs, double *a, const int *da, size_t la,
                        int *ipiv, double *b, const int *db, size_t lb, ls_report *rep)
{
    MPI_Comm comm = ls_grid_comm(g);
    const int host = ls_grid_engine_host_memory(g);
    double *ea = a, *eb = b;
    int st = 0, info = 0;
    double t0 = MPI_Wtime();
    if (!host) {
        void *pa = NULL, *pb = NULL;
        st = ls_grid_malloc(g, &pa, la * sizeof(double));
        if (st == 0)
            st = ls_grid_malloc(g, &pb, lb * sizeof(double));
        ea = pa;
        eb = pb;
        if (st == 0)
            st = ls_grid_memcpy(g, ea, a, la * sizeof(double), 1);
        if (st == 0)
            st = ls_grid_memcpy(g, eb, b, lb * sizeof(double), 1);
        int worst = st; /* a rank that could not must not leave the others waiting */
        MPI_Allreduce(&st, &worst, 1, MPI_INT, MPI_MIN, comm);
        st = worst;
        rep->t_h2d += slowest(t0, comm);
    }
    if (st == 0) {
        t0 = MPI_Wtime();
        st = ls_pdgetrf_gpu(n, n, ea, 1, 1, da, ipiv, &info, g);
        rep->t_factor = slowest(t0, comm);
    }
    if (st == 0) {
        t0 = MPI_Wtime();
        st = ls_pdgetrs_gpu('N', n, nrhs, ea, 1, 1, da, ipiv, eb, 1, 1, db, &info, g);
        rep->t_solve = slowest(t0, comm);
    }
    if (!host) {
        t0 = MPI_Wtime();
        if (st == 0)
            st = ls_grid_memcpy(g, b, eb, lb * sizeof(double), 0);
        rep->t_d2h += slowest(t0, comm);
        ls_grid_free(g, ea);
        ls_grid_free(g, eb);
    }
    return st;
}

/* The distributed part, on the grid's ranks; X (rank 0) receives the answer.
 * Returns the library status (info > 0 singular). */
static int run_grid(ls_grid *g, int n, int nrhs, int nb, const ls_matrix *A, const ls_matrix *B,
                    double *X, ls_report *rep)
{
    int P, Q, myr, myc, rank;
    ls_grid_info(g, &P, &Q, &myr, &myc);
    MPI_Comm comm = ls_grid_comm(g);
    MPI_Comm_rank(comm, &rank);
    int lr = ls_numroc(n, nb, myr, 0, P), lc = ls_numroc(n, nb, myc, 0, Q);
    int lcb = ls_numroc(nrhs, nb, myc, 0, Q), lld = lr > 1 ? lr : 1;
    int da[LS_DESC_LEN], db[LS_DESC_LEN];
    ls_descinit(da, n, n, nb, nb, 0, 0, g, lld);
    ls_descinit(db, n, nrhs, nb, nb, 0, 0, g, lld);
    double *a = malloc(sizeof(double) * (size_t)lld * (size_t)(lc > 0 ? lc : 1));
    double *b = malloc(sizeof(double) * (size_t)lld * (size_t)(lcb > 0 ? lcb : 1));
    int *ipiv = malloc(sizeof(int) * (size_t)(lr + nb));
    int ok = a && b && ipiv, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int st = LS_ENOMEM;
    if (!all_ok) {
        snprintf(rep->message, sizeof rep->message, "out of memory for the local pieces");
        goto done;
    }
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    st = ls_pdscatter(0, rank == 0 ? A->data : NULL, rank == 0 ? A->ld : 1, a, da, g);
    if (st == 0)
        st = ls_pdscatter(0, rank == 0 ? B->data : NULL, rank == 0 ? B->ld : 1, b, db, g);
    rep->t_h2d = slowest(t0, comm);
    if (st == 0)
        st = engine_solve(g, n, nrhs, a, da, (size_t)lld * (size_t)(lc > 0 ? lc : 1), ipiv, b, db,
                          (size_t)lld * (size_t)(lcb > 0 ? lcb : 1), rep);
    if (st == 0) {
        t0 = MPI_Wtime();
        st = ls_pdgather(0, X, n, b, db, g);
        rep->t_d2h += slowest(t0, comm);
    }
    if (st != 0 && st < 0)
        snprintf(rep->message, sizeof rep->message, "%s", ls_grid_error(g));
done:
    free(a);
    free(b);
    free(ipiv);
    return st;
}

/* The distributed part with A generated in place: each rank fills its own
 * blocks of A and b = A*ones (ls_pdgenerate), solves, X is gathered on
 * rank 0 (for the report and -o); then A is generated again over the
 * factors and the residual computed by a distributed product
 * (ls_pdresidual), the same on every rank. h2d = generation. */
static int run_grid_gen(ls_grid *g, const dist_args *da_, int n, int nb, double *X, ls_report *rep,
                        double *resid)
{
    int P, Q, myr, myc;
    ls_grid_info(g, &P, &Q, &myr, &myc);
    MPI_Comm comm = ls_grid_comm(g);
    int lr = ls_numroc(n, nb, myr, 0, P), lc = ls_numroc(n, nb, myc, 0, Q);
    int lcb = ls_numroc(1, nb, myc, 0, Q), lld = lr > 1 ? lr : 1;
    int da[LS_DESC_LEN], db[LS_DESC_LEN];
    ls_descinit(da, n, n, nb, nb, 0, 0, g, lld);
    ls_descinit(db, n, 1, nb, nb, 0, 0, g, lld);
    size_t la = (size_t)lld * (size_t)(lc > 0 ? lc : 1), lb = (size_t)lld * (size_t)(lcb > 0 ? lcb : 1);
    double *a = malloc(sizeof(double) * la);
    double *b = malloc(sizeof(double) * lb), *b0 = malloc(sizeof(double) * lb);
    int *ipiv = malloc(sizeof(int) * (size_t)(lr + nb));
    int ok = a && b && b0 && ipiv, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int st = LS_ENOMEM;
    if (!all_ok) {
        snprintf(rep->message, sizeof rep->message,
                 "out of memory for the local pieces (%zu doubles on some rank)", la);
        goto done;
    }
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    st = ls_pdgenerate(da_->kind, (uint64_t)da_->seed, a, da, b, db, g);
    memcpy(b0, b, sizeof(double) * lb);
    rep->t_h2d = slowest(t0, comm);
    if (st == 0)
        st = engine_solve(g, n, 1, a, da, la, ipiv, b, db, lb, rep);
    if (st == 0) {
        t0 = MPI_Wtime();
        st = ls_pdgather(0, X, n, b, db, g);
        rep->t_d2h += slowest(t0, comm);
    }
    /* the check: A again (deterministic) over its factors */
    if (st == 0)
        st = ls_pdgenerate(da_->kind, (uint64_t)da_->seed, a, da, NULL, NULL, g);
    if (st == 0)
        st = ls_pdresidual(n, 1, a, da, b, db, b0, db, resid, g);
    if (st != 0 && st < 0)
        snprintf(rep->message, sizeof rep->message, "%s", ls_grid_error(g));
done:
    free(a);
    free(b);
    free(b0);
    free(ipiv);
    return st;
}

static int dist_main(int argc, char **argv)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dist_args a;
    int pr = dist_parse(argc, argv, &a, rank);
    if (pr != 0)
        return pr > 0 ? LS_EXIT_OK : LS_EXIT_USAGE;
    if (a.p == 0)
        default_grid(size, &a.p, &a.q);
    if (a.p * a.q > size) {
        if (rank == 0)
            ls_cli_usage_error("solve", "--grid %dx%d needs %d ranks; mpirun gave %d", a.p, a.q,
                               a.p * a.q, size);
        return LS_EXIT_USAGE;
    }
    solve_result res;
    solve_result_init(&res);
    res.method = LS_METHOD_LU;
    res.precision = LS_DOUBLE;
    res.backend = a.backend;
    res.backend_known = 1;
    res.a_path = a.have_gen ? a.label : a.a_path;
    res.b_path = a.b_path;
    ls_matrix A, B;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    double *X = NULL;
    /* rank 0 reads; everyone learns n and nrhs, or that reading failed */
    int dims[3] = {0, 0, 0};
    if (rank == 0) {
        double t0 = MPI_Wtime();
        if (a.have_gen) {
            res.nrhs = 1;
            res.rhs_is_A_ones = 1;
            A.rows = (int)a.n;
        }
        if (a.have_gen || read_system(&a, &A, &B, &res) == 0) {
            dims[0] = A.rows;
            dims[1] = res.nrhs;
            if (!(X = malloc(sizeof(double) * (size_t)A.rows * (size_t)res.nrhs))) {
                ls_cli_outcome oom = {LS_EXIT_UNAVAILABLE, "out_of_memory"};
                solve_result_fail(&res, oom, LS_ENOMEM, "out of memory for X");
            }
        }
        dims[2] = res.exit_code;
        res.t_read = MPI_Wtime() - t0;
    }
    MPI_Bcast(dims, 3, MPI_INT, 0, MPI_COMM_WORLD);
    int code = dims[2];
    if (code == LS_EXIT_OK) {
        const int n = dims[0], nrhs = dims[1];
        int nb = a.nb > 0 ? a.nb : 64;
        /* keep every process column busy on small systems */
        while (a.nb <= 0 && nb > 8 && (long long)nb * a.q * 4 > n)
            nb /= 2;
        res.n = n;
        res.nrhs = nrhs;
        ls_grid *g = NULL;
        double resid = NAN;
        int st = ls_grid_create(&g, MPI_COMM_WORLD, a.p, a.q);
        char engine[160] = "CBLAS";
        if (st == 0 && ls_grid_comm(g) != MPI_COMM_NULL && a.backend == LS_BACKEND_CUDA) {
            st = ls_grid_set_backend(g, LS_BACKEND_CUDA, a.device);
            if (st != 0)
                snprintf(res.rep.message, sizeof res.rep.message, "%s", ls_grid_error(g));
            else
                snprintf(engine, sizeof engine, "%s", ls_grid_engine_name(g));
        }
        if (st == 0 && ls_grid_comm(g) != MPI_COMM_NULL)
            st = a.have_gen ? run_grid_gen(g, &a, n, nb, X, &res.rep, &resid)
                            : run_grid(g, n, nrhs, nb, &A, &B, X, &res.rep);
        ls_grid_destroy(g);
        if (rank == 0) {
            ls_report *rep = &res.rep;
            rep->method = LS_METHOD_LU;
            rep->backend = LS_BACKEND_CPU;
            rep->n = n;
            rep->nrhs = nrhs;
            rep->info = st > 0 ? st : 0;
            rep->t_total = rep->t_h2d + rep->t_factor + rep->t_solve + rep->t_d2h;
            rep->flops = ls_flops_gesv(n, nrhs);
            double t = rep->t_factor + rep->t_solve;
            rep->gflops = t > 0 ? rep->flops / t / 1e9 : 0;
            res.have_rep = 1;
            snprintf(res.device, sizeof res.device, "MPI %dx%d grid of %d ranks, nb %d, %s",
                     a.p, a.q, size, nb, engine);
            rep->backend = a.backend;
            if (a.have_gen) {
                snprintf(res.note, sizeof res.note,
                         "distributed, generated in place: h2d = generating the local blocks, "
                         "d2h = gather of X to rank 0; residual by a distributed product");
                solve_result_judge_residual(&res, st, NULL, resid, X);
            } else {
                snprintf(res.note, sizeof res.note,
                         "distributed: h2d = scatter from rank 0, d2h = gather to rank 0");
                solve_result_judge(&res, st, NULL, &A, &B, X);
            }
            if (a.out_path && res.x_computed) {
                char err[512] = "";
                ls_matrix xm = {n, nrhs, n, X, 0, 0};
                int wst = ls_matrix_write(a.out_path, &xm, err, sizeof err);
                if (wst != 0)
                    solve_result_fail(&res, ls_cli_outcome_of(wst, 1), wst, "%s",
                                      err[0] ? err : ls_strerror(wst));
            }
        }
        code = res.exit_code;
        MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
        solve_result_emit(stdout, &res, a.json, a.quiet);
    free(X);
    if (a.have_gen)
        A.rows = 0;
    ls_matrix_free(&A);
    if (a.b_path)
        ls_matrix_free(&B);
    else
        free(B.data);
    return code;
}

int solve_distributed_dispatch(int *argc, char **argv, int *code)
{
    int found = 0;
    for (int i = 1; i < *argc; ++i)
        found |= !strcmp(argv[i], "--distributed");
    if (!found)
        return 0;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init(NULL, NULL);
    *code = dist_main(*argc, argv);
    if (!inited)
        MPI_Finalize();
    return 1;
}

#endif
