/*
 * The maximum-product weighted matching (ls_csr_mc64, src/cpu/mc64_csr.c):
 * hand-made cases (a permutation matrix, a matching that must leave the
 * diagonal, explicit zeros, structurally singular input), the optimum
 * against every permutation of small random matrices, the scaling's
 * properties (|dr a dc| <= 1, = 1 on the matching) and a product of
 * |diagonal| at least the structural transversal's on the shared
 * matrices. Exit status: the number of failures.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/krylov_csr.h"
#include "testutil.h"

/* max |dr a dc| - 1 and max | |dr a_perm(j) j dc_j| - 1 |; sum log |a_perm(j) j|. */
static void props(const ls_csr *A, const int64_t *perm, const double *dr, const double *dc,
                  double *over, double *diag_dev, double *logprod)
{
    int64_t n = A->n_rows;
    *over = -1, *diag_dev = 0, *logprod = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            int64_t j = A->col_idx[p];
            double s = fabs(dr[i] * A->val[p] * dc[j]);
            *over = fmax(*over, s - 1);
            if (perm[j] == i) {
                *diag_dev = fmax(*diag_dev, fabs(s - 1));
                *logprod += log(fabs(A->val[p]));
            }
        }
}

static int hand_made(void)
{
    int failures = 0;
    int64_t perm[4], rank;
    double dr[4], dc[4], over, dev, lp;
    char msg[256];
    /* A permutation matrix with values of any size: the matching is it. */
    int64_t rp[5] = {0, 1, 2, 3, 4}, ci[4] = {2, 0, 3, 1};
    double v[4] = {1e-8, -3, 7e5, 0.25};
    ls_csr P = {4, 4, 4, rp, ci, v};
    int st = ls_csr_mc64(&P, perm, dr, dc, &rank, msg, sizeof msg);
    props(&P, perm, dr, dc, &over, &dev, &lp);
    failures += lt_check(st == 0 && rank == 4 && perm[2] == 0 && perm[0] == 1 && perm[3] == 2 &&
                             perm[1] == 3 && over <= 1e-12 && dev <= 1e-12,
                         "permutation matrix: st %d rank %lld, |diag| - 1 %.1e", st,
                         (long long)rank, dev);
    /* [[1 2] [3 1]]: 2*3 beats 1*1, so both columns move. */
    int64_t rp2[3] = {0, 2, 4}, ci2[4] = {0, 1, 0, 1};
    double v2[4] = {1, 2, 3, 1};
    ls_csr B = {2, 2, 4, rp2, ci2, v2};
    st = ls_csr_mc64(&B, perm, dr, dc, &rank, msg, sizeof msg);
    props(&B, perm, dr, dc, &over, &dev, &lp);
    failures += lt_check(st == 0 && perm[0] == 1 && perm[1] == 0 && over <= 1e-12 &&
                             dev <= 1e-12 && fabs(lp - log(6.0)) < 1e-14,
                         "2 x 2 anti-diagonal wins: perm (%lld %lld)", (long long)perm[0],
                         (long long)perm[1]);
    /* A 3 x 3 where the greedy choice (the column maxima) collides:
     * [[10 9 0] [8 0 0] [0 1 5]]: column 0's max row 0 is taken by column 1. */
    int64_t rp3[4] = {0, 2, 3, 5}, ci3[5] = {0, 1, 0, 1, 2};
    double v3[5] = {10, 9, 8, 1, 5};
    ls_csr C = {3, 3, 5, rp3, ci3, v3};
    st = ls_csr_mc64(&C, perm, dr, dc, &rank, msg, sizeof msg);
    props(&C, perm, dr, dc, &over, &dev, &lp);
    failures += lt_check(st == 0 && perm[0] == 1 && perm[1] == 0 && perm[2] == 2 &&
                             fabs(lp - log(360.0)) < 1e-13 && over <= 1e-12 && dev <= 1e-12,
                         "3 x 3 needing an augmenting path: perm (%lld %lld %lld)",
                         (long long)perm[0], (long long)perm[1], (long long)perm[2]);
    /* Structurally singular: rows 0 and 1 both only in column 1. */
    int64_t rp4[4] = {0, 1, 2, 5}, ci4[5] = {1, 1, 0, 1, 2};
    double v4[5] = {1, 2, 3, 4, 5};
    ls_csr S = {3, 3, 5, rp4, ci4, v4};
    st = ls_csr_mc64(&S, perm, dr, dc, &rank, msg, sizeof msg);
    failures += lt_check(st == LS_EINVAL && rank == 2 && strstr(msg, "structural rank 2"),
                         "structurally singular: %s rank %lld \"%s\"", ls_status_name(st),
                         (long long)rank, msg);
    /* An explicit zero is not an entry: diag(1, 0 stored, 1) is singular;
     * an empty row and column likewise. */
    int64_t rp5[4] = {0, 1, 2, 3}, ci5[3] = {0, 1, 2};
    double v5[3] = {1, 0, 1};
    ls_csr Z = {3, 3, 3, rp5, ci5, v5};
    st = ls_csr_mc64(&Z, perm, dr, dc, &rank, msg, sizeof msg);
    failures += lt_check(st == LS_EINVAL && rank == 2, "stored zero: %s rank %lld",
                         ls_status_name(st), (long long)rank);
    int64_t rp6[4] = {0, 1, 1, 2}, ci6[2] = {0, 2};
    double v6[2] = {1, 1};
    ls_csr E = {3, 3, 2, rp6, ci6, v6};
    st = ls_csr_mc64(&E, perm, dr, dc, &rank, msg, sizeof msg);
    failures += lt_check(st == LS_EINVAL && rank == 2, "empty row and column: %s rank %lld",
                         ls_status_name(st), (long long)rank);
    int64_t rp0[1] = {0};
    ls_csr N0 = {0, 0, 0, rp0, NULL, NULL};
    st = ls_csr_mc64(&N0, perm, dr, dc, &rank, msg, sizeof msg);
    failures += lt_check(st == 0 && rank == 0, "n = 0: %s", ls_status_name(st));
    return failures;
}

/* Best sum of log|a| over all permutations (Heap's algorithm), -inf if none. */
static double brute(int n, const double *D)
{
    int p[8], c[8] = {0};
    for (int i = 0; i < n; i++)
        p[i] = i;
    double best = -INFINITY;
    for (int k = 0;;) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += log(fabs(D[p[j] * n + j])); /* row p[j] on column j */
        best = fmax(best, s);
        while (k < n && c[k] >= k)
            c[k++] = 0;
        if (k >= n)
            break;
        int a = k % 2 ? c[k] : 0, t = p[a];
        p[a] = p[k], p[k] = t;
        c[k]++, k = 0;
    }
    return best;
}

static int random_small(void)
{
    int failures = 0, singular = 0;
    unsigned seed = 12345;
    for (int t = 0; t < 300; t++) {
        int n = 1 + t % 7;
        double D[64];
        int64_t rp[9], ci[64], nz = 0, perm[8], rank;
        double v[64], dr[8], dc[8], over, dev, lp;
        rp[0] = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                seed = seed * 1103515245u + 12345u;
                unsigned r = (seed >> 8) % 1000;
                D[i * n + j] = 0;
                if (r < 450) {
                    double mag = pow(10.0, (double)((int)(r % 13) - 6)) * (1 + r % 7);
                    D[i * n + j] = r % 2 ? mag : -mag;
                    ci[nz] = j, v[nz++] = D[i * n + j];
                } else if (r < 480) {
                    ci[nz] = j, v[nz++] = 0; /* stored zero */
                }
            }
            rp[i + 1] = nz;
        }
        ls_csr A = {n, n, nz, rp, ci, v};
        char msg[256];
        double best = brute(n, D);
        int st = ls_csr_mc64(&A, perm, dr, dc, &rank, msg, sizeof msg);
        if (best == -INFINITY) {
            singular++;
            if (!(st == LS_EINVAL && rank < n))
                failures += lt_check(0, "random %d (n %d) singular: %s", t, n,
                                     ls_status_name(st));
            continue;
        }
        props(&A, perm, dr, dc, &over, &dev, &lp);
        int ok = st == 0 && rank == n && fabs(lp - best) <= 1e-12 * (1 + fabs(best)) &&
                 over <= 1e-12 && dev <= 1e-12;
        if (!ok)
            failures += lt_check(0, "random %d (n %d): %s, log prod %.15g best %.15g, over %.1e "
                                    "dev %.1e", t, n, ls_status_name(st), lp, best, over, dev);
    }
    failures += lt_check(singular > 5 && singular < 200, "300 random matrices against every "
                         "permutation (%d structurally singular)", singular);
    return failures;
}

static int shared(const char *dir)
{
    static const char *const names[] = {"west0479", "nnc1374", "rajat19", "impcol_a", "olm1000",
                                        "watt_2",   "pde900",  "494_bus", "cryg2500"};
    int failures = 0;
    for (size_t c = 0; c < sizeof names / sizeof names[0]; c++) {
        char path[1024], err[256];
        ls_csr A;
        snprintf(path, sizeof path, "%s/real/%s.mtx", dir, names[c]);
        if (ls_csr_read_mm(path, &A, err, sizeof err)) {
            failures += lt_check(0, "%s", err);
            continue;
        }
        int64_t n = A.n_rows, rank, *perm = lt_xmalloc(sizeof(int64_t) * (size_t)n);
        double *dr = lt_doubles((size_t)n), *dc = lt_doubles((size_t)n), over, dev, lp;
        int st = ls_csr_mc64(&A, perm, dr, dc, &rank, err, sizeof err);
        props(&A, perm, dr, dc, &over, &dev, &lp);
        /* the structural transversal's product, where BTF is built in */
        ls_csr_colperm T;
        double lt = -INFINITY;
        if (ls_csr_colperm_build(&A, &T, err, sizeof err) == 0) {
            lt = 0;
            for (int64_t i = 0; i < n; i++)
                for (int64_t p = T.B.row_ptr[i]; p < T.B.row_ptr[i + 1]; p++)
                    if (T.B.col_idx[p] == i)
                        lt += log(fabs(T.B.val[p]));
            ls_csr_colperm_free(&T);
        }
        int ok = st == 0 && rank == n && over <= 1e-12 && dev <= 1e-12 &&
                 lp >= lt - 1e-9 * (1 + fabs(lp));
        failures += lt_check(ok, "%-9s n %5lld: %s, max |dr a dc| - 1 = %.1e, "
                             "max ||diag| - 1| = %.1e, log prod |diag| %.6g (transversal %.6g)",
                             names[c], (long long)n, ls_status_name(st), over, dev, lp, lt);
        free(perm), free(dr), free(dc);
        ls_csr_free(&A);
    }
    return failures;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/matrices";
    int failures = hand_made() + random_small() + shared(dir);
    printf("%d failure(s)\n", failures);
    return failures;
}
