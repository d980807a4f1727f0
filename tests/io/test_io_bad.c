/* Handcrafted malformed files, written into a scratch folder: each must be
 * refused with the right status and a message naming the file and the line
 * (Matrix Market) or byte offset (.npy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_testlib.h"
#include "testutil.h"

typedef struct mm_case {
    const char *file;
    const char *text;
    int status;
    const char *where; /* ":<line>:" that the message must name */
    const char *word;  /* and a word that says what was expected or found */
} mm_case;

#define BANNER_CG "%%MatrixMarket matrix coordinate real general\n"
#define BANNER_AG "%%MatrixMarket matrix array real general\n"

static const mm_case mm_cases[] = {
    {"empty_file.mtx", "", LS_EFORMAT, ":1:", "empty"},
    {"no_banner.mtx", "% comment\n2 2 1\n1 1 1\n", LS_EFORMAT, ":1:", "banner"},
    {"short_banner.mtx", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", LS_EFORMAT,
     ":1:", "5 words"},
    {"bad_format.mtx", "%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", LS_EFORMAT,
     ":1:", "sparse"},
    {"bad_field.mtx", "%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n",
     LS_EFORMAT, ":1:", "quaternion"},
    {"hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
     LS_EUNSUPPORTED, ":1:", "hermitian"},
    {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
     LS_EUNSUPPORTED, ":1:", "complex"},
    {"pattern_array.mtx", "%%MatrixMarket matrix array pattern general\n1 1\n1\n", LS_EFORMAT,
     ":1:", "pattern"},
    {"size_two_ints.mtx", BANNER_CG "% c\n3 4\n", LS_EFORMAT, ":3:",
     "expected 3 integers (rows cols nnz), got \"3 4\""},
    {"size_float.mtx", BANNER_AG "3.0 3\n", LS_EFORMAT, ":2:", "2 integers"},
    {"size_junk.mtx", BANNER_AG "3 3 x\n", LS_EFORMAT, ":2:", "2 integers"},
    {"rows_zero.mtx", BANNER_CG "0 3 0\n", LS_ESIZE, ":2:", "dimensions"},
    {"cols_negative.mtx", BANNER_AG "3 -2\n", LS_ESIZE, ":2:", "dimensions"},
    {"rows_over_int.mtx", BANNER_CG "3000000000 1 0\n", LS_ESIZE, ":2:", "dimensions"},
    {"huge_array.mtx", BANNER_AG "1000000000 1000000000\n1\n", LS_ESIZE, ":2:", "limit"},
    {"huge_coord.mtx", BANNER_CG "1000000000 1000000000 1\n1 1 1\n", LS_ESIZE, ":2:", "limit"},
    {"array_too_short.mtx", BANNER_AG "1000 1000\n1\n2\n3\n", LS_ESIZE, ":2:", "bytes"},
    {"coord_nnz_too_big.mtx", BANNER_CG "2 2 5\n1 1 1\n1 2 1\n2 1 1\n2 2 1\n1 1 1\n", LS_ESIZE,
     ":2:", "entries"},
    {"coord_nnz_negative.mtx", BANNER_CG "2 2 -1\n", LS_ESIZE, ":2:", "entries"},
    {"coord_nnz_file_short.mtx", BANNER_CG "4000 4000 1000000\n1 1 1\n", LS_ESIZE, ":2:",
     "bytes"},
    {"nan_array.mtx", BANNER_AG "2 1\n1.5\nnan\n", LS_ENONFINITE, ":4:", "nan"},
    {"inf_coord.mtx", BANNER_CG "2 2 2\n1 1 1\n2 2 -inf\n", LS_ENONFINITE, ":4:", "inf"},
    {"overflow_value.mtx", BANNER_CG "2 2 1\n1 1 1e999\n", LS_ENONFINITE, ":3:", "1e999"},
    {"overflow_sum.mtx", BANNER_CG "2 2 2\n1 1 1e308\n1 1 1e308\n", LS_ENONFINITE, ":4:",
     "overflow"},
    {"row_zero.mtx", BANNER_CG "3 3 1\n0 1 1\n", LS_EFORMAT, ":3:", "(0, 1)"},
    {"row_too_big.mtx", BANNER_CG "3 3 2\n1 1 1\n4 1 1\n", LS_EFORMAT, ":4:", "(4, 1)"},
    {"col_too_big.mtx", BANNER_CG "3 2 1\n1 3 1\n", LS_EFORMAT, ":3:", "(1, 3)"},
    {"index_huge.mtx", BANNER_CG "3 3 1\n99999999999999999999999 1 1\n", LS_EFORMAT, ":3:",
     "indices"},
    {"skew_diagonal.mtx",
     "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 0\n", LS_EFORMAT,
     ":4:", "diagonal"},
    {"symmetric_rect.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n",
     LS_EFORMAT, ":2:", "square"},
    {"coord_too_many.mtx", BANNER_CG "2 2 1\n1 1 1\n2 2 1\n", LS_EFORMAT, ":4:",
     "end of file"},
    {"array_too_many.mtx", BANNER_AG "1 2\n1\n2\n3\n", LS_EFORMAT, ":5:", "end of file"},
    {"coord_too_few.mtx", BANNER_CG "2 2 3\n1 1 1.000000\n2 2 1.000000\n", LS_EFORMAT, ":5:",
     "expected 3 entries"},
    {"array_too_few.mtx", BANNER_AG "2 2\n1.0\n2.0\n3.0\n", LS_EFORMAT, ":6:", "expected 4 entries"},
    {"garbage_number.mtx", BANNER_AG "2 1\n1.2.3\n4\n", LS_EFORMAT, ":3:", "1.2.3"},
    {"word_number.mtx", BANNER_CG "2 2 1\n1 1 abc\n", LS_EFORMAT, ":3:", "abc"},
    {"hex_number.mtx", BANNER_AG "1 1\n0x10\n", LS_EFORMAT, ":3:", "0x10"},
    {"integer_field_real.mtx", "%%MatrixMarket matrix array integer general\n1 1\n1.5\n",
     LS_EFORMAT, ":3:", "integer"},
    {"trailing_junk.mtx", BANNER_CG "2 2 1\n1 1 2.0 junk\n", LS_EFORMAT, ":3:", "junk"},
    {"array_two_values.mtx", BANNER_AG "2 1\n1 2\n", LS_EFORMAT, ":3:", "one value"},
    {"pattern_with_value.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n",
     LS_EFORMAT, ":3:", "2 fields"},
    {"comment_in_data.mtx", BANNER_AG "2 1\n1\n% late comment\n2\n", LS_EFORMAT, ":4:",
     "late comment"},
};

/* Text files the table cannot hold: NUL bytes and a line with no end. */
static int special_mm_cases(void)
{
    int fails = 0;
    static const char nul_text[] = BANNER_AG "1 1\n1\0 2\n";
    const char *path = io_tmp_path("nul_byte.mtx");
    io_write_bytes(path, nul_text, sizeof nul_text - 1);
    fails += io_expect_status(path, LS_EFORMAT, ":3:", "NUL");

    size_t n = 3u << 20;
    char *long_line = malloc(n);
    if (!long_line)
        return lt_check(0, "malloc for the long-line case");
    memcpy(long_line, BANNER_AG "1 1\n", strlen(BANNER_AG "1 1\n"));
    memset(long_line + strlen(BANNER_AG "1 1\n"), '1', n - strlen(BANNER_AG "1 1\n"));
    path = io_tmp_path("endless_line.mtx");
    io_write_bytes(path, long_line, n);
    free(long_line);
    fails += io_expect_status(path, LS_EFORMAT, ":3:", "line");

    /* The size check must come before the allocation: time it. */
    double t0 = io_now();
    fails += io_expect_status(io_tmp_path("huge_array.mtx"), LS_ESIZE, ":2:", NULL);
    double t = io_now() - t0;
    /* generous bound: CI shares 2 cores with other tests; an attempted 8e18-byte
     * allocation or a read of the whole claim would take far longer or fail */
    fails += lt_check(t < 1.0, "1e9 x 1e9 header refused in %.4f s (< 1 s)", t);

    /* The element cap follows LS_MAX_ELEMENTS. */
    long long cap = ls_io_max_elements();
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    fails += lt_check(cap > 0 && cap <= (1LL << 31) && (double)cap * 16.0 <= mem + 16.0,
                      "default cap %lld elements: <= 2^31 and <= half of %.1f GiB as doubles",
                      cap, mem / 1073741824.0);
    setenv("LS_MAX_ELEMENTS", "100", 1);
    const char *cap_path = io_write_text("over_cap.mtx", BANNER_CG "11 10 1\n1 1 1\n");
    fails += lt_check(ls_io_max_elements() == 100, "LS_MAX_ELEMENTS=100 is honoured");
    fails += io_expect_status(cap_path, LS_ESIZE, ":2:", "110 elements");
    setenv("LS_MAX_ELEMENTS", "junk", 1);
    fails += lt_check(ls_io_max_elements() == cap, "LS_MAX_ELEMENTS=junk is ignored");
    unsetenv("LS_MAX_ELEMENTS");
    fails += io_expect_status(cap_path, 0, NULL, NULL);
    return fails;
}

typedef struct npy_case {
    const char *file;
    int major;
    const char *dict;
    size_t data_bytes; /* zero-filled data after the header */
    int status;
    const char *word;
} npy_case;

static const npy_case npy_cases[] = {
    {"object.npy", 1, "{'descr': '|O', 'fortran_order': False, 'shape': (2, 2), }", 32,
     LS_EUNSUPPORTED, "object"},
    {"complex.npy", 1, "{'descr': '<c16', 'fortran_order': False, 'shape': (2, 2), }", 64,
     LS_EUNSUPPORTED, "complex"},
    {"half.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", 8,
     LS_EUNSUPPORTED, "f2"},
    {"bool.npy", 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", 4,
     LS_EUNSUPPORTED, "boolean"},
    {"string.npy", 1, "{'descr': '<U8', 'fortran_order': False, 'shape': (2, 2), }", 128,
     LS_EUNSUPPORTED, "U8"},
    {"structured.npy", 1,
     "{'descr': [('a', '<f8'), ('b', '<f8')], 'fortran_order': False, 'shape': (2,), }", 32,
     LS_EUNSUPPORTED, "structured"},
    {"three_d.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }", 64,
     LS_EUNSUPPORTED, "3 dimensions"},
    {"scalar.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8,
     LS_EUNSUPPORTED, "0 dimensions"},
    {"truncated.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 3), }", 70,
     LS_ESIZE, "72 bytes"},
    {"trailing.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", 40,
     LS_EFORMAT, "8 extra"},
    {"zero_dim.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (0, 3), }", 0, LS_ESIZE,
     "dimensions"},
    {"huge_shape.npy", 2,
     "{'descr': '<f8', 'fortran_order': True, 'shape': (1000000000, 1000000000), }", 8, LS_ESIZE,
     "limit"},
    {"missing_key.npy", 1, "{'descr': '<f8', 'shape': (2, 2), }", 32, LS_EFORMAT,
     "fortran_order"},
    {"extra_key.npy", 1,
     "{'descr': '<f8', 'fortran_order': True, 'shape': (1, 1), 'extra': 1, }", 8, LS_EFORMAT,
     "extra"},
    {"repeated_key.npy", 1,
     "{'descr': '<f8', 'descr': '<f8', 'fortran_order': True, 'shape': (1, 1), }", 8,
     LS_EFORMAT, "repeated"},
    {"bad_bool.npy", 1, "{'descr': '<f8', 'fortran_order': true, 'shape': (1, 1), }", 8,
     LS_EFORMAT, "True or False"},
    {"bad_shape.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (1; 1), }", 8,
     LS_EFORMAT, "shape"},
    {"not_a_dict.npy", 1, "['descr', '<f8']", 8, LS_EFORMAT, "'{'"},
    {"junk_after.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (1, 1), } x", 8,
     LS_EFORMAT, "padding"},
};

static int npy_table_cases(void)
{
    int fails = 0;
    unsigned char zeros[256] = {0};
    for (size_t i = 0; i < sizeof npy_cases / sizeof npy_cases[0]; i++) {
        const npy_case *c = &npy_cases[i];
        size_t n = 0;
        unsigned char *b = io_npy_bytes(c->major, c->dict, zeros, c->data_bytes, &n);
        const char *path = io_tmp_path(c->file);
        if (!b || io_write_bytes(path, b, n) != 0)
            fails += lt_check(0, "write %s", c->file);
        free(b);
        fails += io_expect_status(path, c->status, "byte ", c->word);
    }
    return fails;
}

/* Byte-level damage that the table cannot express. */
static int npy_special_cases(void)
{
    int fails = 0;
    double data[4] = {1, 2, 3, 4};
    size_t n = 0;
    unsigned char *b =
        io_npy_bytes(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", data,
                     sizeof data, &n);
    if (!b)
        return lt_check(0, "io_npy_bytes");
    unsigned char *copy = malloc(n);
    if (!copy) {
        free(b);
        return lt_check(0, "malloc");
    }

    memcpy(copy, b, n);
    copy[6] = 4;
    io_write_bytes(io_tmp_path("version4.npy"), copy, n);
    fails += io_expect_status(io_tmp_path("version4.npy"), LS_EUNSUPPORTED, "byte 6", "4.0");

    memcpy(copy, b, n);
    copy[8] = 0xff;
    copy[9] = 0xff;
    io_write_bytes(io_tmp_path("header_len.npy"), copy, n);
    fails += io_expect_status(io_tmp_path("header_len.npy"), LS_EFORMAT, "byte 8", "header");

    io_write_bytes(io_tmp_path("cut_in_header.npy"), b, 40);
    fails += io_expect_status(io_tmp_path("cut_in_header.npy"), LS_EFORMAT, "byte 8", "header");
    io_write_bytes(io_tmp_path("cut_in_length.npy"), b, 9);
    fails += io_expect_status(io_tmp_path("cut_in_length.npy"), LS_EFORMAT, "byte 8", "length");

    memcpy(copy, b, n);
    double nan_value = 0.0 / 0.0;
    memcpy(copy + n - 16, &nan_value, 8);
    io_write_bytes(io_tmp_path("nan.npy"), copy, n);
    fails += io_expect_status(io_tmp_path("nan.npy"), LS_ENONFINITE, "byte 144", "finite");

    /* ls_npy_read on a Matrix Market file: no magic. */
    const char *mm = io_write_text("not_npy.mtx", BANNER_AG "1 1\n1\n");
    ls_matrix m;
    char err[512] = "";
    int st = ls_npy_read(mm, &m, err, sizeof err);
    fails += lt_check(st == LS_EFORMAT && strstr(err, "byte 0") && strstr(err, "magic"),
                      "ls_npy_read on a .mtx -> %s %s", ls_status_name(st), err);
    /* ls_mm_read on an .npy file: no banner. */
    io_write_bytes(io_tmp_path("good.npy"), b, n);
    st = ls_mm_read(io_tmp_path("good.npy"), &m, err, sizeof err);
    fails += lt_check(st == LS_EFORMAT && strstr(err, "good.npy:1:"),
                      "ls_mm_read on an .npy -> %s %s", ls_status_name(st), err);
    free(copy);
    free(b);
    return fails;
}

int main(void)
{
    if (!io_tmpdir_create()) {
        perror("mkdtemp");
        return 1;
    }
    int fails = 0;
    for (size_t i = 0; i < sizeof mm_cases / sizeof mm_cases[0]; i++) {
        const mm_case *c = &mm_cases[i];
        fails += io_expect_status(io_write_text(c->file, c->text), c->status, c->where, c->word);
    }
    fails += special_mm_cases();
    fails += npy_table_cases();
    fails += npy_special_cases();
    io_tmpdir_remove();
    printf("%d failure(s)\n", fails);
    return fails;
}
