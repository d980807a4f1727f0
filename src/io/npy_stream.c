/* .npy data from a stream whose size is unknown (a pipe, a FIFO): the
 * header's shape cannot be checked against the file's size first, so it
 * must not size the allocation either. The elements are collected in file
 * order in a buffer that grows (doubling) only as they arrive, and put in
 * their final order in place afterwards, by following the cycles of the
 * permutation (one bit of bookkeeping per element). A header claiming
 * 30000 x 30000 over 16 bytes of data costs one small buffer, not 7 GB. */
#include "io_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define NPY_STREAM_CHUNK (1 << 18) /* bytes read at a time */
#define NPY_STREAM_START (1 << 16) /* elements the buffer starts with */

int ls_npy_stream_values(ls_io_src *src, const ls_npy_desc *d, long long data_at, size_t total,
                         double **out, char *err, size_t errlen)
{
    *out = NULL;
    unsigned char *chunk = ls_malloc(NPY_STREAM_CHUNK);
    if (!chunk)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for a read buffer", src->path);
    const size_t per = NPY_STREAM_CHUNK / (size_t)d->itemsize;
    double *A = NULL;
    size_t cap = 0, done = 0;
    int st = 0;
    while (!st && done < total) {
        size_t want = total - done < per ? total - done : per, got = 0;
        if (done + want > cap) {
            size_t grown = cap ? cap : NPY_STREAM_START;
            while (grown < done + want)
                grown = grown > SIZE_MAX / 4 ? SIZE_MAX / 2 : grown * 2;
            if (grown > total)
                grown = total;
            double *bigger = grown <= SIZE_MAX / sizeof *A ? ls_realloc(A, grown * sizeof *A)
                                                            : NULL;
            if (!bigger) {
                st = LS_FAIL(err, errlen, LS_ENOMEM, "%s: byte %lld: no memory for %zu values",
                             src->path, data_at + (long long)(done * (size_t)d->itemsize), grown);
                break;
            }
            A = bigger;
            cap = grown;
        }
        st = ls_io_read_bytes(src, chunk, want * (size_t)d->itemsize, &got, err, errlen);
        if (!st && got < want * (size_t)d->itemsize) {
            long long have = (long long)(done * (size_t)d->itemsize + got);
            st = LS_FAIL(err, errlen, LS_ESIZE,
                         "%s: byte %lld: expected %lld bytes of data (%zu elements of %d bytes), "
                         "but the stream holds only %lld bytes after the header",
                         src->path, data_at + have, (long long)(total * (size_t)d->itemsize),
                         total, d->itemsize, have);
        }
        for (size_t k = 0; !st && k < want; k++) {
            double v = ls_npy_element(chunk + k * (size_t)d->itemsize, d);
            if (!isfinite(v))
                st = LS_FAIL(err, errlen, LS_ENONFINITE,
                             "%s: byte %lld: expected a finite value, got %f", src->path,
                             data_at + (long long)((done + k) * (size_t)d->itemsize), v);
            else
                A[done + k] = v;
        }
        done += want;
    }
    if (!st) {
        size_t got = 0;
        st = ls_io_read_bytes(src, chunk, 1, &got, err, errlen);
        if (!st && got)
            st = LS_FAIL(err, errlen, LS_EFORMAT,
                         "%s: byte %lld: expected end of file after the data, got more bytes",
                         src->path, data_at + (long long)(total * (size_t)d->itemsize));
    }
    free(chunk);
    if (st) {
        free(A);
        return st;
    }
    *out = A;
    return 0;
}

int ls_io_permute(double *a, size_t n, size_t (*dest)(size_t k, const void *ctx),
                  const void *ctx)
{
    unsigned char *moved = ls_calloc(n / 8 + 1, 1);
    if (!moved)
        return LS_ENOMEM;
    for (size_t start = 0; start < n; start++) {
        if (moved[start / 8] >> (start % 8) & 1)
            continue;
        /* carry the value at start along its cycle until the cycle closes */
        double carried = a[start];
        size_t at = start;
        do {
            size_t to = dest(at, ctx);
            double displaced = a[to];
            a[to] = carried;
            carried = displaced;
            moved[to / 8] |= (unsigned char)(1u << (to % 8));
            at = to;
        } while (at != start);
    }
    free(moved);
    return 0;
}
