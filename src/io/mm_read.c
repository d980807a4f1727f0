/* Matrix Market reader: array and coordinate; real, integer, pattern;
 * general, symmetric, skew-symmetric. Hand-rolled line parser (strtod per
 * value) because fscanf per token is several times slower on big files.
 *
 * Strict: every line must hold exactly the fields its kind calls for, and
 * every error names the file, the line and what was expected there.
 *
 * The header and coordinate-entry parsing (ls_mm_begin, ls_mm_coord_entry,
 * ls_mm_expect_end; mm_internal.h) also serve the CSR reader, csr_read.c;
 * mm_dense.c builds the dense matrix from the values they hand out. */
#include "mm_internal.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef struct mm_token {
    const char *p;
    size_t n;
} mm_token;

static int is_blank_char(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Split line into whitespace-separated tokens; stores at most max of them
 * and returns how many there are in all. */
static int mm_split(const char *line, mm_token *tok, int max)
{
    int count = 0;
    const char *p = line;
    for (;;) {
        while (is_blank_char(*p))
            p++;
        if (!*p)
            return count;
        const char *start = p;
        while (*p && !is_blank_char(*p))
            p++;
        if (count < max) {
            tok[count].p = start;
            tok[count].n = (size_t)(p - start);
        }
        count++;
    }
}

static int tok_is(mm_token t, const char *word)
{
    size_t n = strlen(word);
    if (t.n != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)t.p[i]) != word[i])
            return 0;
    return 1;
}

/* Index of t among the NULL-terminated words (case-insensitive), or -1. */
static int tok_pick(mm_token t, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (tok_is(t, words[i]))
            return i;
    return -1;
}

static int is_integer_syntax(mm_token t)
{
    size_t i = (t.n > 0 && (t.p[0] == '+' || t.p[0] == '-')) ? 1 : 0;
    if (i == t.n)
        return 0;
    for (; i < t.n; i++)
        if (t.p[i] < '0' || t.p[i] > '9')
            return 0;
    return 1;
}

/* Parse a decimal integer, saturating at +-LLONG_MAX so that range checks
 * downstream catch absurd values without overflow. */
static int parse_integer(mm_token t, long long *out)
{
    if (!is_integer_syntax(t))
        return -1;
    size_t i = 0;
    int neg = 0;
    if (t.p[0] == '+' || t.p[0] == '-')
        neg = t.p[i++] == '-';
    long long v = 0;
    for (; i < t.n; i++) {
        int d = t.p[i] - '0';
        v = (v > (LLONG_MAX - d) / 10) ? LLONG_MAX : v * 10 + d;
    }
    *out = neg ? -v : v;
    return 0;
}

/* Parse a real number that must span the whole token. Hex floats are
 * refused: strtod takes them, Matrix Market does not have them. */
static int parse_real(mm_token t, double *out)
{
    for (size_t i = 0; i < t.n; i++)
        if (t.p[i] == 'x' || t.p[i] == 'X')
            return -1;
    char *end = NULL;
    /* The token is followed by whitespace or NUL, so strtod stops inside it. */
    double v = strtod(t.p, &end);
    if (end != t.p + t.n || t.n == 0)
        return -1;
    *out = v;
    return 0;
}

/* Format the whole offending line into a quoted snippet for a message. */
#define MM_GOT(line, len, buf) (ls_io_snippet((line), (len), (buf), sizeof(buf)), (buf))

static int mm_banner(ls_mm_reader *r, char *line, size_t len)
{
    char got[80];
    mm_token t[6];
    int nt = mm_split(line, t, 6);
    if (nt < 1 || !tok_is(t[0], "%%matrixmarket"))
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:1: expected banner \"%%%%MatrixMarket matrix <format> <field> "
                       "<symmetry>\", got \"%s\"",
                       r->path, MM_GOT(line, len, got));
    if (nt != 5)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:1: expected 5 words in the banner (%%%%MatrixMarket matrix <format> "
                       "<field> <symmetry>), got %d: \"%s\"",
                       r->path, nt, MM_GOT(line, len, got));
    if (!tok_is(t[1], "matrix"))
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:1: expected object \"matrix\" in the banner, got \"%.*s\"", r->path,
                       (int)(t[1].n > 40 ? 40 : t[1].n), t[1].p);
    /* banner words, in the order of their enums; the last of fields and
     * symmetries is known but unsupported (complex) */
    static const char *const formats[] = {"array", "coordinate", NULL};
    static const char *const fields[] = {"real", "integer", "pattern", "complex", NULL};
    static const char *const symmetries[] = {"general", "symmetric", "skew-symmetric",
                                             "hermitian", NULL};
    int format = tok_pick(t[2], formats), field = tok_pick(t[3], fields),
        symmetry = tok_pick(t[4], symmetries);
    if (format < 0)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:1: expected format \"coordinate\" or \"array\", got \"%.*s\"", r->path,
                       (int)(t[2].n > 40 ? 40 : t[2].n), t[2].p);
    if (field == 3)
        return LS_FAIL(r->err, r->errlen, LS_EUNSUPPORTED,
                       "%s:1: field \"complex\" is not supported (real, integer or pattern only)",
                       r->path);
    if (field < 0)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:1: expected field real, integer, pattern or complex, got \"%.*s\"",
                       r->path, (int)(t[3].n > 40 ? 40 : t[3].n), t[3].p);
    if (symmetry == 3)
        return LS_FAIL(r->err, r->errlen, LS_EUNSUPPORTED,
                       "%s:1: symmetry \"hermitian\" is not supported (complex matrices only)",
                       r->path);
    if (symmetry < 0)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:1: expected symmetry general, symmetric, skew-symmetric or hermitian, "
                       "got \"%.*s\"",
                       r->path, (int)(t[4].n > 40 ? 40 : t[4].n), t[4].p);
    r->coordinate = format == 1;
    r->field = (enum ls_mm_field)field;
    r->symmetry = (enum ls_mm_symmetry)symmetry;
    if (!r->coordinate && r->field == LS_MM_PATTERN)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:1: expected field real or integer with format array (pattern is only "
                       "valid for coordinate)",
                       r->path);
    if (!r->coordinate && r->sparse)
        return LS_FAIL(r->err, r->errlen, LS_EUNSUPPORTED,
                       "%s:1: expected format \"coordinate\" for a sparse (CSR) read, got "
                       "\"array\" (dense storage): read it with the dense reader "
                       "(ls_matrix_read / ls_mm_read)",
                       r->path);
    return 0;
}

/* Next line that holds something (blank lines are tolerated anywhere);
 * *line is NULL at end of file. */
static int mm_next_nonblank(ls_mm_reader *r, char **line, size_t *len)
{
    for (;;) {
        int st = ls_io_lines_next(&r->lines, line, len, r->err, r->errlen);
        if (st || !*line)
            return st;
        const char *p = *line;
        while (is_blank_char(*p))
            p++;
        if (*p)
            return 0;
    }
}

static int mm_size_line(ls_mm_reader *r)
{
    char *line = NULL, got[80];
    size_t len = 0;
    int st;
    /* Comments ('%' lines, including %%GraphBLAS-style extensions) may sit
     * between the banner and the size line, and only there. */
    do {
        st = mm_next_nonblank(r, &line, &len);
        if (st)
            return st;
    } while (line && line[0] == '%');
    const char *expect = r->coordinate ? "3 integers (rows cols nnz)" : "2 integers (rows cols)";
    if (!line)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:%lld: expected the size line, %s, got end of file", r->path,
                       r->lines.line_no + 1, expect);
    mm_token t[4];
    int want = r->coordinate ? 3 : 2;
    int nt = mm_split(line, t, 4);
    long long v[3] = {0, 0, 0};
    int ok = nt == want;
    for (int i = 0; ok && i < want; i++)
        ok = parse_integer(t[i], &v[i]) == 0;
    if (!ok)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT, "%s:%lld: expected %s, got \"%s\"",
                       r->path, r->lines.line_no, expect, MM_GOT(line, len, got));
    r->rows = v[0];
    r->cols = v[1];
    long long cap = ls_io_max_elements();
    /* Dense: rows*cols doubles are allocated, so their product is capped.
     * Sparse: rows+1 row pointers are allocated, so each side is capped
     * (the entries are capped by the file's size below and by csr_read.c). */
    long long dim_max = r->sparse ? cap : INT_MAX;
    if (r->rows <= 0 || r->cols <= 0 || r->rows > dim_max || r->cols > dim_max)
        return LS_FAIL(r->err, r->errlen, LS_ESIZE,
                       "%s:%lld: expected dimensions between 1 and %lld%s, got %lld x %lld",
                       r->path, r->lines.line_no, dim_max,
                       r->sparse ? " (half the host memory, or LS_MAX_ELEMENTS)" : "", r->rows,
                       r->cols);
    /* rows*cols as the entry bound; saturated, since both sides may be near
     * 2^62 for a sparse read */
    long long elements = r->rows > LLONG_MAX / r->cols ? LLONG_MAX : r->rows * r->cols;
    if (!r->sparse && elements > cap)
        return LS_FAIL(r->err, r->errlen, LS_ESIZE,
                       "%s:%lld: %lld x %lld = %lld elements exceeds the limit of %lld "
                       "(half the host memory, or LS_MAX_ELEMENTS)",
                       r->path, r->lines.line_no, r->rows, r->cols, elements, cap);
    if ((r->symmetry != LS_MM_GENERAL) && r->rows != r->cols)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:%lld: expected a square matrix for symmetric storage, got %lld x %lld",
                       r->path, r->lines.line_no, r->rows, r->cols);
    if (r->coordinate) {
        if (v[2] < 0 || v[2] > elements)
            return LS_FAIL(r->err, r->errlen, LS_ESIZE,
                           "%s:%lld: expected between 0 and %lld entries (rows*cols), got %lld",
                           r->path, r->lines.line_no, elements, v[2]);
        r->entries = v[2];
    } else if (r->symmetry == LS_MM_SYMMETRIC) {
        r->entries = r->rows * (r->rows + 1) / 2;
    } else if (r->symmetry == LS_MM_SKEW) {
        r->entries = r->rows * (r->rows - 1) / 2;
    } else {
        r->entries = elements;
    }
    /* Every entry takes at least "v\n" (array), "i j\n" (pattern) or
     * "i j v\n" bytes: a header promising more than the file can hold is
     * refused now, before the allocation it would cause. */
    if (r->lines.src->size >= 0 && r->entries > 0) {
        long long per = !r->coordinate ? 2 : r->field == LS_MM_PATTERN ? 4 : 6;
        long long consumed = r->lines.src->offset - (long long)(r->lines.len - r->lines.pos);
        long long remaining = r->lines.src->size - consumed;
        if (r->entries > (remaining + 1) / per)
            return LS_FAIL(r->err, r->errlen, LS_ESIZE,
                           "%s:%lld: header promises %lld entries, which need at least %lld "
                           "bytes, but only %lld bytes follow",
                           r->path, r->lines.line_no, r->entries,
                           r->entries > LLONG_MAX / per ? LLONG_MAX : r->entries * per - 1,
                           remaining);
    }
    return 0;
}

static int mm_value(ls_mm_reader *r, mm_token t, const char *line, size_t len, double *out)
{
    char got[80];
    const int integer = r->field == LS_MM_INTEGER;
    int bad = integer ? !is_integer_syntax(t) || parse_real(t, out) != 0
                      : parse_real(t, out) != 0;
    if (bad)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT, "%s:%lld: expected %s value, got \"%s\"",
                       r->path, r->lines.line_no, integer ? "an integer" : "a real",
                       MM_GOT(line, len, got));
    if (!isfinite(*out))
        return LS_FAIL(r->err, r->errlen, LS_ENONFINITE,
                       "%s:%lld: expected a finite value, got \"%s\"", r->path, r->lines.line_no,
                       MM_GOT(line, len, got));
    return 0;
}

/* The line of entry k (0-based), or the file's early end as an error. */
static int mm_entry_line(ls_mm_reader *r, long long k, char **line, size_t *len)
{
    int st = mm_next_nonblank(r, line, len);
    if (st)
        return st;
    if (!*line)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:%lld: expected %lld entries, got end of file after %lld", r->path,
                       r->lines.line_no + 1, r->entries, k);
    return 0;
}

int ls_mm_array_value(ls_mm_reader *r, long long k, double *v)
{
    char *line = NULL, got[80];
    size_t len = 0;
    int st = mm_entry_line(r, k, &line, &len);
    if (st)
        return st;
    mm_token t[2];
    if (mm_split(line, t, 2) != 1)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:%lld: expected one value per line, got \"%s\"", r->path,
                       r->lines.line_no, MM_GOT(line, len, got));
    *v = 0.0;
    return mm_value(r, t[0], line, len, v);
}

int ls_mm_coord_entry(ls_mm_reader *r, long long k, long long *i, long long *j, double *v)
{
    const int want = r->field == LS_MM_PATTERN ? 2 : 3;
    const char *expect = want == 2 ? "2 fields (row col)" : "3 fields (row col value)";
    char *line = NULL, got[80];
    size_t len = 0;
    int st = mm_entry_line(r, k, &line, &len);
    if (st)
        return st;
    mm_token t[4];
    if (mm_split(line, t, 4) != want || parse_integer(t[0], i) || parse_integer(t[1], j))
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT, "%s:%lld: expected %s, got \"%s\"",
                       r->path, r->lines.line_no, expect, MM_GOT(line, len, got));
    if (*i < 1 || *i > r->rows || *j < 1 || *j > r->cols)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:%lld: expected indices within 1..%lld x 1..%lld, got (%lld, %lld)",
                       r->path, r->lines.line_no, r->rows, r->cols, *i, *j);
    if (r->symmetry == LS_MM_SKEW && *i == *j)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:%lld: expected no diagonal entry in a skew-symmetric matrix, got "
                       "(%lld, %lld)",
                       r->path, r->lines.line_no, *i, *j);
    *v = 1.0;
    if (want == 3)
        return mm_value(r, t[2], line, len, v);
    return 0;
}

/* After the last entry only blank lines may follow. */
int ls_mm_expect_end(ls_mm_reader *r)
{
    char *line = NULL, got[80];
    size_t len = 0;
    int st = mm_next_nonblank(r, &line, &len);
    if (st)
        return st;
    if (line)
        return LS_FAIL(r->err, r->errlen, LS_EFORMAT,
                       "%s:%lld: expected end of file after %lld entries, got \"%s\"", r->path,
                       r->lines.line_no, r->entries, MM_GOT(line, len, got));
    return 0;
}

int ls_mm_begin(ls_mm_reader *r, ls_io_src *src, int sparse, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->path = src->path;
    r->sparse = sparse;
    r->err = err;
    r->errlen = errlen;
    int st = ls_io_lines_init(&r->lines, src, err, errlen);
    if (st)
        return st;
    char *line = NULL;
    size_t len = 0;
    st = ls_io_lines_next(&r->lines, &line, &len, err, errlen);
    if (!st && !line)
        st = LS_FAIL(err, errlen, LS_EFORMAT,
                     "%s:1: expected banner \"%%%%MatrixMarket matrix ...\", got an empty file",
                     r->path);
    if (!st)
        st = mm_banner(r, line, len);
    if (!st)
        st = mm_size_line(r);
    if (st)
        ls_io_lines_free(&r->lines);
    return st;
}

void ls_mm_end(ls_mm_reader *r)
{
    ls_io_lines_free(&r->lines);
}
