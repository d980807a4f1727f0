/*
 * linsolve bench --distributed: ls_pdgesv against ScaLAPACK's pdgesv on the
 * same ranks, the same P x Q grid ("Row" order), the same block size and
 * the same local arrays, per n x grid x nb. A(i,j) and B come from a hash of
 * the global indices, so every layout solves the same system. Each case:
 * one untimed warm-up each, then --repeat timed runs of each, alternating,
 * the median of the slowest rank's wall time kept. Our scaled residual is
 * checked on rank 0 from the gathered A and X. CSV:
 * n,grid,nb,gpus,ls_s,peer,peer_s,tflops,residual (gpus = 0: CPU ranks).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "linsolve.h"

int ls_bench_distributed(int argc, char **argv);

#ifndef LS_HAVE_MPI
int ls_bench_distributed(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "linsolve bench: --distributed: built without MPI\n");
    return LS_BENCH_EXIT_UNAVAILABLE;
}
#else

#include <ctype.h>

#include "bench_output.h"
#include "linsolve_dist.h"

#ifdef LS_HAVE_SCALAPACK
/* ScaLAPACK and BLACS ship no C header. */
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridexit(int ctxt);
void pdgesv_(const int *n, const int *nrhs, double *a, const int *ia, const int *ja,
             const int *desca, int *ipiv, double *b, const int *ib, const int *jb,
             const int *descb, int *info);
#endif

#define BD_MAX 32

typedef struct bd_opts {
    int sizes[BD_MAX], nsizes;
    int gp[BD_MAX], gq[BD_MAX], ngrids;
    int nbs[BD_MAX], nnbs;
    int repeat, nrhs, peers;
    int cuda;          /* --backend cuda: a GPU per rank; peer cuSOLVERMg */
    int peer_nb;       /* --peer-nb: cuSOLVERMg's tile; 0: each case's nb */
    const char *csv;
} bd_opts;

static void bd_usage(FILE *f)
{
    fputs("usage: mpirun -np R linsolve bench --distributed [options]\n"
          "  --sizes 1000,2000   matrix orders (default 1000,2000)\n"
          "  --grid 2x2,1x4      process grids, P*Q <= R (default: every P x Q = R)\n"
          "  --nb 64,128         block sizes (default 64)\n"
          "  --nrhs K            right-hand sides (default 1)\n"
          "  --repeat R          timed runs of each, median kept (default 3)\n"
          "  --no-peers          do not run the peer\n"
          "  --backend cuda      each rank on its GPU (ls_pdgesv_gpu, A already there),\n"
          "                      A = linsolve gen random --seed 1; peer: cuSOLVERMg\n"
          "                      (getrf + getrs) on the same GPUs, run by rank 0\n"
          "  --peer-nb NB        cuSOLVERMg's tile width (default: the case's nb; it\n"
          "                      refuses tiles wider than 512 columns); the CSV's peer\n"
          "                      is then cusolvermg-nbNB\n"
          "  -o FILE             CSV: n,grid,nb,gpus,ls_s,peer,peer_s,tflops,residual,\n"
          "                      after '# commit:' and '# command:' lines; checked before\n"
          "                      measuring, replaced only once complete\n"
          "sizes and --nb 1 .. 10^6, --repeat 1 .. 100, --nrhs 1 .. 4096.\n"
          "Run with OPENBLAS_NUM_THREADS=1 (one BLAS thread per rank, both sides).\n"
          LS_BENCH_EXIT_HELP,
          f);
}

static int bd_list(const char *s, int *out)
{
    int k = 0;
    while (*s && k < BD_MAX) {
        char *end;
        if (!isdigit((unsigned char)*s))
            return -1;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1000000)
            return -1;
        out[k++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return k;
}

static int bd_parse(int argc, char **argv, int size, bd_opts *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = 3;
    o->nrhs = 1;
    o->peers = 1;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--distributed"))
            continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            return 1;
        if (!strcmp(a, "--no-peers")) {
            o->peers = 0;
            continue;
        }
        if (!v)
            return -1;
        i++;
        if (!strcmp(a, "--sizes")) {
            if ((o->nsizes = bd_list(v, o->sizes)) <= 0)
                return -1;
        } else if (!strcmp(a, "--nb")) {
            if ((o->nnbs = bd_list(v, o->nbs)) <= 0)
                return -1;
        } else if (!strcmp(a, "--grid")) {
            const char *s = v;
            while (*s && o->ngrids < BD_MAX) {
                int p, q, used = 0;
                if (sscanf(s, "%dx%d%n", &p, &q, &used) != 2 || p < 1 || q < 1 || p * q > size)
                    return -1;
                o->gp[o->ngrids] = p;
                o->gq[o->ngrids++] = q;
                s += used;
                if (*s == ',')
                    s++;
                else if (*s)
                    return -1;
            }
        } else if (!strcmp(a, "--backend")) {
            if (strcmp(v, "cuda") && strcmp(v, "cpu"))
                return -1;
            o->cuda = !strcmp(v, "cuda");
        } else if (!strcmp(a, "--repeat")) {
            if (ls_bench_parse_int(v, 1, 100, &o->repeat) != 0)
                return -1;
        } else if (!strcmp(a, "--peer-nb")) {
            if (ls_bench_parse_int(v, 1, 1000000, &o->peer_nb) != 0)
                return -1;
        } else if (!strcmp(a, "--nrhs")) {
            if (ls_bench_parse_int(v, 1, 4096, &o->nrhs) != 0)
                return -1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--csv")) {
            o->csv = v;
        } else {
            return -1;
        }
    }
    if (!o->nsizes) {
        o->sizes[0] = 1000;
        o->sizes[1] = 2000;
        o->nsizes = 2;
    }
    if (!o->nnbs) {
        o->nbs[0] = 64;
        o->nnbs = 1;
    }
    if (!o->ngrids)
        for (int p = 1; p <= size && o->ngrids < BD_MAX; ++p)
            if (size % p == 0) {
                o->gp[o->ngrids] = p;
                o->gq[o->ngrids++] = size / p;
            }
    return 0;
}

/* A hash of (i, j) in [-0.5, 0.5): the same system whatever the layout. */
static double bd_entry(unsigned long long i, unsigned long long j)
{
    unsigned long long h = (i * 0x9E3779B97F4A7C15ULL) ^ (j * 0xC2B2AE3D27D4EB4FULL);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    return (double)(h >> 11) / 9007199254740992.0 - 0.5;
}

static void bd_fill(double *x, int lr, int lc, int ld, int nb, int myr, int myc, int P, int Q,
                    int col_base)
{
    for (int lj = 0; lj < lc; ++lj) {
        int gj = ((lj / nb) * Q + myc) * nb + lj % nb;
        for (int li = 0; li < lr; ++li) {
            int gi = ((li / nb) * P + myr) * nb + li % nb;
            x[(size_t)lj * ld + li] = bd_entry((unsigned long long)gi,
                                               (unsigned long long)(gj + col_base));
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

/* One n x grid x nb case on the grid's ranks; rank 0 prints and writes. */
static int bd_case(ls_grid *g, int n, int nb, const bd_opts *o, FILE *csv, int *ctxt_peer)
{
    int P, Q, myr, myc, rank;
    ls_grid_info(g, &P, &Q, &myr, &myc);
    MPI_Comm comm = ls_grid_comm(g);
    MPI_Comm_rank(comm, &rank);
    const int k = o->nrhs;
    int lr = ls_numroc(n, nb, myr, 0, P), lc = ls_numroc(n, nb, myc, 0, Q);
    int lcb = ls_numroc(k, nb, myc, 0, Q), ld = lr > 1 ? lr : 1;
    size_t asz = (size_t)ld * (size_t)(lc > 0 ? lc : 1), bsz = (size_t)ld * (lcb > 0 ? lcb : 1);
    double *A0 = malloc(asz * sizeof(double)), *A = malloc(asz * sizeof(double));
    double *B0 = malloc(bsz * sizeof(double)), *B = malloc(bsz * sizeof(double));
    int *ipiv = malloc(sizeof(int) * (size_t)(lr + nb));
    double *t_ls = malloc(sizeof(double) * (size_t)o->repeat);
    double *t_pe = malloc(sizeof(double) * (size_t)o->repeat);
    int ok = A0 && A && B0 && B && ipiv && t_ls && t_pe, all = 0, failed = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        if (rank == 0)
            fprintf(stderr, "linsolve bench: out of memory at n = %d\n", n);
        failed = 1;
        goto done;
    }
    bd_fill(A0, lr, lc, ld, nb, myr, myc, P, Q, 0);
    bd_fill(B0, lr, lcb, ld, nb, myr, myc, P, Q, n);
    int da[LS_DESC_LEN], db[LS_DESC_LEN], info = 0;
    ls_descinit(da, n, n, nb, nb, 0, 0, g, ld);
    ls_descinit(db, n, k, nb, nb, 0, 0, g, ld);
    int dpa[LS_DESC_LEN], dpb[LS_DESC_LEN];
    memcpy(dpa, da, sizeof da);
    memcpy(dpb, db, sizeof db);
    dpa[LS_DESC_CTXT] = dpb[LS_DESC_CTXT] = ctxt_peer ? *ctxt_peer : -1;
    int one = 1, pinfo = 0, st = 0;
    double res = NAN;
    for (int r = -1; r < o->repeat; ++r) {
        memcpy(A, A0, asz * sizeof(double));
        memcpy(B, B0, bsz * sizeof(double));
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        st |= ls_pdgesv(n, k, A, 1, 1, da, ipiv, B, 1, 1, db, &info, g);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (r >= 0)
            t_ls[r] = t;
        if (r == -1) { /* the residual, from the first (warm-up) answer */
            double *GA = rank == 0 ? malloc(sizeof(double) * (size_t)n * n) : NULL;
            double *GX = rank == 0 ? malloc(sizeof(double) * (size_t)n * k) : NULL;
            double *GB = rank == 0 ? malloc(sizeof(double) * (size_t)n * k) : NULL;
            int have = rank != 0 || (GA && GX && GB);
            MPI_Bcast(&have, 1, MPI_INT, 0, comm);
            if (have) {
                ls_pdgather(0, GA, n, A0, da, g);
                ls_pdgather(0, GB, n, B0, db, g);
                ls_pdgather(0, GX, n, B, db, g);
                if (rank == 0)
                    res = ls_scaled_residual(n, k, GA, n, GX, n, GB, n, ls_eps(LS_DOUBLE));
            }
            free(GA);
            free(GX);
            free(GB);
        }
#ifdef LS_HAVE_SCALAPACK
        if (ctxt_peer) {
            memcpy(A, A0, asz * sizeof(double));
            memcpy(B, B0, bsz * sizeof(double));
            MPI_Barrier(comm);
            t0 = MPI_Wtime();
            pdgesv_(&n, &k, A, &one, &one, dpa, ipiv, B, &one, &one, dpb, &pinfo);
            t = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
            if (r >= 0)
                t_pe[r] = t;
        }
#endif
    }
    (void)one;
    if (rank == 0) {
        double ls_s = median(t_ls, o->repeat);
        double pe_s = ctxt_peer ? median(t_pe, o->repeat) : NAN;
        double tf = ls_flops_gesv(n, k) / ls_s / 1e12;
        int good = st == 0 && info == 0 && res <= 30.0 && pinfo == 0;
        failed = !good;
        char grid[32];
        snprintf(grid, sizeof grid, "%dx%d", P, Q);
        printf("%6d  %-5s %4d  %10.4f  %10.4f  %6.3f  %8.2f  %9.3e  %s\n", n, grid, nb, ls_s, pe_s,
               ctxt_peer ? ls_s / pe_s : NAN, tf * 1e3, res, good ? "ok" : "FAILED");
        fflush(stdout);
        if (csv) {
            fprintf(csv, "%d,%s,%d,0,%.6f,%s,", n, grid, nb, ls_s,
                    ctxt_peer ? "scalapack-pdgesv" : "none");
            if (ctxt_peer)
                fprintf(csv, "%.6f", pe_s);
            fprintf(csv, ",%.6f,%.3e\n", tf, res);
            fflush(csv);
        }
    }
done:
    free(A0);
    free(A);
    free(B0);
    free(B);
    free(ipiv);
    free(t_ls);
    free(t_pe);
    return failed;
}

/* --backend cuda: one case with A generated in place (ls_pdgenerate) and
 * kept on the host; before each run it is copied to the ranks' GPUs
 * (untimed) and ls_pdgesv_gpu is timed (slowest rank). The residual comes
 * from a distributed product with the host copy. Then rank 0 runs the peer
 * on as many GPUs as the grid has ranks. */
static int bd_case_gpu(ls_grid *g, int n, int nb, const bd_opts *o, FILE *csv)
{
    int P, Q, myr, myc, rank;
    ls_grid_info(g, &P, &Q, &myr, &myc);
    MPI_Comm comm = ls_grid_comm(g);
    MPI_Comm_rank(comm, &rank);
    int lr = ls_numroc(n, nb, myr, 0, P), lc = ls_numroc(n, nb, myc, 0, Q);
    int lcb = ls_numroc(1, nb, myc, 0, Q), ld = lr > 1 ? lr : 1;
    size_t asz = (size_t)ld * (size_t)(lc > 0 ? lc : 1), bsz = (size_t)ld * (lcb > 0 ? lcb : 1);
    double *A = malloc(asz * sizeof(double)), *B0 = malloc(bsz * sizeof(double));
    double *X = malloc(bsz * sizeof(double)), *t_ls = malloc(sizeof(double) * o->repeat);
    int *ipiv = malloc(sizeof(int) * (size_t)(lr + nb));
    void *dA = NULL, *dB = NULL;
    int st = A && B0 && X && t_ls && ipiv ? 0 : LS_ENOMEM, info = 0, failed = 0;
    int da[LS_DESC_LEN], db[LS_DESC_LEN];
    ls_descinit(da, n, n, nb, nb, 0, 0, g, ld);
    ls_descinit(db, n, 1, nb, nb, 0, 0, g, ld);
    if (st == 0)
        st = ls_grid_malloc(g, &dA, asz * sizeof(double));
    if (st == 0)
        st = ls_grid_malloc(g, &dB, bsz * sizeof(double));
    MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MIN, comm);
    if (st == 0)
        st = ls_pdgenerate(LS_GEN_RANDOM, 1, A, da, B0, db, g);
    double res = NAN;
    for (int r = -1; st == 0 && r < o->repeat; ++r) {
        st = ls_grid_memcpy(g, dA, A, asz * sizeof(double), 1);
        if (st == 0)
            st = ls_grid_memcpy(g, dB, B0, bsz * sizeof(double), 1);
        MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MIN, comm);
        if (st)
            break;
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        st = ls_pdgesv_gpu(n, 1, dA, 1, 1, da, ipiv, dB, 1, 1, db, &info, g);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (r >= 0)
            t_ls[r] = t;
    }
    if (st == 0)
        st = ls_grid_memcpy(g, X, dB, bsz * sizeof(double), 0);
    if (st == 0)
        st = ls_pdresidual(n, 1, A, da, X, db, B0, db, &res, g);
    if (st != 0 && rank == 0)
        fprintf(stderr, "linsolve bench: n = %d: %s\n", n, ls_grid_error(g));
    ls_grid_free(g, dA);
    ls_grid_free(g, dB);
    free(A);
    double pe_s = NAN, pe_res = NAN;
    int pe_info = 0, pe_st = -1;
    char why[256] = "";
    MPI_Barrier(comm);
    if (rank == 0 && o->peers)
        pe_st = ls_peer_cusolvermg(LS_GEN_RANDOM, 1, n, o->peer_nb ? o->peer_nb : nb, P * Q,
                                   o->repeat, &pe_s, &pe_res, &pe_info, why, sizeof why);
    MPI_Barrier(comm);
    if (rank == 0) {
        double ls_s = st == 0 ? median(t_ls, o->repeat) : NAN;
        double tf = ls_flops_gesv(n, 1) / ls_s / 1e12;
        int peer_ok = o->peers && pe_st == 0 && pe_info == 0;
        int good = st == 0 && info == 0 && res <= 30.0;
        failed = !good;
        if (o->peers && !peer_ok)
            fprintf(stderr, "linsolve bench: peer cuSOLVERMg at n = %d: %s (info %d)\n", n,
                    pe_st ? why : "ran", pe_info);
        char grid[32];
        snprintf(grid, sizeof grid, "%dx%d", P, Q);
        printf("%6d  %-5s %4d  %10.4f  %10.4f  %6.3f  %8.2f  %9.3e  %s  (peer residual %.3e)\n",
               n, grid, nb, ls_s, pe_s, ls_s / pe_s, tf * 1e3, res, good ? "ok" : "FAILED",
               pe_res);
        fflush(stdout);
        if (csv) {
            char peer[48] = "cusolvermg";
            if (o->peer_nb && o->peer_nb != nb)
                snprintf(peer, sizeof peer, "cusolvermg-nb%d", o->peer_nb);
            fprintf(csv, "%d,%s,%d,%d,%.6f,%s,", n, grid, nb, P * Q, ls_s, peer_ok ? peer : "none");
            if (peer_ok)
                fprintf(csv, "%.6f", pe_s);
            fprintf(csv, ",%.6f,%.3e\n", tf, res);
            fflush(csv);
        }
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
    free(B0);
    free(X);
    free(t_ls);
    free(ipiv);
    return failed;
}

int ls_bench_distributed(int argc, char **argv)
{
    int inited = 0, rank = 0, size = 1;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bd_opts o;
    int pr = bd_parse(argc, argv, size, &o), failed = 0, rc = LS_BENCH_EXIT_OK;
    FILE *csv = NULL;
    ls_bench_sink sink;
    memset(&sink, 0, sizeof sink);
    if (pr != 0) {
        if (rank == 0)
            bd_usage(pr > 0 ? stdout : stderr);
        rc = pr > 0 ? LS_BENCH_EXIT_OK : LS_BENCH_EXIT_USAGE;
        goto out;
    }
    /* rank 0 writes the CSV; every rank learns whether it can */
    int cant = rank == 0 && o.csv && ls_bench_sinks_open("bench", 1, &sink, &o.csv) != 0;
    csv = sink.f;
    MPI_Bcast(&cant, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (cant) {
        rc = LS_BENCH_EXIT_WRITE;
        goto out;
    }
#ifndef LS_HAVE_SCALAPACK
    if (o.peers && rank == 0 && !o.cuda)
        fprintf(stderr, "linsolve bench: built without ScaLAPACK: no peer\n");
    o.peers = o.peers && o.cuda;
#endif
    if (rank == 0) {
        printf("# ls_pdgesv%s vs %s, %d ranks, nrhs %d, median of %d; seconds = slowest rank\n",
               o.cuda ? "_gpu" : "",
               !o.peers ? "(no peer)" : o.cuda ? "cuSOLVERMg" : "ScaLAPACK pdgesv", size,
               o.cuda ? 1 : o.nrhs, o.repeat);
        printf("%6s  %-5s %4s  %10s  %10s  %6s  %8s  %9s  %s\n", "n", "grid", "nb", "ls_s",
               "peer_s", "ratio", "GFLOP/s", "residual", "status");
        if (csv) {
            ls_bench_csv_provenance(csv, argc, argv);
            fprintf(csv, "n,grid,nb,gpus,ls_s,peer,peer_s,tflops,residual\n");
        }
    }
    for (int gi = 0; gi < o.ngrids; ++gi) {
        ls_grid *g = NULL;
        if (ls_grid_create(&g, MPI_COMM_WORLD, o.gp[gi], o.gq[gi]) != 0) {
            failed++;
            continue;
        }
        int ctxt = -1, *peer = NULL;
        if (o.cuda && ls_grid_comm(g) != MPI_COMM_NULL) {
            int st = ls_grid_set_backend(g, LS_BACKEND_CUDA, -1);
            if (st != 0) {
                if (rank == 0)
                    fprintf(stderr, "linsolve bench: %s\n", ls_grid_error(g));
                failed++;
                ls_grid_destroy(g);
                continue;
            }
            if (rank == 0)
                printf("# %dx%d: %s\n", o.gp[gi], o.gq[gi], ls_grid_engine_name(g));
        }
#ifdef LS_HAVE_SCALAPACK
        if (o.peers && !o.cuda) { /* every rank of the world takes part in gridinit */
            Cblacs_get(-1, 0, &ctxt);
            Cblacs_gridinit(&ctxt, "Row", o.gp[gi], o.gq[gi]);
            peer = &ctxt;
        }
#endif
        if (ls_grid_comm(g) != MPI_COMM_NULL)
            for (int si = 0; si < o.nsizes; ++si)
                for (int bi = 0; bi < o.nnbs; ++bi)
                    failed += o.cuda ? bd_case_gpu(g, o.sizes[si], o.nbs[bi], &o, csv)
                                     : bd_case(g, o.sizes[si], o.nbs[bi], &o, csv, peer);
#ifdef LS_HAVE_SCALAPACK
        if (o.peers && !o.cuda && ctxt >= 0)
            Cblacs_gridexit(ctxt);
#endif
        ls_grid_destroy(g);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    rc = failed ? LS_BENCH_EXIT_FAILED : LS_BENCH_EXIT_OK;
    if (rank == 0 && o.csv)
        rc = ls_bench_sinks_commit("bench", 1, &sink, rc);
out:
    if (!inited)
        MPI_Finalize();
    return rc;
}
#endif
