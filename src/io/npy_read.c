/* NumPy .npy reader: versions 1.0, 2.0, 3.0; float64/float32 in either byte
 * order, C or Fortran order, 1-D (read as a column) or 2-D.
 *
 * Integer dtypes (i1..i8, u1..u8) are converted to double; values beyond
 * 2^53 in magnitude round, as they would in numpy's astype(float). Complex,
 * object, bool, string, structured and half/long-double dtypes are refused
 * by name with LS_EUNSUPPORTED, as are 0-D and 3-D or higher shapes.
 *
 * Every error names the file and the byte offset where the problem is. */
#include "io_internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* numpy itself refuses headers over 10000 bytes by default; allow more,
 * but not so much that a corrupt length makes us allocate gigabytes. */
#define NPY_MAX_HEADER (1 << 20)
#define NPY_CHUNK_BYTES (1 << 18)

typedef struct npy_header {
    /* parsed dict */
    int have_descr, have_order, have_shape;
    char kind;    /* 'f', 'i' or 'u' */
    int itemsize; /* bytes */
    int little;   /* the file's byte order */
    int fortran;
    int ndim;
    long long dims[3];
} npy_header;

typedef struct npy_parser {
    const char *text;
    size_t len, pos;
    long long base; /* file offset of text[0] */
    const char *path;
    char *err;
    size_t errlen;
} npy_parser;

static long long at(const npy_parser *p)
{
    return p->base + (long long)p->pos;
}

static void skip_ws(npy_parser *p)
{
    while (p->pos < p->len && (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' ||
                               p->text[p->pos] == '\n' || p->text[p->pos] == '\r'))
        p->pos++;
}

/* What is at the cursor, printable, for "got ..." in messages. */
static const char *got_here(const npy_parser *p, char *buf, size_t buflen)
{
    if (p->pos >= p->len)
        return "end of header";
    ls_io_snippet(p->text + p->pos, p->len - p->pos > 20 ? 20 : p->len - p->pos, buf, buflen);
    return buf;
}

static int expect_char(npy_parser *p, char c)
{
    char got[40];
    skip_ws(p);
    if (p->pos < p->len && p->text[p->pos] == c) {
        p->pos++;
        return 0;
    }
    return LS_FAIL(p->err, p->errlen, LS_EFORMAT, "%s: byte %lld: expected '%c' in the header, got \"%s\"",
                   p->path, at(p), c, got_here(p, got, sizeof got));
}

static int parse_string(npy_parser *p, const char **s, size_t *n)
{
    char got[40];
    skip_ws(p);
    char q = p->pos < p->len ? p->text[p->pos] : '\0';
    if (q != '\'' && q != '"')
        return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                       "%s: byte %lld: expected a quoted string in the header, got \"%s\"",
                       p->path, at(p), got_here(p, got, sizeof got));
    size_t start = ++p->pos;
    while (p->pos < p->len && p->text[p->pos] != q) {
        if (p->text[p->pos] == '\\' || p->text[p->pos] == '\n')
            return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                           "%s: byte %lld: expected a plain string (no escapes or newlines)",
                           p->path, at(p));
        p->pos++;
    }
    if (p->pos >= p->len)
        return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                       "%s: byte %lld: expected a closing quote, got end of header", p->path,
                       at(p));
    *s = p->text + start;
    *n = p->pos - start;
    p->pos++;
    return 0;
}

static int word_at(npy_parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos >= n && memcmp(p->text + p->pos, word, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

/* The descr string: optional byte order [<>=|], then kind and item size. */
static int parse_descr(npy_parser *p, npy_header *h)
{
    long long where = (skip_ws(p), at(p));
    const char *s = NULL;
    size_t n = 0;
    if (p->pos < p->len && p->text[p->pos] == '[')
        return LS_FAIL(p->err, p->errlen, LS_EUNSUPPORTED,
                       "%s: byte %lld: structured (record) dtypes are not supported; expected "
                       "'<f8', '<f4' or an integer dtype",
                       p->path, where);
    int st = parse_string(p, &s, &n);
    if (st)
        return st;
    char shown[40];
    ls_io_snippet(s, n, shown, sizeof shown);
    char order = '=';
    if (n > 0 && strchr("<>=|", s[0])) {
        order = s[0];
        s++;
        n--;
    }
    int size = 0, digits = 1;
    for (size_t i = 1; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || i > 3)
            digits = 0;
        else
            size = size * 10 + (s[i] - '0');
    }
    char kind = n > 0 ? s[0] : '\0';
    int ok = digits && n >= 2 &&
             ((kind == 'f' && (size == 4 || size == 8)) ||
              ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)));
    if (!ok) {
        const char *why = kind == 'c'   ? "complex dtypes are not supported"
                          : kind == 'O' ? "object dtypes (pickled Python objects) are not supported"
                          : kind == 'f' ? "only 4- and 8-byte floats are supported"
                          : (kind == 'b' || kind == '?') ? "boolean dtypes are not supported"
                                                         : "unsupported dtype";
        return LS_FAIL(p->err, p->errlen, LS_EUNSUPPORTED,
                       "%s: byte %lld: %s: expected '<f8', '>f8', '<f4', '>f4' or an integer "
                       "dtype, got '%s'",
                       p->path, where, why, shown);
    }
    h->kind = kind;
    h->itemsize = size;
    h->little = order == '<' || ((order == '=' || order == '|') && ls_io_host_is_little());
    return 0;
}

static int parse_bool(npy_parser *p, int *out)
{
    char got[40];
    skip_ws(p);
    if (word_at(p, "True"))
        *out = 1;
    else if (word_at(p, "False"))
        *out = 0;
    else
        return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                       "%s: byte %lld: expected True or False for fortran_order, got \"%s\"",
                       p->path, at(p), got_here(p, got, sizeof got));
    return 0;
}

/* A Python tuple of non-negative ints: (), (n,), (r, c), (r, c,), ... ;
 * Python 2 files may carry an 'L' suffix on each int. */
static int parse_shape(npy_parser *p, npy_header *h)
{
    char got[40];
    int st = expect_char(p, '(');
    if (st)
        return st;
    h->ndim = 0;
    for (;;) {
        skip_ws(p);
        if (p->pos < p->len && p->text[p->pos] == ')') {
            p->pos++;
            return 0;
        }
        if (p->pos >= p->len || p->text[p->pos] < '0' || p->text[p->pos] > '9')
            return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                           "%s: byte %lld: expected a dimension or ')' in shape, got \"%s\"",
                           p->path, at(p), got_here(p, got, sizeof got));
        long long v = 0;
        while (p->pos < p->len && p->text[p->pos] >= '0' && p->text[p->pos] <= '9') {
            int d = p->text[p->pos++] - '0';
            v = (v > (LLONG_MAX - d) / 10) ? LLONG_MAX : v * 10 + d;
        }
        if (p->pos < p->len && p->text[p->pos] == 'L')
            p->pos++;
        if (h->ndim < 3)
            h->dims[h->ndim] = v;
        h->ndim++;
        skip_ws(p);
        if (p->pos < p->len && p->text[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->text[p->pos] == ')')
            continue;
        return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                       "%s: byte %lld: expected ',' or ')' in shape, got \"%s\"", p->path, at(p),
                       got_here(p, got, sizeof got));
    }
}

/* The header is a Python dict literal with exactly the keys descr,
 * fortran_order and shape, in any order, with an optional trailing comma. */
static int parse_dict(npy_parser *p, npy_header *h)
{
    char got[40];
    int st = expect_char(p, '{');
    for (int first = 1; !st; first = 0) {
        skip_ws(p);
        if (p->pos < p->len && p->text[p->pos] == '}') {
            p->pos++;
            break;
        }
        if (!first && (st = expect_char(p, ',')))
            break;
        skip_ws(p);
        if (!first && p->pos < p->len && p->text[p->pos] == '}') {
            p->pos++;
            break;
        }
        long long key_at = at(p);
        const char *key = NULL;
        size_t kn = 0;
        if ((st = parse_string(p, &key, &kn)) || (st = expect_char(p, ':')))
            break;
        int *seen = NULL;
        if (kn == 5 && memcmp(key, "descr", 5) == 0)
            seen = &h->have_descr;
        else if (kn == 13 && memcmp(key, "fortran_order", 13) == 0)
            seen = &h->have_order;
        else if (kn == 5 && memcmp(key, "shape", 5) == 0)
            seen = &h->have_shape;
        if (!seen || *seen) {
            ls_io_snippet(key, kn, got, sizeof got);
            return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                           "%s: byte %lld: expected key 'descr', 'fortran_order' or 'shape' once "
                           "each, got %s'%s'",
                           p->path, key_at, seen ? "a repeated " : "", got);
        }
        *seen = 1;
        if (seen == &h->have_descr)
            st = parse_descr(p, h);
        else if (seen == &h->have_order)
            st = parse_bool(p, &h->fortran);
        else
            st = parse_shape(p, h);
    }
    if (st)
        return st;
    skip_ws(p);
    if (p->pos < p->len)
        return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                       "%s: byte %lld: expected only padding after the header dict, got \"%s\"",
                       p->path, at(p), got_here(p, got, sizeof got));
    if (!h->have_descr || !h->have_order || !h->have_shape)
        return LS_FAIL(p->err, p->errlen, LS_EFORMAT,
                       "%s: byte %lld: expected keys 'descr', 'fortran_order' and 'shape'; "
                       "missing '%s'",
                       p->path, p->base,
                       !h->have_descr ? "descr" : !h->have_order ? "fortran_order" : "shape");
    return 0;
}

/* One element of the file as a double. The bytes are assembled into an
 * integer by their significance, so no host byte-order test is needed. */
static double load_element(const unsigned char *src, const npy_header *h)
{
    uint64_t u = 0;
    for (int i = 0; i < h->itemsize; i++) {
        unsigned char byte = src[h->little ? i : h->itemsize - 1 - i];
        u |= (uint64_t)byte << (8 * i);
    }
    if (h->kind == 'f' && h->itemsize == 8) {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    if (h->kind == 'f') {
        uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, sizeof f);
        return (double)f;
    }
    if (h->kind == 'u')
        return (double)u;
    if (h->itemsize < 8 && (u >> (8 * h->itemsize - 1)) & 1)
        u |= UINT64_MAX << (8 * h->itemsize); /* sign-extend */
    int64_t v;
    memcpy(&v, &u, sizeof v);
    return (double)v;
}

/* Magic, version and header length; returns the header length. */
static int read_prefix(ls_io_src *src, size_t *header_len, long long *header_at, char *err,
                       size_t errlen)
{
    unsigned char pre[12];
    size_t got = 0;
    int st = ls_io_read_bytes(src, pre, 8, &got, err, errlen);
    if (st)
        return st;
    if (got < 6 || memcmp(pre, "\x93NUMPY", 6) != 0)
        return LS_FAIL(err, errlen, LS_EFORMAT,
                       "%s: byte 0: expected the .npy magic \"\\x93NUMPY\"", src->path);
    if (got < 8)
        return LS_FAIL(err, errlen, LS_EFORMAT,
                       "%s: byte %zu: expected a 2-byte version, got end of file", src->path, got);
    int major = pre[6], minor = pre[7];
    if (major < 1 || major > 3 || minor != 0)
        return LS_FAIL(err, errlen, LS_EUNSUPPORTED,
                       "%s: byte 6: expected .npy version 1.0, 2.0 or 3.0, got %d.%d", src->path,
                       major, minor);
    size_t len_bytes = major == 1 ? 2 : 4;
    if ((st = ls_io_read_bytes(src, pre + 8, len_bytes, &got, err, errlen)))
        return st;
    if (got < len_bytes)
        return LS_FAIL(err, errlen, LS_EFORMAT,
                       "%s: byte 8: expected a %zu-byte header length, got end of file",
                       src->path, len_bytes);
    size_t n = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (len_bytes == 4)
        n |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    *header_at = 8 + (long long)len_bytes;
    if (n > NPY_MAX_HEADER || (src->size >= 0 && (long long)n > src->size - *header_at))
        return LS_FAIL(err, errlen, LS_EFORMAT,
                       "%s: byte 8: expected a header length within the file (and at most %d "
                       "bytes), got %zu",
                       src->path, NPY_MAX_HEADER, n);
    *header_len = n;
    return 0;
}

static int read_header(ls_io_src *src, npy_header *h, char *err, size_t errlen)
{
    size_t len = 0;
    long long header_at = 0;
    int st = read_prefix(src, &len, &header_at, err, errlen);
    if (st)
        return st;
    char *text = ls_malloc(len + 1);
    if (!text)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for a %zu-byte header", src->path,
                       len);
    size_t got = 0;
    st = ls_io_read_bytes(src, text, len, &got, err, errlen);
    if (!st && got < len)
        st = LS_FAIL(err, errlen, LS_EFORMAT,
                     "%s: byte %lld: expected a %zu-byte header, got end of file", src->path,
                     header_at + (long long)got, len);
    if (!st) {
        npy_parser p = {text, len, 0, header_at, src->path, err, errlen};
        st = parse_dict(&p, h);
    }
    free(text);
    return st;
}

static int check_shape(ls_io_src *src, const npy_header *h, long long data_at, char *err,
                       size_t errlen)
{
    if (h->ndim == 0 || h->ndim > 2)
        return LS_FAIL(err, errlen, LS_EUNSUPPORTED,
                       "%s: byte %lld: expected a 1-D or 2-D array, got %d dimensions", src->path,
                       data_at, h->ndim);
    long long rows = h->dims[0], cols = h->ndim == 2 ? h->dims[1] : 1;
    if (rows <= 0 || cols <= 0 || rows > INT_MAX || cols > INT_MAX)
        return LS_FAIL(err, errlen, LS_ESIZE,
                       "%s: byte %lld: expected dimensions between 1 and %d, got %lld x %lld",
                       src->path, data_at, INT_MAX, rows, cols);
    long long elements = rows * cols, cap = ls_io_max_elements();
    if (elements > cap)
        return LS_FAIL(err, errlen, LS_ESIZE,
                       "%s: byte %lld: %lld x %lld = %lld elements exceeds the limit of %lld "
                       "(half the host memory, or LS_MAX_ELEMENTS)",
                       src->path, data_at, rows, cols, elements, cap);
    if (elements > LLONG_MAX / h->itemsize)
        return LS_FAIL(err, errlen, LS_ESIZE, "%s: byte %lld: %lld x %lld elements do not fit in memory",
                       src->path, data_at, rows, cols);
    if (src->size >= 0) {
        long long have = src->size - data_at;
        if (elements > have / h->itemsize)
            return LS_FAIL(err, errlen, LS_ESIZE,
                           "%s: byte %lld: expected %lld bytes of data (%lld x %lld elements of "
                           "%d bytes), but the file holds only %lld bytes after the header",
                           src->path, data_at, elements * h->itemsize, rows, cols, h->itemsize,
                           have);
        if (have > elements * h->itemsize)
            return LS_FAIL(err, errlen, LS_EFORMAT,
                           "%s: byte %lld: expected end of file after the data, got %lld extra "
                           "bytes",
                           src->path, data_at + elements * h->itemsize,
                           have - elements * h->itemsize);
    }
    return 0;
}

/* Stream the data through a chunk buffer, converting each element and
 * putting it where column-major order wants it. */
static int read_data(ls_io_src *src, const npy_header *h, long long data_at, int rows, int cols,
                     double *A, char *err, size_t errlen)
{
    unsigned char *chunk = ls_malloc(NPY_CHUNK_BYTES);
    if (!chunk)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for a read buffer", src->path);
    const size_t total = (size_t)rows * (size_t)cols, per_chunk = NPY_CHUNK_BYTES / h->itemsize;
    size_t done = 0, r = 0, c = 0; /* (r, c) of the next element in C order */
    int st = 0;
    while (!st && done < total) {
        size_t want = total - done < per_chunk ? total - done : per_chunk, got = 0;
        st = ls_io_read_bytes(src, chunk, want * h->itemsize, &got, err, errlen);
        if (st)
            break;
        if (got < want * h->itemsize) {
            st = LS_FAIL(err, errlen, LS_EFORMAT,
                         "%s: byte %lld: expected %zu elements of data, got end of file",
                         src->path, data_at + (long long)(done * h->itemsize + got), total);
            break;
        }
        for (size_t k = 0; k < want; k++) {
            double v = load_element(chunk + k * h->itemsize, h);
            if (!isfinite(v)) {
                st = LS_FAIL(err, errlen, LS_ENONFINITE,
                             "%s: byte %lld: expected a finite value, got %f", src->path,
                             data_at + (long long)((done + k) * h->itemsize), v);
                break;
            }
            if (h->fortran) {
                A[done + k] = v;
            } else {
                A[r + c * (size_t)rows] = v;
                if (++c == (size_t)cols) {
                    c = 0;
                    r++;
                }
            }
        }
        done += want;
    }
    free(chunk);
    return st;
}

static size_t c_to_column_major(size_t k, const void *ctx)
{
    const size_t *rc = ctx; /* rows, cols */
    return k / rc[1] + (k % rc[1]) * rc[0];
}

/* A stream (no size to check the shape against): npy_stream.c collects
 * the values as they come; C order is then transposed in place. */
static int read_stream(ls_io_src *src, const npy_header *h, long long data_at, int rows,
                       int cols, ls_matrix *m, char *err, size_t errlen)
{
    ls_npy_desc d = {h->kind, h->itemsize, h->little, h->fortran, h->ndim, {0, 0, 0}};
    double *A = NULL;
    size_t total = (size_t)rows * (size_t)cols, rc[2] = {(size_t)rows, (size_t)cols};
    int st = ls_npy_stream_values(src, &d, data_at, total, &A, err, errlen);
    if (st)
        return st;
    if (!h->fortran && rows > 1 && cols > 1 && ls_io_permute(A, total, c_to_column_major, rc)) {
        free(A);
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory to reorder %d x %d values",
                       src->path, rows, cols);
    }
    m->rows = rows;
    m->cols = cols;
    m->ld = rows;
    m->data = A;
    m->sparse_input = 0;
    m->nnz = (long long)rows * cols;
    return 0;
}

int ls_npy_read_src(ls_io_src *src, ls_matrix *m, char *err, size_t errlen)
{
    npy_header h;
    memset(&h, 0, sizeof h);
    int st = read_header(src, &h, err, errlen);
    if (st)
        return st;
    /* the caller may follow the file's dtype (the tool's --precision auto) */
    snprintf(src->dtype, sizeof src->dtype, "%c%d", h.kind, h.itemsize);
    long long data_at = src->offset;
    if ((st = check_shape(src, &h, data_at, err, errlen)))
        return st;
    int rows = (int)h.dims[0], cols = h.ndim == 2 ? (int)h.dims[1] : 1;
    if (src->size < 0)
        return read_stream(src, &h, data_at, rows, cols, m, err, errlen);
    size_t bytes = 0;
    if (ls_mul_size((size_t)rows * (size_t)cols, sizeof(double), &bytes))
        return LS_FAIL(err, errlen, LS_ESIZE, "%s: %d x %d does not fit in memory", src->path,
                       rows, cols);
    double *A = ls_malloc(bytes);
    if (!A)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for %d x %d doubles", src->path,
                       rows, cols);
    if ((st = read_data(src, &h, data_at, rows, cols, A, err, errlen))) {
        free(A);
        return st;
    }
    m->rows = rows;
    m->cols = cols;
    m->ld = rows;
    m->data = A;
    m->sparse_input = 0;
    m->nnz = (long long)rows * cols;
    return 0;
}

int ls_npy_read_desc(ls_io_src *src, ls_npy_desc *d, char *err, size_t errlen)
{
    npy_header h;
    memset(&h, 0, sizeof h);
    int st = read_header(src, &h, err, errlen);
    if (st)
        return st;
    snprintf(src->dtype, sizeof src->dtype, "%c%d", h.kind, h.itemsize);
    d->kind = h.kind, d->itemsize = h.itemsize, d->little = h.little, d->fortran = h.fortran;
    d->ndim = h.ndim;
    memcpy(d->dims, h.dims, sizeof d->dims);
    return 0;
}

double ls_npy_element(const unsigned char *p, const ls_npy_desc *d)
{
    npy_header h;
    memset(&h, 0, sizeof h);
    h.kind = d->kind, h.itemsize = d->itemsize, h.little = d->little;
    return load_element(p, &h);
}
