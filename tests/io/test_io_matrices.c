/* The shared test matrices: every real/ file reads with the documented n and
 * nonzero count and matches an independent fscanf-based reference reader;
 * every bad/ file gives the documented status with a located message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io_testlib.h"
#include "testutil.h"

typedef struct real_case {
    const char *file;
    int n;
    long long nonzeros; /* README table: nonzeros of the dense matrix */
    long long stored;   /* entries on the file's size line */
    int symmetric;
} real_case;

static const real_case real_cases[] = {
    {"full.mtx", 3, 9, 9, 0},           {"impcol_a.mtx", 207, 572, 572, 0},
    {"west0479.mtx", 479, 1888, 1910, 0}, {"494_bus.mtx", 494, 1666, 1080, 1},
    {"pde900.mtx", 900, 4380, 4380, 0},   {"olm1000.mtx", 1000, 3996, 3996, 0},
    {"1138_bus.mtx", 1138, 4054, 2596, 1}, {"rajat19.mtx", 1157, 3699, 5399, 0},
    {"nnc1374.mtx", 1374, 8588, 8606, 0}, {"watt_2.mtx", 1856, 11550, 11550, 0},
    {"cryg2500.mtx", 2500, 12349, 12349, 0},
};

/* Deliberately simple and slow: fscanf, no validation, to cross-check the
 * library's parser on well-formed files. Returns a calloc'd dense matrix. */
static double *reference_read(const char *path, int *rows, int *cols)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char banner[5][64];
    double *A = NULL;
    char line[1024];
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%63s %63s %63s %63s %63s", banner[0], banner[1], banner[2], banner[3],
               banner[4]) != 5)
        goto done;
    do {
        if (!fgets(line, sizeof line, f))
            goto done;
    } while (line[0] == '%');
    int coord = strcasecmp(banner[2], "coordinate") == 0;
    int pattern = strcasecmp(banner[3], "pattern") == 0;
    int sym = strcasecmp(banner[4], "symmetric") == 0;
    long long nnz = 0;
    if ((coord && sscanf(line, "%d %d %lld", rows, cols, &nnz) != 3) ||
        (!coord && sscanf(line, "%d %d", rows, cols) != 2))
        goto done;
    A = calloc((size_t)*rows * (size_t)*cols, sizeof(double));
    if (!A)
        goto done;
    if (!coord) {
        for (size_t k = 0; k < (size_t)*rows * (size_t)*cols; k++)
            if (fscanf(f, "%lf", &A[k]) != 1)
                break;
        goto done;
    }
    for (long long k = 0; k < nnz; k++) {
        int i, j;
        double v = 1.0;
        if (fscanf(f, "%d %d", &i, &j) != 2 || (!pattern && fscanf(f, "%lf", &v) != 1))
            break;
        A[(i - 1) + (size_t)(j - 1) * *rows] += v;
        if (sym && i != j)
            A[(j - 1) + (size_t)(i - 1) * *rows] += v;
    }
done:
    fclose(f);
    return A;
}

static int check_real(const char *dir, const real_case *c)
{
    char path[1024], err[1024] = "";
    snprintf(path, sizeof path, "%s/real/%s", dir, c->file);
    ls_matrix m;
    double t0 = io_now();
    int st = ls_matrix_read(path, &m, err, sizeof err);
    double t = io_now() - t0;
    int fails = 0;
    if (st != 0) {
        lt_check(0, "read %s: %s %s", c->file, ls_status_name(st), err);
        return 1;
    }
    size_t count = (size_t)m.rows * (size_t)m.cols;
    long long nonzeros = 0;
    int finite = 1;
    for (size_t k = 0; k < count; k++) {
        nonzeros += m.data[k] != 0.0;
        finite = finite && isfinite(m.data[k]);
    }
    int sparse = strcmp(c->file, "full.mtx") != 0;
    fails += lt_check(m.rows == c->n && m.cols == c->n && m.ld == c->n && finite &&
                          nonzeros == c->nonzeros && m.nnz == c->stored &&
                          m.sparse_input == sparse,
                      "read %-14s %dx%d ld %d nonzeros %lld (want %lld) stored %lld (want %lld) "
                      "sparse %d, %.3f s",
                      c->file, m.rows, m.cols, m.ld, nonzeros, c->nonzeros, m.nnz, c->stored,
                      m.sparse_input, t);
    int rr = 0, rc = 0;
    double *ref = reference_read(path, &rr, &rc);
    fails += lt_check(ref && rr == m.rows && rc == m.cols && io_same_bits(ref, m.data, count),
                      "  %s equals the fscanf reference bit for bit", c->file);
    free(ref);
    if (c->symmetric) {
        int sym = 1;
        for (int j = 0; j < m.cols && sym; j++)
            for (int i = 0; i < m.rows; i++)
                sym = sym && m.data[i + (size_t)j * m.ld] == m.data[j + (size_t)i * m.ld];
        fails += lt_check(sym, "  %s is mirrored: A == A^T", c->file);
    }
    if (strcmp(c->file, "cryg2500.mtx") == 0)
        fails += lt_check(t < 2.0, "  %s read in %.3f s (< 2 s; 0.03 s when idle)", c->file, t);
    ls_matrix_free(&m);
    return fails;
}

typedef struct bad_case {
    const char *file;
    int status;
    const char *where; /* must appear in the message */
    const char *word;
} bad_case;

static const bad_case bad_cases[] = {
    {"bad_header.mtx", LS_EFORMAT, ":1:", "bogus"},
    {"bad_dimensions.mtx", LS_EFORMAT, ":4:", "size line"},
    {"bad_matrix_type.mtx", LS_EUNSUPPORTED, ":1:", "complex"},
    {"complex.mtx", LS_EUNSUPPORTED, ":1:", "complex"},
    {"full_noheader.mtx", LS_EFORMAT, ":1:", "%%MatrixMarket"},
    {"mangled1.mtx", LS_EFORMAT, ":1:", "mangled"},
};

static int check_rectangular(const char *dir, const char *file, int rows, int cols,
                             long long stored, double value)
{
    char path[1024], err[1024] = "";
    snprintf(path, sizeof path, "%s/bad/%s", dir, file);
    ls_matrix m;
    int st = ls_matrix_read(path, &m, err, sizeof err);
    int ok = st == 0 && m.rows == rows && m.cols == cols && m.nnz == stored && m.sparse_input;
    long long hits = 0;
    for (size_t k = 0; ok && k < (size_t)rows * (size_t)cols; k++) {
        ok = m.data[k] == 0.0 || m.data[k] == value;
        hits += m.data[k] == value;
    }
    ok = ok && hits == (value == 0.0 ? (long long)rows * cols : stored);
    ls_matrix_free(&m);
    return lt_check(ok, "read %s: rectangular %dx%d reads at the io level (%s) %s", file, rows,
                    cols, ls_status_name(st), err);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MATRICES_DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int fails = 0;
    for (size_t i = 0; i < sizeof real_cases / sizeof real_cases[0]; i++)
        fails += check_real(dir, &real_cases[i]);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/bad/%s", dir, bad_cases[i].file);
        fails += io_expect_status(path, bad_cases[i].status, bad_cases[i].where,
                                  bad_cases[i].word);
    }
    fails += check_rectangular(dir, "empty.mtx", 3, 4, 0, 0.0);
    fails += check_rectangular(dir, "ash219.mtx", 219, 85, 438, 1.0);

    /* Unreadable inputs and bad arguments. */
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/real/no_such_file.mtx", dir);
    fails += io_expect_status(path, LS_EIO, "no_such_file", NULL);
    snprintf(path, sizeof path, "%s/real", dir);
    fails += io_expect_status(path, LS_EIO, "directory", NULL);
    ls_matrix m;
    fails += lt_check(ls_matrix_read(NULL, &m, err, sizeof err) == LS_EINVAL, "NULL path -> LS_EINVAL");
    snprintf(path, sizeof path, "%s/real/full.mtx", dir);
    fails += lt_check(ls_matrix_read(path, NULL, err, sizeof err) == LS_EINVAL,
                      "NULL matrix -> LS_EINVAL");
    fails += lt_check(ls_matrix_read(path, &m, NULL, 0) == 0, "NULL err buffer is allowed");
    ls_matrix_free(&m);
    ls_matrix_free(NULL);
    printf("%d failure(s)\n", fails);
    return fails;
}
