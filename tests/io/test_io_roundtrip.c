/* Round trips and valid-input features:
 *  - random and extreme doubles through ls_mm_write/read and ls_npy_write/
 *    read come back bit for bit;
 *  - the writers' byte layout is what numpy and Matrix Market expect;
 *  - .npy files built byte by byte (v1/v2/v3, both byte orders, C and
 *    Fortran order, f4, ints, 1-D) read as the values they encode;
 *  - Matrix Market symmetric/skew mirroring, duplicates, integer, pattern,
 *    comments, CRLF, case and whitespace variants read correctly. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_suites.h"
#include "io_testlib.h"
#include "testutil.h"

/* Finite doubles from random bit patterns (every exponent, denormals) mixed
 * with the values most likely to break a text round trip. */
static void fill_extreme(double *A, size_t n, unsigned long long seed)
{
    static const double special[] = {0.1, 1e-300, -0.0, 0.0, 4.9406564584124654e-324,
                                     2.2250738585072009e-308, 2.2250738585072014e-308,
                                     1e308, -DBL_MAX, DBL_MAX, 1.0 / 3.0, -2.5e-310,
                                     9007199254740993.0, 123456789012345678.0};
    const size_t ns = sizeof special / sizeof special[0];
    unsigned long long s = seed;
    for (size_t k = 0; k < n; k++) {
        if (k < ns) {
            A[k] = special[k];
            continue;
        }
        double v;
        do {
            unsigned long long bits = io_rand(&s);
            memcpy(&v, &bits, sizeof v);
        } while (!isfinite(v));
        A[k] = (k % 3 == 0) ? (double)(long long)(io_rand(&s) >> 11) * 0x1.0p-40 : v;
    }
}

static int roundtrip_one(int rows, int cols, int ld, unsigned long long seed)
{
    int fails = 0;
    size_t count = (size_t)ld * (size_t)cols;
    double *A = malloc(count * sizeof(double));
    double *packed = malloc((size_t)rows * (size_t)cols * sizeof(double));
    if (!A || !packed) {
        free(A);
        free(packed);
        return lt_check(0, "malloc");
    }
    fill_extreme(A, count, seed);
    for (int j = 0; j < cols; j++)
        memcpy(packed + (size_t)j * rows, A + (size_t)j * ld, (size_t)rows * sizeof(double));
    ls_matrix m = {rows, cols, ld, A, 0, 0};
    const char *kinds[2] = {"rt.mtx", "rt.npy"};
    for (int w = 0; w < 2; w++) {
        char err[512] = "";
        const char *path = io_tmp_path(kinds[w]);
        double t0 = io_now();
        int st = ls_matrix_write(path, &m, err, sizeof err);
        ls_matrix back;
        memset(&back, 0, sizeof back);
        if (st == 0)
            st = ls_matrix_read(path, &back, err, sizeof err);
        double t = io_now() - t0;
        int ok = st == 0 && back.rows == rows && back.cols == cols && back.ld == rows &&
                 back.sparse_input == 0 && back.nnz == (long long)rows * cols &&
                 io_same_bits(back.data, packed, (size_t)rows * cols);
        fails += lt_row(rows, cols, w ? "npy-roundtrip" : "mm-roundtrip", "io", "d", t, 0.0, 0.0,
                        ok);
        if (!ok)
            printf("    %s (ld %d): %s %s\n", kinds[w], ld, ls_status_name(st), err);
        ls_matrix_free(&back);
    }
    free(A);
    free(packed);
    return fails;
}

/* What the writers put on disk, byte for byte. */
static int writer_layout(void)
{
    int fails = 0;
    double A[6] = {1, 2, 3, 4, 5, 6};
    ls_matrix m = {2, 3, 2, A, 0, 0};
    char err[512] = "";
    unsigned char *b = NULL;
    size_t n = 0;
    const char *npy = io_tmp_path("layout.npy");
    int st = ls_npy_write(npy, &m, err, sizeof err);
    if (st == 0 && io_read_all(npy, &b, &n) == 0) {
        size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
        const char *want = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }";
        int ok = n == 10 + hlen + sizeof A && (10 + hlen) % 64 == 0 &&
                 memcmp(b, "\x93NUMPY\x01\x00", 8) == 0 &&
                 memcmp(b + 10, want, strlen(want)) == 0 && b[10 + hlen - 1] == '\n';
        for (size_t i = 10 + strlen(want); ok && i < 10 + hlen - 1; i++)
            ok = b[i] == ' ';
        for (int k = 0; ok && k < 6; k++) {
            /* little-endian regardless of the host */
            uint64_t bits = 0, want_bits;
            for (int i = 0; i < 8; i++)
                bits |= (uint64_t)b[10 + hlen + 8 * k + i] << (8 * i);
            memcpy(&want_bits, &A[k], 8);
            ok = bits == want_bits;
        }
        fails += lt_check(ok, "npy writer: v1.0, '<f8', fortran_order True, 64-byte header, "
                              "column-major little-endian data");
        free(b);
    } else {
        fails += lt_check(0, "npy writer: %s %s", ls_status_name(st), err);
    }
    const char *mm = io_tmp_path("layout.mtx");
    st = ls_mm_write(mm, &m, err, sizeof err);
    if (st == 0 && io_read_all(mm, &b, &n) == 0) {
        const char *banner = "%%MatrixMarket matrix array real general\n";
        int ok = n > strlen(banner) && memcmp(b, banner, strlen(banner)) == 0;
        const char *tail = "2 3\n1\n2\n3\n4\n5\n6\n";
        ok = ok && n > strlen(tail) && memcmp(b + n - strlen(tail), tail, strlen(tail)) == 0;
        fails += lt_check(ok, "mm writer: array real general banner, size line, column-major");
        free(b);
    } else {
        fails += lt_check(0, "mm writer: %s %s", ls_status_name(st), err);
    }

    /* Writers refuse what the readers would refuse, and leave no file. */
    A[4] = NAN;
    mm = io_tmp_path("nan.mtx");
    st = ls_mm_write(mm, &m, err, sizeof err);
    FILE *f = fopen(mm, "rb");
    fails += lt_check(st == LS_ENONFINITE && !f, "mm writer refuses NaN (%s), no file left",
                      ls_status_name(st));
    if (f)
        fclose(f);
    st = ls_npy_write(npy, &m, err, sizeof err);
    fails += lt_check(st == LS_ENONFINITE, "npy writer refuses NaN (%s)", ls_status_name(st));
    A[4] = 5;
    st = ls_matrix_write("/nonexistent-dir/x.mtx", &m, err, sizeof err);
    fails += lt_check(st == LS_EIO && strstr(err, "/nonexistent-dir/x.mtx"),
                      "write into a missing folder -> %s %s", ls_status_name(st), err);
    ls_matrix bad = {2, 3, 1, A, 0, 0};
    fails += lt_check(ls_mm_write(mm, &bad, err, sizeof err) == LS_EINVAL, "ld < rows -> EINVAL");
    fails += lt_check(ls_npy_write(npy, NULL, err, sizeof err) == LS_EINVAL, "NULL -> EINVAL");
    return fails;
}

/* Encode v as one element of kind ('f','i','u') and size, little- or
 * big-endian, independent of the host's byte order. */
static void put_element(unsigned char *dst, double v, char kind, int size, int big)
{
    uint64_t bits;
    if (kind == 'f' && size == 8) {
        memcpy(&bits, &v, 8);
    } else if (kind == 'f') {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
    } else {
        int64_t s = (int64_t)v; /* two's complement: the low bytes are the value */
        memcpy(&bits, &s, 8);
    }
    for (int i = 0; i < size; i++)
        dst[big ? size - 1 - i : i] = (unsigned char)(bits >> (8 * i));
}

typedef struct npy_variant {
    int major;
    const char *dict;
    char kind;
    int size, big, fortran, rows, cols;
} npy_variant;

#define NPY_NATIVE -1 /* 'big' value meaning: the host's byte order */

static const npy_variant npy_variants[] = {
    {1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", 'f', 8, 0, 1, 2, 3},
    {2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 'f', 8, 0, 0, 2, 3},
    {3, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", 'f', 8, 1, 0, 2, 3},
    {1, "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3), }", 'f', 8, 1, 1, 2, 3},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 'f', 4, 0, 0, 2, 3},
    {2, "{'descr': '>f4', 'fortran_order': True, 'shape': (2, 3), }", 'f', 4, 1, 1, 2, 3},
    {1, "{'descr': 'f8', 'fortran_order': False, 'shape': (2, 3), }", 'f', 8, NPY_NATIVE, 0, 2, 3},
    {1, "{'descr': '=f4', 'fortran_order': True, 'shape': (2, 3), }", 'f', 4, NPY_NATIVE, 1, 2, 3},
    {1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 'i', 4, 0, 0, 2, 3},
    {1, "{'descr': '>i8', 'fortran_order': True, 'shape': (2, 3), }", 'i', 8, 1, 1, 2, 3},
    {1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", 'i', 2, 0, 0, 2, 3},
    {1, "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }", 'i', 1, 0, 0, 2, 3},
    {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", 'u', 1, 0, 0, 2, 3},
    {1, "{'descr': '>u4', 'fortran_order': True, 'shape': (2, 3), }", 'u', 4, 1, 1, 2, 3},
    {1, "{'descr': '<u8', 'fortran_order': False, 'shape': (2, 3), }", 'u', 8, 0, 0, 2, 3},
    {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", 'f', 8, 0, 0, 6, 1},
    {1, "{'descr': '>f8', 'fortran_order': True, 'shape': (6L,), }", 'f', 8, 1, 1, 6, 1},
    {3, "{\"shape\":(2,3),\"fortran_order\":False,\"descr\":\"<f8\"}", 'f', 8, 0, 0, 2, 3},
    {2, "{'fortran_order': True, 'descr': '>f4', 'shape': (2L, 3L,) }", 'f', 4, 1, 1, 2, 3},
};

static int npy_handmade(void)
{
    static const double fvals[6] = {1.5, -2.25, 0.125, 1024, -0.0, 3.0517578125e-05};
    static const double ivals[6] = {1, -2, 3, 100, -7, 0};
    static const double uvals[6] = {1, 2, 3, 200, 7, 0};
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    const int host_big = first != 1;
    int fails = 0;
    for (size_t v = 0; v < sizeof npy_variants / sizeof npy_variants[0]; v++) {
        const npy_variant *c = &npy_variants[v];
        const double *vals = c->kind == 'f' ? fvals : c->kind == 'i' ? ivals : uvals;
        int big = c->big == NPY_NATIVE ? host_big : c->big;
        unsigned char data[6 * 8];
        /* element (i, j) of the matrix is vals[i + j * rows] */
        for (int i = 0; i < c->rows; i++)
            for (int j = 0; j < c->cols; j++) {
                size_t pos = c->fortran ? (size_t)(i + j * c->rows) : (size_t)(i * c->cols + j);
                put_element(data + pos * c->size, vals[i + j * c->rows], c->kind, c->size, big);
            }
        size_t n = 0;
        unsigned char *bytes = io_npy_bytes(c->major, c->dict, data, 6 * (size_t)c->size, &n);
        char name[32];
        snprintf(name, sizeof name, "variant%zu.npy", v);
        const char *path = io_tmp_path(name);
        ls_matrix m;
        memset(&m, 0, sizeof m);
        char err[512] = "";
        int st = (bytes && io_write_bytes(path, bytes, n) == 0) ? ls_matrix_read(path, &m, err, sizeof err)
                                                               : LS_EIO;
        free(bytes);
        int ok = st == 0 && m.rows == c->rows && m.cols == c->cols && io_same_bits(m.data, vals, 6);
        fails += lt_check(ok, "npy v%d.0 %-62s -> %dx%d %s %s", c->major, c->dict, m.rows, m.cols,
                          ls_status_name(st), err);
        ls_matrix_free(&m);
    }
    return fails;
}

typedef struct mm_feature {
    const char *name;
    const char *text;
    int rows, cols;
    long long stored;
    double want[9]; /* column-major */
} mm_feature;

static const mm_feature mm_features[] = {
    {"array general, column-major",
     "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n", 2, 3, 6,
     {1, 2, 3, 4, 5, 6}},
    {"array symmetric: lower triangle mirrored",
     "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", 3, 3, 6,
     {1, 2, 3, 2, 4, 5, 3, 5, 6}},
    {"array skew-symmetric: negated mirror, zero diagonal",
     "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", 3, 3, 3,
     {0, 1, 2, -1, 0, 3, -2, -3, 0}},
    {"coordinate skew-symmetric",
     "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -4\n", 3, 3, 2,
     {0, 1.5, 0, -1.5, 0, -4, 0, 4, 0}},
    {"coordinate symmetric pattern",
     "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n", 2, 2, 2,
     {1, 1, 1, 0}},
    {"integer field, signs",
     "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 -7\n2 2 +3\n1 2 0\n", 2, 2, 3,
     {-7, 0, 0, 3}},
    {"duplicates are summed",
     "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1.0\n1 1 1.0\n1 1 0.5\n", 2, 2,
     3, {2.5, 0, 0, 0}},
    {"comments, blank lines, CRLF, tabs, no final newline",
     "%%MatrixMarket matrix coordinate real general\r\n%%GraphBLAS type double\r\n\r\n% c\r\n"
     "  \t\r\n2 2 2\r\n\r\n1\t2   -0\r\n  2 1 .5E+1 \r\n\r\n ",
     2, 2, 2, {0, 5, 0.0, 0}}, /* entries add onto +0.0, so "-0" reads as +0.0 */
    {"upper-case banner words",
     "%%MatrixMarket MATRIX Array REAL General\n1 1\n1e-320\n", 1, 1, 1, {1e-320}},
};

static int mm_handmade(void)
{
    int fails = 0;
    for (size_t k = 0; k < sizeof mm_features / sizeof mm_features[0]; k++) {
        const mm_feature *c = &mm_features[k];
        char name[32], err[512] = "";
        snprintf(name, sizeof name, "feature%zu.mtx", k);
        ls_matrix m;
        int st = ls_matrix_read(io_write_text(name, c->text), &m, err, sizeof err);
        size_t count = (size_t)c->rows * (size_t)c->cols;
        int ok = st == 0 && m.rows == c->rows && m.cols == c->cols && m.nnz == c->stored &&
                 io_same_bits(m.data, c->want, count);
        fails += lt_check(ok, "mm %-52s %s %s", c->name, ls_status_name(st), err);
        ls_matrix_free(&m);
    }
    return fails;
}

int io_roundtrip_suite(void)
{
    int fails = 0;
    lt_header();
    static const int shapes[][3] = {{1, 1, 1}, {3, 5, 3}, {17, 4, 20}, {64, 64, 64}, {1, 40, 1},
                                    {40, 1, 41}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        fails += roundtrip_one(shapes[s][0], shapes[s][1], shapes[s][2], 1000 + s);
    fails += writer_layout();
    fails += npy_handmade();
    fails += mm_handmade();
    return fails;
}
