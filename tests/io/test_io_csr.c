/* CSR reader, writer, matvec and Poisson generator (ls_csr_*, ls_gen_poisson):
 * the shared matrices against the dense reader, the reading rules on small
 * hand-written files, every malformed file refused with a located message,
 * bit-exact write -> read round trips, and the 2-D Poisson matrix at
 * n = 10^6. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr_testlib.h"
#include "io_testlib.h"
#include "testutil.h"

#define BANNER_CG "%%MatrixMarket matrix coordinate real general\n"

/* ||y_csr - A x||inf against the dense reader's A, relative to |A||x|. */
static int matvec_agrees(const ls_csr *S, const ls_matrix *D, unsigned long long seed,
                         double *worst)
{
    size_t m = (size_t)D->rows, n = (size_t)D->cols;
    double *x = lt_doubles(n), *y = lt_doubles(m), *yd = lt_doubles(m), *ya = lt_doubles(m);
    for (size_t j = 0; j < n; j++)
        x[j] = (double)(io_rand(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    int st = ls_csr_matvec(S, x, y);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            yd[i] += D->data[i + j * m] * x[j];
            ya[i] += fabs(D->data[i + j * m] * x[j]);
        }
    *worst = 0.0;
    for (size_t i = 0; i < m; i++) {
        double e = fabs(y[i] - yd[i]) / (ya[i] > 0 ? ya[i] : 1.0);
        if (!(e <= *worst))
            *worst = e;
    }
    free(x);
    free(y);
    free(yd);
    free(ya);
    return st == 0 && *worst <= 64 * 2.2e-16;
}

/* Every real/ file: coordinate files read, equal the dense reader's matrix
 * entry for entry and under a random matvec, and round-trip bit-exactly
 * through the writer; array files are refused with a pointer to the dense
 * reader. */
static int real_files(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/real", dir);
    DIR *d = opendir(path);
    if (!d)
        return lt_check(0, "open %s", path);
    int fails = 0, seen = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0)
            continue;
        seen++;
        snprintf(path, sizeof path, "%s/real/%s", dir, e->d_name);
        ls_matrix D;
        char err[1024] = "", why[160] = "";
        int dst = ls_mm_read(path, &D, err, sizeof err);
        if (dst != 0) {
            fails += lt_check(0, "dense read %s: %s", e->d_name, err);
            continue;
        }
        if (!D.sparse_input) {
            fails += csr_expect_status(path, LS_EUNSUPPORTED, ":1:", "dense reader");
            ls_matrix_free(&D);
            continue;
        }
        ls_csr S;
        double t0 = io_now();
        int st = ls_csr_read_mm(path, &S, err, sizeof err);
        double t = io_now() - t0;
        int ok = st == 0 && csr_well_formed(&S, why, sizeof why) && S.n_rows == D.rows &&
                 S.n_cols == D.cols;
        double *SD = ok ? csr_densify(&S) : NULL;
        long long same = 0, nonzeros = 0, total = (long long)D.rows * D.cols;
        for (long long k = 0; SD && k < total; k++) {
            same += SD[k] == D.data[k];
            nonzeros += D.data[k] != 0.0;
        }
        double worst = INFINITY;
        ok = ok && SD && same == total && S.nnz >= nonzeros &&
             matvec_agrees(&S, &D, 7 + (unsigned long long)seen, &worst);
        fails += lt_check(ok,
                          "%-13s %5lld x %-5lld nnz %6lld (file %6lld, nonzero %6lld) %.3f s: "
                          "equals dense %lld/%lld, matvec err %.1e %s%s",
                          e->d_name, (long long)S.n_rows, (long long)S.n_cols, (long long)S.nnz,
                          D.nnz, nonzeros, t, same, total, worst, err, why);
        free(SD);

        /* write -> read: the same bits, and writing again the same bytes */
        const char *out = io_tmp_path("roundtrip.mtx");
        char out1[1024];
        snprintf(out1, sizeof out1, "%s", out);
        ls_csr R;
        memset(&R, 0, sizeof R);
        int wst = ok ? ls_csr_write_mm(out1, &S, err, sizeof err) : -1;
        int rst = wst == 0 ? ls_csr_read_mm(out1, &R, err, sizeof err) : -1;
        unsigned char *b1 = NULL, *b2 = NULL;
        size_t n1 = 0, n2 = 0;
        const char *out2 = io_tmp_path("roundtrip2.mtx");
        int same_bytes = rst == 0 && ls_csr_write_mm(out2, &R, err, sizeof err) == 0 &&
                         io_read_all(out1, &b1, &n1) == 0 && io_read_all(out2, &b2, &n2) == 0 &&
                         n1 == n2 && memcmp(b1, b2, n1) == 0;
        fails += lt_check(rst == 0 && csr_same_bits(&S, &R) && same_bytes,
                          "%-13s write -> read bit-exact, rewrite byte-identical (%zu bytes) %s",
                          e->d_name, n1, err);
        free(b1);
        free(b2);
        ls_csr_free(&R);
        ls_csr_free(&S);
        ls_matrix_free(&D);
    }
    closedir(d);
    fails += lt_check(seen >= 10, "%d files in real/", seen);
    return fails;
}

/* Every bad/ file: refused with the file named, or (rectangular / empty
 * files that are bad only for the dense solver) read into CSR. */
static int bad_files(const char *dir)
{
    static const struct {
        const char *file;
        int status;
        const char *word;
    } cases[] = {
        {"bad_header.mtx", LS_EFORMAT, "bogus"},
        {"bad_dimensions.mtx", LS_EFORMAT, "size line"},
        {"bad_matrix_type.mtx", LS_EUNSUPPORTED, "complex"},
        {"complex.mtx", LS_EUNSUPPORTED, "complex"},
        {"full_noheader.mtx", LS_EFORMAT, "banner"},
        {"mangled1.mtx", LS_EFORMAT, "mangled"},
        /* bad only for a dense square solve: rectangular and/or all zero */
        {"empty.mtx", 0, NULL},
        {"ash219.mtx", 0, NULL},
    };
    int fails = 0, seen = 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/bad", dir);
    DIR *d = opendir(path);
    if (!d)
        return lt_check(0, "open %s", path);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t c = 0;
        while (c < sizeof cases / sizeof cases[0] && strcmp(cases[c].file, e->d_name) != 0)
            c++;
        if (c == sizeof cases / sizeof cases[0]) {
            fails += lt_check(0, "bad/%s has no expected outcome in this test", e->d_name);
            continue;
        }
        seen++;
        snprintf(path, sizeof path, "%s/bad/%s", dir, e->d_name);
        fails += csr_expect_status(path, cases[c].status, ":", cases[c].word);
    }
    closedir(d);
    /* the two that read: what they hold */
    ls_csr A;
    char err[512] = "";
    snprintf(path, sizeof path, "%s/bad/empty.mtx", dir);
    int st = ls_csr_read_mm(path, &A, err, sizeof err);
    fails += lt_check(st == 0 && A.n_rows == 3 && A.n_cols == 4 && A.nnz == 0 &&
                          A.row_ptr[3] == 0,
                      "empty.mtx (bad for the dense solver only): 3 x 4, nnz 0 %s", err);
    ls_csr_free(&A);
    snprintf(path, sizeof path, "%s/bad/ash219.mtx", dir);
    st = ls_csr_read_mm(path, &A, err, sizeof err);
    int ones = st == 0;
    for (int64_t p = 0; ones && p < A.nnz; p++)
        ones = A.val[p] == 1.0;
    fails += lt_check(st == 0 && A.n_rows == 219 && A.n_cols == 85 && A.nnz == 438 && ones,
                      "ash219.mtx (bad for the dense solver only: 219 x 85 pattern): %lld x "
                      "%lld, nnz %lld, all 1.0 %s",
                      (long long)A.n_rows, (long long)A.n_cols, (long long)A.nnz, err);
    ls_csr_free(&A);
    fails += lt_check(seen == (int)(sizeof cases / sizeof cases[0]), "%d of %zu bad/ files seen",
                      seen, sizeof cases / sizeof cases[0]);
    return fails;
}

/* Expected CSR of a small file, rows given as (col, value) lists. */
typedef struct small_case {
    const char *file;
    const char *text;
    int rows, cols, nnz;
    int64_t row_ptr[8];
    int64_t col_idx[16]; /* 0-based */
    double val[16];
} small_case;

static const small_case small_cases[] = {
    {"dups.mtx", BANNER_CG "3 3 5\n1 1 1\n2 2 2\n1 1 0.5\n3 1 4\n1 1 0.25\n", 3, 3, 3,
     {0, 1, 2, 3}, {0, 1, 0}, {1.75, 2, 4}},
    {"zeros.mtx", BANNER_CG "2 3 4\n1 2 0\n2 3 0.0\n2 1 1\n2 1 -1\n", 2, 3, 3, {0, 1, 3},
     {1, 0, 2}, {0, 0, 0}},
    {"empty_rows.mtx", BANNER_CG "5 3 2\n2 3 7\n5 1 -8\n", 5, 3, 2, {0, 0, 1, 1, 1, 2}, {2, 0},
     {7, -8}},
    {"unsorted.mtx", BANNER_CG "2 4 5\n1 4 4\n2 2 5\n1 1 1\n1 3 3\n1 2 2\n", 2, 4, 5,
     {0, 4, 5}, {0, 1, 2, 3, 1}, {1, 2, 3, 4, 5}},
    {"symmetric.mtx",
     "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 2\n2 1 -1\n3 2 -1\n3 3 2\n"
     "1 3 5\n",
     3, 3, 8, {0, 3, 5, 8}, {0, 1, 2, 0, 2, 0, 1, 2}, {2, -1, 5, -1, -1, 5, -1, 2}},
    {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -4\n",
     3, 3, 4, {0, 2, 3, 4}, {1, 2, 0, 0}, {-3, 4, 3, -4}},
    {"pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 2\n1 1\n",
     2, 3, 3, {0, 2, 3}, {0, 2, 1}, {1, 1, 1}},
    {"pattern_sym.mtx",
     "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n", 3, 3, 5,
     {0, 2, 3, 5}, {0, 2, 2, 0, 1}, {1, 1, 1, 1, 1}},
    {"pattern_skew.mtx",
     "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n", 2, 2, 2,
     {0, 1, 2}, {1, 0}, {-1, 1}},
    {"integer.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 -3\n2 2 +7\n",
     2, 2, 2, {0, 1, 2}, {0, 1}, {-3, 7}},
    {"sym_dups.mtx",
     "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n1 2 10\n2 2 4\n", 2, 2, 3,
     {0, 1, 3}, {1, 0, 1}, {11, 11, 4}},
    {"layout.mtx",
     "%%matrixmarket MATRIX Coordinate REAL General\r\n% comment\r\n\r\n%another\r\n 2  2  1 "
     "\r\n\r\n\t2 1 1e-3\r\n\r\n",
     2, 2, 1, {0, 0, 1}, {0}, {1e-3}},
};

static int small_files(void)
{
    int fails = 0;
    for (size_t c = 0; c < sizeof small_cases / sizeof small_cases[0]; c++) {
        const small_case *k = &small_cases[c];
        const char *path = io_write_text(k->file, k->text);
        ls_csr A;
        char err[512] = "", why[160] = "";
        int st = ls_csr_read_mm(path, &A, err, sizeof err);
        int ok = st == 0 && csr_well_formed(&A, why, sizeof why) && A.n_rows == k->rows &&
                 A.n_cols == k->cols && A.nnz == k->nnz;
        for (int i = 0; ok && i <= k->rows; i++)
            ok = A.row_ptr[i] == k->row_ptr[i];
        for (int p = 0; ok && p < k->nnz; p++)
            ok = A.col_idx[p] == k->col_idx[p] && A.val[p] == k->val[p];
        /* and the dense reader agrees entry for entry */
        ls_matrix D;
        double *SD = ok ? csr_densify(&A) : NULL;
        if (SD && ls_mm_read(path, &D, err, sizeof err) == 0) {
            for (int q = 0; q < k->rows * k->cols; q++)
                ok = ok && SD[q] == D.data[q];
            ls_matrix_free(&D);
        } else {
            ok = 0;
        }
        free(SD);
        fails += lt_check(ok, "%-16s %d x %d nnz %lld as expected, equals the dense reader %s%s",
                          k->file, k->rows, k->cols, (long long)A.nnz, err, why);
        ls_csr_free(&A);
    }

    /* -0.0 is kept with its sign (an explicit zero), and duplicates are
     * summed in file order: 1e16 + 1 - 1e16 is 0 that way, 1 in others. */
    const char *path = io_write_text("order.mtx", BANNER_CG "2 3 5\n1 3 1e16\n1 1 -0\n1 3 1\n"
                                                  "2 2 5\n1 3 -1e16\n");
    ls_csr A;
    char err[512] = "";
    int st = ls_csr_read_mm(path, &A, err, sizeof err);
    ls_matrix D;
    int dst = ls_mm_read(path, &D, err, sizeof err);
    fails += lt_check(st == 0 && dst == 0 && A.nnz == 3 && A.col_idx[0] == 0 &&
                          signbit(A.val[0]) && A.val[0] == 0.0 && A.col_idx[1] == 2 &&
                          A.val[1] == 0.0 && D.data[0 + 2 * 2] == 0.0,
                      "-0 kept as an explicit zero; 1e16 + 1 - 1e16 summed in file order = 0 "
                      "(dense reader too) %s",
                      err);
    ls_csr_free(&A);
    ls_matrix_free(&D);
    return fails;
}

typedef struct bad_case {
    const char *file;
    const char *text;
    int status;
    const char *where;
    const char *word;
} bad_case;

static const bad_case bad_cases[] = {
    {"empty_file.mtx", "", LS_EFORMAT, ":1:", "empty"},
    {"no_banner.mtx", "% comment\n2 2 1\n1 1 1\n", LS_EFORMAT, ":1:", "banner"},
    {"short_banner.mtx", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", LS_EFORMAT,
     ":1:", "5 words"},
    {"bad_object.mtx", "%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n",
     LS_EFORMAT, ":1:", "vector"},
    {"bad_symmetry.mtx", "%%MatrixMarket matrix coordinate real bogus\n1 1 1\n1 1 1\n",
     LS_EFORMAT, ":1:", "bogus"},
    {"hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
     LS_EUNSUPPORTED, ":1:", "hermitian"},
    {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
     LS_EUNSUPPORTED, ":1:", "complex"},
    {"array.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n", LS_EUNSUPPORTED, ":1:",
     "ls_matrix_read"},
    {"pattern_array.mtx", "%%MatrixMarket matrix array pattern general\n1 1\n1\n", LS_EFORMAT,
     ":1:", "pattern"},
    {"no_size.mtx", BANNER_CG "% only a comment\n", LS_EFORMAT, ":3:", "size line"},
    {"size_two_ints.mtx", BANNER_CG "% c\n3 4\n", LS_EFORMAT, ":3:", "3 integers"},
    {"size_float.mtx", BANNER_CG "3.0 3 1\n1 1 1\n", LS_EFORMAT, ":2:", "3 integers"},
    {"size_junk.mtx", BANNER_CG "3 3 1 x\n1 1 1\n", LS_EFORMAT, ":2:", "3 integers"},
    {"rows_zero.mtx", BANNER_CG "0 3 0\n", LS_ESIZE, ":2:", "dimensions"},
    {"cols_negative.mtx", BANNER_CG "3 -2 0\n", LS_ESIZE, ":2:", "dimensions"},
    {"rows_huge.mtx", BANNER_CG "1000000000000000000 1 0\n", LS_ESIZE, ":2:", "dimensions"},
    {"rows_saturate.mtx", BANNER_CG "99999999999999999999999 1 0\n", LS_ESIZE, ":2:",
     "dimensions"},
    {"nnz_too_big.mtx", BANNER_CG "2 2 5\n1 1 1\n1 2 1\n2 1 1\n2 2 1\n1 1 1\n", LS_ESIZE, ":2:",
     "entries"},
    {"nnz_negative.mtx", BANNER_CG "2 2 -1\n", LS_ESIZE, ":2:", "entries"},
    {"nnz_file_short.mtx", BANNER_CG "4000 4000 1000000\n1 1 1\n", LS_ESIZE, ":2:", "bytes"},
    {"nnz_huge.mtx", BANNER_CG "1000000 1000000 999999999999\n1 1 1\n", LS_ESIZE, ":2:",
     "bytes"},
    {"nan.mtx", BANNER_CG "2 2 2\n1 1 1\n2 2 nan\n", LS_ENONFINITE, ":4:", "nan"},
    {"inf.mtx", BANNER_CG "2 2 2\n1 1 1\n2 2 -inf\n", LS_ENONFINITE, ":4:", "inf"},
    {"overflow_value.mtx", BANNER_CG "2 2 1\n1 1 1e999\n", LS_ENONFINITE, ":3:", "1e999"},
    {"overflow_sum.mtx", BANNER_CG "2 2 3\n1 2 1e308\n2 2 1\n1 2 1e308\n", LS_ENONFINITE,
     "(1, 2)", "overflow"},
    {"row_zero.mtx", BANNER_CG "3 3 1\n0 1 1\n", LS_EFORMAT, ":3:", "(0, 1)"},
    {"row_too_big.mtx", BANNER_CG "3 3 2\n1 1 1\n4 1 1\n", LS_EFORMAT, ":4:", "(4, 1)"},
    {"col_too_big.mtx", BANNER_CG "3 2 1\n1 3 1\n", LS_EFORMAT, ":3:", "(1, 3)"},
    {"col_negative.mtx", BANNER_CG "3 2 1\n1 -1 1\n", LS_EFORMAT, ":3:", "(1, -1)"},
    {"index_huge.mtx", BANNER_CG "3 3 1\n99999999999999999999999 1 1\n", LS_EFORMAT, ":3:",
     "indices"},
    {"index_float.mtx", BANNER_CG "3 3 1\n1.0 1 1\n", LS_EFORMAT, ":3:", "3 fields"},
    {"skew_diagonal.mtx",
     "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 0\n", LS_EFORMAT,
     ":4:", "diagonal"},
    {"symmetric_rect.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n",
     LS_EFORMAT, ":2:", "square"},
    {"too_many.mtx", BANNER_CG "2 2 1\n1 1 1\n2 2 1\n", LS_EFORMAT, ":4:", "end of file"},
    {"too_few.mtx", BANNER_CG "2 2 3\n1 1 1.000000\n2 2 1.000000\n", LS_EFORMAT, ":5:",
     "expected 3 entries"},
    {"garbage_number.mtx", BANNER_CG "2 2 1\n1 1 1.2.3\n", LS_EFORMAT, ":3:", "1.2.3"},
    {"word_number.mtx", BANNER_CG "2 2 1\n1 1 abc\n", LS_EFORMAT, ":3:", "abc"},
    {"hex_number.mtx", BANNER_CG "2 2 1\n1 1 0x10\n", LS_EFORMAT, ":3:", "0x10"},
    {"integer_field_real.mtx",
     "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n", LS_EFORMAT, ":3:",
     "integer"},
    {"trailing_junk.mtx", BANNER_CG "2 2 1\n1 1 2.0 junk\n", LS_EFORMAT, ":3:", "junk"},
    {"missing_value.mtx", BANNER_CG "2 2 1\n1 1    \n", LS_EFORMAT, ":3:", "3 fields"},
    {"pattern_with_value.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n",
     LS_EFORMAT, ":3:", "2 fields"},
    {"comment_in_data.mtx", BANNER_CG "2 2 2\n1 1 1\n% late comment\n2 2 2\n", LS_EFORMAT,
     ":4:", "late comment"},
};

static int bad_text_files(void)
{
    int fails = 0;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        fails += csr_expect_status(io_write_text(c->file, c->text), c->status, c->where, c->word);
    }
    static const char nul_text[] = BANNER_CG "1 1 1\n1 1\0 2\n";
    const char *path = io_tmp_path("nul_byte.mtx");
    io_write_bytes(path, nul_text, sizeof nul_text - 1);
    fails += csr_expect_status(path, LS_EFORMAT, ":3:", "NUL");
    size_t head = strlen(BANNER_CG "1 1 1\n"), n = 3u << 20;
    char *endless = malloc(n);
    if (!endless)
        return fails + lt_check(0, "malloc");
    memcpy(endless, BANNER_CG "1 1 1\n", head);
    memset(endless + head, '1', n - head);
    path = io_tmp_path("endless_line.mtx");
    io_write_bytes(path, endless, n);
    free(endless);
    fails += csr_expect_status(path, LS_EFORMAT, ":3:", "line");
    fails += csr_expect_status(io_tmp_path("does_not_exist.mtx"), LS_EIO, NULL, "cannot open");

    /* A huge claim is refused before anything is allocated: quickly. */
    double t0 = io_now();
    fails += csr_expect_status(io_tmp_path("nnz_huge.mtx"), LS_ESIZE, ":2:", NULL);
    fails += csr_expect_status(io_tmp_path("rows_huge.mtx"), LS_ESIZE, ":2:", NULL);
    double t = io_now() - t0;
    fails += lt_check(t < 1.0, "huge headers refused in %.4f s (< 1 s)", t);

    /* The caps follow LS_MAX_ELEMENTS: sides, and the reading memory. */
    setenv("LS_MAX_ELEMENTS", "10", 1);
    fails += csr_expect_status(io_write_text("over_rows.mtx", BANNER_CG "11 1 1\n1 1 1\n"),
                               LS_ESIZE, ":2:", "dimensions");
    fails += csr_expect_status(
        io_write_text("over_budget.mtx", BANNER_CG "5 5 3\n1 1 1\n2 2 1\n3 3 1\n"), LS_ESIZE,
        ":2:", "CSR");
    fails += csr_expect_status(io_write_text("under_budget.mtx", BANNER_CG "5 5 2\n1 1 1\n2 2 1\n"),
                               0, NULL, NULL);
    unsetenv("LS_MAX_ELEMENTS");
    fails += csr_expect_status(io_tmp_path("over_budget.mtx"), 0, NULL, NULL);

    /* argument errors */
    ls_csr A;
    char err[256] = "";
    fails += lt_check(ls_csr_read_mm(NULL, &A, err, sizeof err) == LS_EINVAL &&
                          ls_csr_read_mm(path, NULL, err, sizeof err) == LS_EINVAL,
                      "ls_csr_read_mm(NULL path / NULL out) -> LS_EINVAL");
    return fails;
}

/* The writer refuses what it could not write faithfully, and leaves no file. */
static int writer_refusals(void)
{
    int fails = 0;
    int64_t rp[3] = {0, 1, 2}, ci[2] = {0, 1};
    double v[2] = {1.0, 2.0};
    ls_csr A = {2, 2, 2, rp, ci, v};
    char err[512] = "";
    const char *path = io_tmp_path("refused.mtx");
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    struct {
        const char *what;
        int status;
        const char *word;
    } cases[] = {{"NaN value", LS_ENONFINITE, "non-finite"},
                 {"column out of range", LS_EINVAL, "column index"},
                 {"row_ptr decreasing", LS_EINVAL, "decreases"},
                 {"row_ptr end != nnz", LS_EINVAL, "row_ptr"},
                 {"zero rows", LS_EINVAL, "n_rows"}};
    for (int c = 0; c < 5; c++) {
        ls_csr B = A;
        int64_t rp2[3] = {0, 1, 2}, ci2[2] = {0, 1};
        double v2[2] = {1.0, 2.0};
        B.row_ptr = rp2;
        B.col_idx = ci2;
        B.val = v2;
        if (c == 0)
            v2[1] = NAN;
        if (c == 1)
            ci2[1] = 2;
        if (c == 2) {
            rp2[1] = 2;
            rp2[2] = 1;
            B.nnz = 1;
        }
        if (c == 3)
            B.nnz = 1;
        if (c == 4)
            B.n_rows = 0;
        remove(p);
        int st = ls_csr_write_mm(p, &B, err, sizeof err);
        FILE *f = fopen(p, "rb");
        fails += lt_check(st == cases[c].status && strstr(err, "refused.mtx") &&
                              strstr(err, cases[c].word) && !f,
                          "write with %-20s -> %s, no file: %s", cases[c].what,
                          ls_status_name(st), err);
        if (f)
            fclose(f);
    }
    int st = ls_csr_write_mm(io_tmp_path("no_such_dir/x.mtx"), &A, err, sizeof err);
    fails += lt_check(st == LS_EIO && strstr(err, "x.mtx"), "write into a missing folder -> %s %s",
                      ls_status_name(st), err);
    fails += lt_check(ls_csr_write_mm(NULL, &A, err, sizeof err) == LS_EINVAL &&
                          ls_csr_write_mm(p, NULL, err, sizeof err) == LS_EINVAL,
                      "ls_csr_write_mm(NULL path / NULL A) -> LS_EINVAL");

    /* values that stress the text form: all come back with the same bits */
    int64_t rp3[4] = {0, 3, 3, 6}, ci3[6] = {0, 1, 3, 0, 2, 3};
    double v3[6] = {-0.0, 4.9406564584124654e-324, 1.7976931348623157e308, 0.1, -1.0 / 3.0,
                    2.2250738585072014e-308};
    ls_csr S = {3, 4, 6, rp3, ci3, v3}, R;
    st = ls_csr_write_mm(p, &S, err, sizeof err);
    if (st == 0)
        st = ls_csr_read_mm(p, &R, err, sizeof err);
    fails += lt_check(st == 0 && csr_same_bits(&S, &R),
                      "-0, denormal, DBL_MAX, 0.1, -1/3, empty row: write -> read bit-exact %s",
                      err);
    if (st == 0)
        ls_csr_free(&R);
    return fails;
}

/* The symmetric partner (j, i) of every entry, by binary search in row j. */
static int csr_symmetric(const ls_csr *A)
{
    for (int64_t i = 0; i < A->n_rows; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            int64_t j = A->col_idx[p], lo = A->row_ptr[j], hi = A->row_ptr[j + 1];
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (A->col_idx[mid] < i)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == A->row_ptr[j + 1] || A->col_idx[lo] != i || A->val[lo] != A->val[p])
                return 0;
        }
    return 1;
}

static int poisson_case(int dims, int64_t k)
{
    ls_csr A;
    double t0 = io_now();
    int st = ls_gen_poisson(dims, k, &A);
    double t = io_now() - t0;
    if (st)
        return lt_check(0, "ls_gen_poisson(%d, %lld) -> %d", dims, (long long)k, st);
    int64_t n = dims == 3 ? k * k * k : k * k;
    int64_t nnz = dims == 3 ? 7 * n - 6 * k * k : 5 * n - 4 * k;
    char why[160] = "";
    int ok = csr_well_formed(&A, why, sizeof why) && A.n_rows == n && A.n_cols == n &&
             A.nnz == nnz;
    /* row sums: 0 inside, the number of missing neighbours on the boundary;
     * A ones = the row sums; x^T A x > 0 for a random x */
    double *x = lt_doubles((size_t)n), *y = lt_doubles((size_t)n);
    for (int64_t p = 0; p < n; p++)
        x[p] = 1.0;
    ok = ok && ls_csr_matvec(&A, x, y) == 0;
    int64_t bad_sums = 0;
    for (int64_t p = 0; ok && p < n; p++) {
        int64_t ix = p % k, iy = (p / k) % k, iz = p / (k * k);
        double want = (ix == 0) + (ix == k - 1) + (iy == 0) + (iy == k - 1);
        if (dims == 3)
            want += (iz == 0) + (iz == k - 1);
        double s = 0.0, diag = 0.0;
        for (int64_t q = A.row_ptr[p]; q < A.row_ptr[p + 1]; q++) {
            s += A.val[q];
            if (A.col_idx[q] == p)
                diag = A.val[q];
        }
        bad_sums += s != want || y[p] != want || diag != 2.0 * dims;
    }
    ok = ok && bad_sums == 0 && csr_symmetric(&A);
    unsigned long long seed = 99;
    for (int64_t p = 0; p < n; p++)
        x[p] = (double)(io_rand(&seed) >> 11) / 9007199254740992.0 - 0.5;
    double xax = 0.0;
    ok = ok && ls_csr_matvec(&A, x, y) == 0;
    for (int64_t p = 0; p < n; p++)
        xax += x[p] * y[p];
    ok = ok && xax > 0.0;
    free(x);
    free(y);
    int fails = lt_check(ok,
                         "poisson %dD k = %lld: n = %lld, nnz = %lld (want %lld), row sums, "
                         "symmetric, x'Ax = %.3g > 0, %.3f s %s",
                         dims, (long long)k, (long long)A.n_rows, (long long)A.nnz,
                         (long long)nnz, xax, t, why);
    ls_csr_free(&A);
    return fails;
}

static int poisson(void)
{
    int fails = poisson_case(2, 1000) + poisson_case(3, 40) + poisson_case(2, 1) +
                poisson_case(3, 1) + poisson_case(3, 2);
    /* 2-D is the dense generator's poisson2d, entry for entry */
    const int k = 7, n = k * k;
    double *D = lt_doubles((size_t)n * n);
    ls_csr A;
    int st = ls_gen_poisson(2, k, &A);
    int ok = st == 0 && ls_generate(LS_GEN_POISSON2D, n, D, n, 1, 0) == 0;
    double *SD = ok ? csr_densify(&A) : NULL;
    for (int q = 0; SD && q < n * n; q++)
        ok = ok && SD[q] == D[q];
    fails += lt_check(ok && SD, "poisson 2D k = 7 equals ls_generate(poisson2d, 49)");
    free(SD);
    free(D);
    /* round trip through the writer */
    char err[512] = "";
    ls_csr R;
    st = st == 0 ? ls_csr_write_mm(io_tmp_path("poisson.mtx"), &A, err, sizeof err) : st;
    st = st == 0 ? ls_csr_read_mm(io_tmp_path("poisson.mtx"), &R, err, sizeof err) : st;
    fails += lt_check(st == 0 && csr_same_bits(&A, &R), "poisson 2D k = 7 write -> read %s", err);
    if (st == 0)
        ls_csr_free(&R);
    ls_csr_free(&A);
    /* argument errors, LAPACK-numbered */
    fails += lt_check(ls_gen_poisson(4, 10, &A) == -1 && ls_gen_poisson(1, 10, &A) == -1 &&
                          ls_gen_poisson(2, 0, &A) == -2 && ls_gen_poisson(3, -5, &A) == -2 &&
                          ls_gen_poisson(3, (int64_t)1 << 40, &A) == -2 &&
                          ls_gen_poisson(2, 10, NULL) == -3 && A.row_ptr == NULL,
                      "ls_gen_poisson: dims 4/1 -> -1, k 0/-5/2^40 -> -2, out NULL -> -3");
    double x[2] = {1, 1}, y[2];
    int64_t rp[3] = {0, 1, 2}, ci[2] = {1, 0};
    double v[2] = {2, 3};
    ls_csr B = {2, 2, 2, rp, ci, v};
    fails += lt_check(ls_csr_matvec(NULL, x, y) == -1 && ls_csr_matvec(&B, NULL, y) == -2 &&
                          ls_csr_matvec(&B, x, NULL) == -3 && ls_csr_matvec(&B, x, y) == 0 &&
                          y[0] == 2 && y[1] == 3,
                      "ls_csr_matvec: NULL A/x/y -> -1/-2/-3; a 2 x 2 product");
    return fails;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/matrices";
    if (!io_tmpdir_create()) {
        perror("mkdtemp");
        return 1;
    }
    int fails = 0;
    fails += real_files(dir);
    fails += bad_files(dir);
    fails += small_files();
    fails += bad_text_files();
    fails += writer_refusals();
    fails += poisson();
    io_tmpdir_remove();
    printf("%d failure(s)\n", fails);
    return fails;
}
