/* Writers: Matrix Market (array, or coordinate with the nonzeros) and .npy
 * 1.0 Fortran order, '<f8' or '<f4', to a file or an open stream. They
 * refuse non-finite values so that whatever they write, the readers read
 * back, bit for bit. A file is written through ls_outfile (outfile.c): a
 * failed write leaves the old file as it was. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/tool_api.h"
#include "core/util.h"
#include "io_internal.h"

/* Values are encoded into this buffer and written a chunk at a time. */
#define LS_IO_WRITE_CHUNK 8192

static int check_matrix(const char *name, const ls_matrix *m, int single, char *err,
                        size_t errlen)
{
    if (!m || !m->data)
        return LS_FAIL(err, errlen, LS_EINVAL, "%s: matrix write: no matrix data", name);
    if (m->rows <= 0 || m->cols <= 0 || m->ld < m->rows)
        return LS_FAIL(err, errlen, LS_EINVAL,
                       "%s: matrix write: expected rows, cols >= 1 and ld >= rows, got %d x %d, "
                       "ld %d",
                       name, m->rows, m->cols, m->ld);
    for (int j = 0; j < m->cols; j++)
        for (int i = 0; i < m->rows; i++) {
            double v = m->data[i + (size_t)j * m->ld];
            if (!isfinite(v))
                return LS_FAIL(err, errlen, LS_ENONFINITE,
                               "%s: matrix write: entry (%d, %d) is %f; refusing to write a "
                               "non-finite value",
                               name, i + 1, j + 1, v);
            if (single && fabs(v) > FLT_MAX)
                return LS_FAIL(err, errlen, LS_ENONFINITE,
                               "%s: matrix write: entry (%d, %d) = %g is beyond float32's range",
                               name, i + 1, j + 1, v);
        }
    return 0;
}

static long long count_nonzeros(const ls_matrix *m)
{
    long long nnz = 0;
    for (int j = 0; j < m->cols; ++j)
        for (int i = 0; i < m->rows; ++i)
            nnz += m->data[(size_t)j * (size_t)m->ld + (size_t)i] != 0.0;
    return nnz;
}

static void write_mm(FILE *f, const ls_matrix *m, const ls_io_write_opts *o)
{
    /* 17 significant digits round-trip every double through strtod, 9 every
     * float; a float is printed from its own value, not the double's. */
    const char *fmt = o->single ? "%.9g\n" : "%.17g\n";
    fprintf(f, "%%%%MatrixMarket matrix %s real general\n", o->sparse ? "coordinate" : "array");
    if (o->comment)
        fprintf(f, "%% %s\n", o->comment);
    if (o->sparse)
        fprintf(f, "%d %d %lld\n", m->rows, m->cols, count_nonzeros(m));
    else
        fprintf(f, "%d %d\n", m->rows, m->cols);
    for (int j = 0; j < m->cols && !ferror(f); j++)
        for (int i = 0; i < m->rows; i++) {
            double v = m->data[i + (size_t)j * m->ld];
            if (o->sparse && v == 0.0)
                continue;
            if (o->sparse)
                fprintf(f, "%d %d ", i + 1, j + 1);
            fprintf(f, fmt, o->single ? (double)(float)v : v);
        }
}

static void write_npy(FILE *f, const ls_matrix *m, int single)
{
    const int size = single ? 4 : 8;
    char header[128];
    int n = snprintf(header, sizeof header,
                     "{'descr': '<f%d', 'fortran_order': True, 'shape': (%d, %d), }", size,
                     m->rows, m->cols);
    /* As numpy does: pad with spaces and end with '\n' so that magic (6) +
     * version (2) + length (2) + header is a multiple of 64 bytes, which
     * keeps the data aligned for memory mapping. */
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    size_t header_len = padded - 10;
    memset(header + n, ' ', header_len - 1 - (size_t)n);
    header[header_len - 1] = '\n';
    unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                (unsigned char)(header_len & 0xff),
                                (unsigned char)(header_len >> 8)};
    fwrite(prefix, 1, sizeof prefix, f);
    fwrite(header, 1, header_len, f);

    /* Little-endian whatever the host: bytes are reversed on big-endian ones. */
    const int swap = !ls_io_host_is_little();
    unsigned char chunk[LS_IO_WRITE_CHUNK];
    size_t used = 0;
    for (int j = 0; j < m->cols && !ferror(f); j++)
        for (int i = 0; i < m->rows; i++) {
            double v = m->data[i + (size_t)j * m->ld];
            float x = (float)v;
            unsigned char b[8];
            memcpy(b, single ? (const void *)&x : (const void *)&v, (size_t)size);
            for (int k = 0; k < size; k++)
                chunk[used + (size_t)k] = b[swap ? size - 1 - k : k];
            used += (size_t)size;
            if (used == sizeof chunk) {
                fwrite(chunk, 1, used, f);
                used = 0;
            }
        }
    fwrite(chunk, 1, used, f);
}

int ls_io_write_to(FILE *stream, const char *name, const ls_matrix *m, const ls_io_write_opts *o,
                   char *err, size_t errlen)
{
    if (!name)
        return LS_FAIL(err, errlen, LS_EINVAL, "matrix write: path is NULL");
    ls_io_write_opts opts = {LS_IO_AUTO, 0, 0, NULL};
    if (o)
        opts = *o;
    if (opts.format == LS_IO_AUTO) {
        size_t n = strlen(name);
        opts.format = !stream && n >= 4 && strcasecmp(name + n - 4, ".npy") == 0 ? LS_IO_NPY
                                                                               : LS_IO_MM;
    }
    int st = check_matrix(name, m, opts.single, err, errlen);
    if (st)
        return st;
    ls_outfile *out = NULL;
    if (!stream && (st = ls_outfile_open(name, &out, err, errlen)) != 0)
        return st;
    FILE *f = stream ? stream : ls_outfile_stream(out);
    if (opts.format == LS_IO_NPY)
        write_npy(f, m, opts.single);
    else
        write_mm(f, m, &opts);
    if (out)
        return ls_outfile_commit(out, err, errlen); /* replaces the file only when all went well */
    int failed = ferror(f);
    int saved = errno;
    if (fflush(f) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed)
        st = LS_FAIL(err, errlen, LS_EIO, "%s: write failed: %s", name, strerror(saved));
    return st;
}

/* The public writers: files only, "written by" comment in Matrix Market. */
static int write_file(const char *path, const ls_matrix *m, ls_io_format format, char *err,
                      size_t errlen)
{
    char comment[64];
    snprintf(comment, sizeof comment, "written by linsolve %d.%d.%d", LS_VERSION_MAJOR,
             LS_VERSION_MINOR, LS_VERSION_PATCH);
    ls_io_write_opts o = {format, 0, 0, comment};
    return ls_io_write_to(NULL, path, m, &o, err, errlen);
}

int ls_mm_write(const char *path, const ls_matrix *m, char *err, size_t errlen)
{
    return write_file(path, m, LS_IO_MM, err, errlen);
}

int ls_npy_write(const char *path, const ls_matrix *m, char *err, size_t errlen)
{
    return write_file(path, m, LS_IO_NPY, err, errlen);
}

int ls_matrix_write(const char *path, const ls_matrix *m, char *err, size_t errlen)
{
    return write_file(path, m, LS_IO_AUTO, err, errlen);
}
