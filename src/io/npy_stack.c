/* .npy stacks for the batched solve (core/tool_stack.h): 2-D (batch, n)
 * or 3-D (batch, n, k) arrays. A C-order file keeps its order (each matrix
 * row-major, as the batched API takes it without a copy); a Fortran-order
 * one is rearranged to column-major matrices, the only layout the batched
 * API can address it in. A FIFO or a pipe (size unknown) is read as it
 * comes, memory growing with the data (npy_stream.c). */
#include "io_internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tool_api.h"
#include "core/tool_stack.h"
#include "core/util.h"

#define STACK_CHUNK_BYTES (1 << 18)

int ls_io_npy_ndim(const char *path, int *ndim)
{
    char err[256];
    ls_io_src src;
    ls_npy_desc d;
    memset(&d, 0, sizeof d);
    /* Sniffing a FIFO or a device would eat the data that the real read
     * needs (they are read once): only regular files are looked into. */
    struct stat st_path;
    if (path && stat(path, &st_path) == 0 && !S_ISREG(st_path.st_mode))
        return LS_EUNSUPPORTED;
    if (!path || !ndim || ls_io_open(&src, path, NULL, NULL, err, sizeof err) != 0)
        return LS_EIO;
    const unsigned char *magic = NULL;
    size_t got = 0;
    int st = ls_io_peek(&src, 6, &magic, &got, err, sizeof err);
    if (!st && (got < 6 || memcmp(magic, "\x93NUMPY", 6) != 0))
        st = LS_EFORMAT;
    if (!st)
        st = ls_npy_read_desc(&src, &d, err, sizeof err);
    ls_io_close(&src);
    if (!st)
        *ndim = d.ndim;
    return st;
}

/* Shape and size checks before any allocation. */
static int check_stack(const ls_io_src *src, const ls_npy_desc *d, long long at, char *err,
                       size_t errlen)
{
    if (d->ndim != 2 && d->ndim != 3)
        return LS_FAIL(err, errlen, LS_EUNSUPPORTED,
                       "%s: byte %lld: expected a stack of shape (batch, n) or (batch, n, k), "
                       "got %d dimensions",
                       src->path, at, d->ndim);
    long long b = d->dims[0], r = d->dims[1], c = d->ndim == 3 ? d->dims[2] : 1;
    if (b < 1 || r < 1 || c < 1 || b > INT_MAX || r > INT_MAX || c > INT_MAX)
        return LS_FAIL(err, errlen, LS_ESIZE,
                       "%s: byte %lld: expected dimensions between 1 and %d, got (%lld, %lld, "
                       "%lld)",
                       src->path, at, INT_MAX, b, r, c);
    long long cap = ls_io_max_elements();
    if (r > cap / c || r * c > cap / b)
        return LS_FAIL(err, errlen, LS_ESIZE,
                       "%s: byte %lld: %lld x %lld x %lld elements exceed the limit of %lld "
                       "(LS_MAX_ELEMENTS)",
                       src->path, at, b, r, c, cap);
    long long elements = b * r * c, have = src->size - at;
    if (src->size < 0)
        return 0; /* a stream: its data is checked as it comes (npy_stream.c) */
    if (elements > have / d->itemsize)
        return LS_FAIL(err, errlen, LS_ESIZE,
                       "%s: byte %lld: expected %lld bytes of data, the file holds %lld after "
                       "the header",
                       src->path, at, elements * d->itemsize, have);
    if (have > elements * d->itemsize)
        return LS_FAIL(err, errlen, LS_EFORMAT,
                       "%s: byte %lld: expected end of file after the data, got %lld extra bytes",
                       src->path, at + elements * d->itemsize, have - elements * d->itemsize);
    return 0;
}

/* Where the k-th element of the file goes. */
static size_t dest(const ls_io_stack *s, size_t k, int fortran)
{
    size_t B = (size_t)s->batch, R = (size_t)s->rows, C = (size_t)s->cols;
    if (!fortran)
        return k; /* C order kept */
    size_t b = k % B, i = (k / B) % R, j = k / (B * R);
    return b * R * C + i + j * R;
}

static size_t fortran_dest(size_t k, const void *ctx)
{
    return dest(ctx, k, 1);
}

static int read_values(ls_io_src *src, const ls_npy_desc *d, long long at, ls_io_stack *s,
                       char *err, size_t errlen)
{
    unsigned char *chunk = ls_malloc(STACK_CHUNK_BYTES);
    if (!chunk)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for a read buffer", src->path);
    size_t total = (size_t)s->batch * s->rows * s->cols, per = STACK_CHUNK_BYTES / d->itemsize;
    int st = 0;
    for (size_t done = 0; !st && done < total;) {
        size_t want = total - done < per ? total - done : per, got = 0;
        st = ls_io_read_bytes(src, chunk, want * d->itemsize, &got, err, errlen);
        if (!st && got < want * d->itemsize)
            st = LS_FAIL(err, errlen, LS_EFORMAT, "%s: byte %lld: expected %zu elements, got end "
                         "of file", src->path, at + (long long)(done * d->itemsize + got), total);
        for (size_t k = 0; !st && k < want; k++) {
            double v = ls_npy_element(chunk + k * d->itemsize, d);
            if (!isfinite(v))
                st = LS_FAIL(err, errlen, LS_ENONFINITE,
                             "%s: byte %lld: expected a finite value, got %f", src->path,
                             at + (long long)((done + k) * d->itemsize), v);
            else
                s->data[dest(s, done + k, d->fortran)] = v;
        }
        done += want;
    }
    free(chunk);
    return st;
}

int ls_io_read_stack(const char *path, ls_io_stack *s, char *err, size_t errlen)
{
    ls_io_src src;
    ls_npy_desc d;
    memset(s, 0, sizeof *s);
    memset(&d, 0, sizeof d);
    if (!path)
        return LS_FAIL(err, errlen, LS_EINVAL, "no file name");
    int st = ls_io_open(&src, path, NULL, NULL, err, errlen);
    if (st)
        return st;
    const unsigned char *magic = NULL;
    size_t got = 0;
    st = ls_io_peek(&src, 6, &magic, &got, err, errlen);
    if (!st && (got < 6 || memcmp(magic, "\x93NUMPY", 6) != 0))
        st = LS_FAIL(err, errlen, LS_EFORMAT, "%s: byte 0: expected the .npy magic \"\\x93NUMPY\"",
                     path);
    if (!st)
        st = ls_npy_read_desc(&src, &d, err, errlen);
    long long at = src.offset;
    if (!st)
        st = check_stack(&src, &d, at, err, errlen);
    if (!st && src.size < 0) {
        /* a FIFO or a pipe: memory grows with the data, then Fortran order
         * is rearranged in place */
        s->batch = (int)d.dims[0], s->rows = (int)d.dims[1];
        s->cols = d.ndim == 3 ? (int)d.dims[2] : 1;
        s->ndim = d.ndim;
        s->layout = d.fortran ? LS_COL_MAJOR : LS_ROW_MAJOR;
        snprintf(s->dtype, sizeof s->dtype, "%s", src.dtype);
        size_t total = (size_t)s->batch * s->rows * s->cols;
        st = ls_npy_stream_values(&src, &d, at, total, &s->data, err, errlen);
        if (!st && d.fortran && ls_io_permute(s->data, total, fortran_dest, s))
            st = LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory to reorder the stack", path);
        ls_io_close(&src);
        if (st)
            ls_io_stack_free(s);
        return st;
    }
    if (!st) {
        s->batch = (int)d.dims[0], s->rows = (int)d.dims[1];
        s->cols = d.ndim == 3 ? (int)d.dims[2] : 1;
        s->ndim = d.ndim;
        s->layout = d.fortran ? LS_COL_MAJOR : LS_ROW_MAJOR;
        snprintf(s->dtype, sizeof s->dtype, "%s", src.dtype);
        size_t bytes = 0;
        if (ls_mul_size((size_t)s->batch * s->rows * s->cols, sizeof(double), &bytes) ||
            !(s->data = ls_malloc(bytes)))
            st = LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for %d x %d x %d values", path,
                         s->batch, s->rows, s->cols);
    }
    if (!st)
        st = read_values(&src, &d, at, s, err, errlen);
    ls_io_close(&src);
    if (st)
        ls_io_stack_free(s);
    return st;
}

void ls_io_stack_free(ls_io_stack *s)
{
    if (!s)
        return;
    free(s->data);
    memset(s, 0, sizeof *s);
}

/* Little-endian bytes of v as float or double. */
static void put_le(unsigned char *out, double v, int single)
{
    uint64_t u = 0;
    int n = single ? 4 : 8;
    if (single) {
        float f = (float)v;
        uint32_t w;
        memcpy(&w, &f, sizeof w);
        u = w;
    } else {
        memcpy(&u, &v, sizeof u);
    }
    for (int i = 0; i < n; i++)
        out[i] = (unsigned char)(u >> (8 * i));
}

int ls_io_write_stack(const char *path, const ls_io_stack *s, int single, char *err,
                      size_t errlen)
{
    if (!path || !s || !s->data || s->batch < 1 || s->rows < 1 || s->cols < 1)
        return LS_FAIL(err, errlen, LS_EINVAL, "write stack: nothing to write");
    char dict[160];
    int len = s->ndim == 2
                  ? snprintf(dict, sizeof dict,
                             "{'descr': '<%s', 'fortran_order': False, 'shape': (%d, %d), }",
                             single ? "f4" : "f8", s->batch, s->rows)
                  : snprintf(dict, sizeof dict,
                             "{'descr': '<%s', 'fortran_order': False, 'shape': (%d, %d, %d), }",
                             single ? "f4" : "f8", s->batch, s->rows, s->cols);
    /* version 1.0: magic, version, 2-byte length, dict padded with spaces
     * and a newline so that the data starts at a multiple of 64 */
    size_t head = 10 + (size_t)len + 1, pad = (64 - head % 64) % 64;
    size_t hlen = (size_t)len + pad + 1;
    ls_outfile *out = NULL;
    int st = ls_outfile_open(path, &out, err, errlen);
    if (st)
        return st;
    FILE *f = ls_outfile_stream(out);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(dict, 1, (size_t)len, f) == (size_t)len;
    for (size_t i = 0; ok && i < pad; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF;
    size_t R = (size_t)s->rows, C = (size_t)s->cols, es = single ? 4 : 8;
    unsigned char buf[8];
    for (size_t b = 0; ok && b < (size_t)s->batch; b++)
        for (size_t i = 0; ok && i < R; i++)
            for (size_t j = 0; ok && j < C; j++) {
                size_t k = b * R * C + (s->layout == LS_ROW_MAJOR ? i * C + j : i + j * R);
                put_le(buf, s->data[k], single);
                ok = fwrite(buf, 1, es, f) == es;
            }
    /* a failed fwrite stops the loop; commit names the error and keeps the old file */
    return ls_outfile_commit(out, err, errlen);
}
