/*
 * Generators: names round-trip, argument checks, determinism (same seed,
 * same bytes; another seed, other bytes), padding rows untouched, and the
 * property each kind promises: randsvd's condition number, poisson2d's
 * symmetry and stencil, convdiff's asymmetry, gfpp's growth 2^(n-1),
 * kahan's triangle, diagdom's dominance, singular's zero column.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define PAD 3
#define SENTINEL (-12345.0)

/* n x n with lda = n + PAD, padding rows preset to SENTINEL. */
static double *gen(ls_gen_kind k, int n, uint64_t seed, double cond, int *st)
{
    int lda = n + PAD;
    double *A = lt_doubles((size_t)lda * n);
    for (size_t i = 0; i < (size_t)lda * n; i++)
        A[i] = SENTINEL;
    *st = ls_generate(k, n, A, lda, seed, cond);
    return A;
}

static int padding_kept(const double *A, int n)
{
    int lda = n + PAD;
    for (int j = 0; j < n; j++)
        for (int i = n; i < lda; i++)
            if (A[i + (size_t)j * lda] != SENTINEL)
                return 0;
    return 1;
}

#define AT(A, n, i, j) ((A)[(i) + (size_t)(j) * ((n) + PAD)])

static int test_names(void)
{
    int f = 0;
    for (int k = 0; k < LS_GEN_COUNT_; k++) {
        ls_gen_kind back = LS_GEN_COUNT_;
        int st = ls_gen_parse(ls_gen_name((ls_gen_kind)k), &back);
        f += lt_check(st == 0 && back == (ls_gen_kind)k && ls_gen_description((ls_gen_kind)k)[0],
                      "name %s parses back", ls_gen_name((ls_gen_kind)k));
    }
    ls_gen_kind out;
    f += lt_check(ls_gen_parse("nosuchkind", &out) == LS_EINVAL, "unknown name -> LS_EINVAL");
    f += lt_check(ls_gen_parse(NULL, &out) == LS_EINVAL, "NULL name -> LS_EINVAL");
    f += lt_check(ls_gen_is_sparse(LS_GEN_POISSON2D) && ls_gen_is_sparse(LS_GEN_CONVDIFF) &&
                      !ls_gen_is_sparse(LS_GEN_RANDOM) && !ls_gen_is_sparse(LS_GEN_RANDSVD),
                  "is_sparse: only the stencils");
    return f;
}

static int test_bad_arguments(void)
{
    int f = 0;
    double A[64];
    f += lt_check(ls_generate(LS_GEN_RANDOM, -1, A, 1, 1, 0) == LS_EINVAL, "n < 0 -> LS_EINVAL");
    f += lt_check(ls_generate(LS_GEN_RANDOM, 4, A, 3, 1, 0) == LS_EINVAL, "lda < n -> LS_EINVAL");
    f += lt_check(ls_generate(LS_GEN_RANDOM, 4, NULL, 4, 1, 0) == LS_EINVAL,
                  "A NULL -> LS_EINVAL");
    f += lt_check(ls_generate(LS_GEN_COUNT_, 4, A, 4, 1, 0) == LS_EINVAL,
                  "unknown kind -> LS_EINVAL");
    f += lt_check(ls_generate(LS_GEN_POISSON2D, 8, A, 8, 1, 0) == LS_EINVAL,
                  "poisson2d n = 8 (not a square) -> LS_EINVAL");
    f += lt_check(ls_generate(LS_GEN_CONVDIFF, 5, A, 5, 1, 0) == LS_EINVAL,
                  "convdiff n = 5 (not a square) -> LS_EINVAL");
    f += lt_check(ls_generate(LS_GEN_RANDOM, 0, A, 1, 1, 0) == 0, "n = 0 is an empty success");
    return f;
}

static int test_determinism(void)
{
    int f = 0;
    for (int k = 0; k < LS_GEN_COUNT_; k++) {
        int n = 16, st1, st2, st3; /* 16 = 4^2 suits the stencils too */
        double *A = gen((ls_gen_kind)k, n, 42, 1e4, &st1);
        double *B = gen((ls_gen_kind)k, n, 42, 1e4, &st2);
        double *C = gen((ls_gen_kind)k, n, 43, 1e4, &st3);
        size_t bytes = sizeof(double) * (size_t)(n + PAD) * n;
        int same = memcmp(A, B, bytes) == 0;
        int differs = memcmp(A, C, bytes) != 0;
        /* Only the random kinds depend on the seed. */
        int seeded = k == LS_GEN_RANDOM || k == LS_GEN_DIAGDOM || k == LS_GEN_ZERODIAG ||
                     k == LS_GEN_RANDSVD || k == LS_GEN_SINGULAR;
        int finite = 1;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                finite &= isfinite(AT(A, n, i, j));
        f += lt_check(st1 == 0 && st2 == 0 && st3 == 0 && same && (!seeded || differs) &&
                          padding_kept(A, n) && finite,
                      "%-9s deterministic (same seed same bytes%s), padding kept, finite",
                      ls_gen_name((ls_gen_kind)k), seeded ? ", new seed new bytes" : "");
        free(A);
        free(B);
        free(C);
    }
    double r1[5], r2[5];
    ls_fill_random(5, 1, r1, 5, 9);
    ls_fill_random(5, 1, r2, 5, 9);
    int in_range = 1;
    for (int i = 0; i < 5; i++)
        in_range &= r1[i] >= -1 && r1[i] < 1;
    f += lt_check(memcmp(r1, r2, sizeof r1) == 0 && in_range, "fill_random deterministic in [-1,1)");
    return f;
}

/* ||A||_1 ||A^-1||_1 with A^-1 from our LU and getrs on the identity. */
static double cond1(int n, const double *A, int lda)
{
    double *F = lt_doubles((size_t)n * n), *X = lt_doubles((size_t)n * n);
    int *ipiv = malloc(sizeof(int) * (size_t)n), info = 0;
    if (!ipiv)
        exit(99);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            F[i + (size_t)j * n] = A[i + (size_t)j * lda];
            X[i + (size_t)j * n] = i == j;
        }
    ls_dgetrf(n, n, F, n, ipiv, &info, NULL);
    ls_dgetrs('N', n, n, F, n, ipiv, X, n, &info, NULL);
    double an = 0, xn = 0;
    for (int j = 0; j < n; j++) {
        double sa = 0, sx = 0;
        for (int i = 0; i < n; i++) {
            sa += fabs(A[i + (size_t)j * lda]);
            sx += fabs(X[i + (size_t)j * n]);
        }
        an = sa > an ? sa : an;
        xn = sx > xn ? sx : xn;
    }
    free(F);
    free(X);
    free(ipiv);
    return info ? INFINITY : an * xn;
}

static int test_randsvd(void)
{
    int f = 0;
    const double conds[] = {10.0, 1e3, 1e6, 1e8};
    for (int c = 0; c < 4; c++) {
        int n = 32, st;
        double *A = gen(LS_GEN_RANDSVD, n, 11 + c, conds[c], &st);
        double k1 = cond1(n, A, n + PAD);
        f += lt_check(st == 0 && k1 >= conds[c] / 10 && k1 <= conds[c] * 10,
                      "randsvd n=32 cond %.0e: measured cond_1 %.3e (within 10x)", conds[c], k1);
        free(A);
    }
    /* Orthogonal factors keep the Frobenius norm: ||A||_F^2 = sum sigma_i^2. */
    int n = 20, st;
    double cond = 1e4, *A = gen(LS_GEN_RANDSVD, n, 5, cond, &st), fro = 0, want = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            fro += AT(A, n, i, j) * AT(A, n, i, j);
    for (int i = 0; i < n; i++)
        want += pow(cond, -2.0 * i / (n - 1));
    f += lt_check(fabs(fro - want) <= 1e-12 * want, "randsvd ||A||_F^2 %.15g = sum sigma^2 %.15g",
                  fro, want);
    free(A);
    return f;
}

static int test_stencils(void)
{
    int f = 0, k = 5, n = k * k, st;
    double *P = gen(LS_GEN_POISSON2D, n, 1, 0, &st);
    int sym = 1, rows_ok = 1;
    for (int i = 0; i < n; i++) {
        int nnz = 0;
        double sum = 0;
        for (int j = 0; j < n; j++) {
            sym &= AT(P, n, i, j) == AT(P, n, j, i);
            if (AT(P, n, i, j) != 0)
                nnz++;
            sum += AT(P, n, i, j);
        }
        int ix = i % k, iy = i / k;
        int neighbours = (ix > 0) + (ix < k - 1) + (iy > 0) + (iy < k - 1);
        /* 4 on the diagonal, -1 per grid neighbour, nothing else. */
        rows_ok &= AT(P, n, i, i) == 4 && nnz == 1 + neighbours && sum == 4 - neighbours;
    }
    f += lt_check(st == 0 && sym && rows_ok, "poisson2d k=5: symmetric, 4 / -1 stencil per row");
    /* Grid neighbours only: (0,0) couples to (1,0) and (0,1), not to (k-1,0)'s row wrap. */
    f += lt_check(AT(P, n, k - 1, k) == 0 && AT(P, n, 0, 1) == -1 && AT(P, n, 0, k) == -1,
                  "poisson2d: no coupling across the grid's row ends");
    double *C = gen(LS_GEN_CONVDIFF, n, 1, 0, &st);
    int same_pattern = 1, nonsym = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            same_pattern &= (AT(C, n, i, j) != 0) == (AT(P, n, i, j) != 0);
            nonsym |= AT(C, n, i, j) != AT(C, n, j, i);
        }
    f += lt_check(st == 0 && same_pattern && nonsym && AT(C, n, 0, 0) == 4,
                  "convdiff k=5: 5-point pattern, nonsymmetric, diagonal 4");
    /* Nonsymmetric but benign: BiCGStab converges (its true relative
     * residual, the last history entry, meets rtol) and LU solves it. */
    double *B = lt_doubles((size_t)n);
    ls_fill_random(n, 1, B, n, 2);
    ls_report rep;
    ls_options opt;
    ls_options_init(&opt);
    opt.method = LS_METHOD_BICGSTAB;
    opt.rtol = 1e-14; /* tight enough for the scaled-residual check at n = 25 */
    double *A2 = lt_doubles((size_t)n * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            A2[i + (size_t)j * n] = AT(C, n, i, j);
    st = ls_solve(NULL, &opt, n, 1, A2, n, B, n, &rep);
    double last = rep.history_len > 0 ? rep.history[rep.history_len - 1] : INFINITY;
    f += lt_check(st == 0 && last <= opt.rtol,
                  "convdiff k=5: BiCGStab converges (status %d, %d its, relative residual %.2g)",
                  st, rep.iterations, last);
    ls_report_clear(&rep);
    ls_fill_random(n, 1, B, n, 2);
    opt.method = LS_METHOD_LU;
    st = ls_solve(NULL, &opt, n, 1, A2, n, B, n, &rep);
    f += lt_check(st == 0 && rep.residual <= LS_TEST_TOL,
                  "convdiff k=5: LU solves it (status %d, scaled residual %.2g)", st,
                  rep.residual);
    ls_report_clear(&rep);
    free(A2);
    free(B);
    free(P);
    free(C);
    return f;
}

static int test_structured(void)
{
    int f = 0, st;
    /* gfpp: partial pivoting never swaps (|1| vs |-1| ties keep the first), and
     * the last column doubles at each step: U(n,n) = 2^(n-1). */
    int n = 20;
    double *G = gen(LS_GEN_GFPP, n, 0, 0, &st);
    int *ipiv = malloc(sizeof(int) * 64), info = 0;
    if (!ipiv)
        exit(99);
    ls_dgetrf(n, n, G, n + PAD, ipiv, &info, NULL);
    f += lt_check(st == 0 && info == 0 && AT(G, n, n - 1, n - 1) == ldexp(1.0, n - 1),
                  "gfpp n=20: U(n,n) = %.17g (want 2^19 = %.0f)", AT(G, n, n - 1, n - 1),
                  ldexp(1.0, n - 1));
    free(G);

    n = 12;
    double *K = gen(LS_GEN_KAHAN, n, 0, 0, &st);
    int upper = 1, posdiag = 1;
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++)
            upper &= AT(K, n, i, j) == 0;
    for (int i = 0; i < n; i++)
        posdiag &= AT(K, n, i, i) > 0;
    double s = sin(1.2), c = cos(1.2);
    f += lt_check(st == 0 && upper && posdiag &&
                      fabs(AT(K, n, 1, 2) - (-c * s)) < 1e-15 &&
                      fabs(AT(K, n, 3, 3) - s * s * s) < 1e-12,
                  "kahan n=12: upper triangular, positive diagonal s^i, row i off-diagonal -c s^i");
    free(K);

    n = 30;
    double *D = gen(LS_GEN_DIAGDOM, n, 3, 0, &st);
    int dom = 1;
    for (int i = 0; i < n; i++) {
        double off = 0;
        for (int j = 0; j < n; j++)
            if (j != i)
                off += fabs(AT(D, n, i, j));
        dom &= fabs(AT(D, n, i, i)) > off;
    }
    f += lt_check(st == 0 && dom, "diagdom n=30: strictly diagonally dominant by rows");
    free(D);

    double *Z = gen(LS_GEN_ZERODIAG, n, 3, 0, &st);
    int zd = 1;
    for (int i = 0; i < n; i++)
        zd &= AT(Z, n, i, i) == 0;
    f += lt_check(st == 0 && zd && AT(Z, n, 1, 0) != 0, "zerodiag n=30: exact zero diagonal");
    free(Z);

    double *H = gen(LS_GEN_HILBERT, 6, 0, 0, &st);
    f += lt_check(st == 0 && H[0] == 1 && AT(H, 6, 2, 3) == 1.0 / 6 && AT(H, 6, 5, 5) == 1.0 / 11,
                  "hilbert: entries 1/(i+j-1)");
    free(H);

    /* singular: exactly one zero column, seed-chosen (several seeds move it). */
    int cols_seen[64] = {0}, distinct = 0, exactly_one = 1;
    n = 40;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        double *S = gen(LS_GEN_SINGULAR, n, seed, 0, &st);
        int zero_cols = 0, zc = -1;
        for (int j = 0; j < n; j++) {
            int zero = 1;
            for (int i = 0; i < n; i++)
                zero &= AT(S, n, i, j) == 0;
            if (zero) {
                zero_cols++;
                zc = j;
            }
        }
        exactly_one &= st == 0 && zero_cols == 1;
        if (zc >= 0 && !cols_seen[zc]++)
            distinct++;
        free(S);
    }
    f += lt_check(exactly_one && distinct >= 3,
                  "singular n=40: one zero column per seed, %d distinct columns over 8 seeds",
                  distinct);
    free(ipiv);
    return f;
}

int main(void)
{
    int f = 0;
    f += test_names();
    f += test_bad_arguments();
    f += test_determinism();
    f += test_randsvd();
    f += test_stencils();
    f += test_structured();
    printf("%d failure(s)\n", f);
    return f;
}
