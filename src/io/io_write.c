/* Writers: Matrix Market "array real general" and .npy 1.0 '<f8' Fortran
 * order. Both refuse non-finite values so that whatever they write, the
 * readers read back, bit for bit. A failed write removes the partial file. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "io_internal.h"

static int check_matrix(const char *path, const ls_matrix *m, char *err, size_t errlen)
{
    if (!path)
        return LS_FAIL(err, errlen, LS_EINVAL, "matrix write: path is NULL");
    if (!m || !m->data)
        return LS_FAIL(err, errlen, LS_EINVAL, "%s: matrix write: no matrix data", path);
    if (m->rows <= 0 || m->cols <= 0 || m->ld < m->rows)
        return LS_FAIL(err, errlen, LS_EINVAL,
                       "%s: matrix write: expected rows, cols >= 1 and ld >= rows, got %d x %d, "
                       "ld %d",
                       path, m->rows, m->cols, m->ld);
    for (int j = 0; j < m->cols; j++)
        for (int i = 0; i < m->rows; i++)
            if (!isfinite(m->data[i + (size_t)j * m->ld]))
                return LS_FAIL(err, errlen, LS_ENONFINITE,
                               "%s: matrix write: entry (%d, %d) is %f; refusing to write a "
                               "non-finite value",
                               path, i + 1, j + 1, m->data[i + (size_t)j * m->ld]);
    return 0;
}

/* Close f and, when anything went wrong, remove the half-written file. */
static int finish(FILE *f, const char *path, int st, char *err, size_t errlen)
{
    int write_failed = ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && !st && !write_failed) {
        write_failed = 1;
        saved = errno;
    }
    if (!st && write_failed)
        st = LS_FAIL(err, errlen, LS_EIO, "%s: write failed: %s", path, strerror(saved));
    if (st)
        remove(path);
    return st;
}

int ls_mm_write(const char *path, const ls_matrix *m, char *err, size_t errlen)
{
    int st = check_matrix(path, m, err, errlen);
    if (st)
        return st;
    FILE *f = fopen(path, "wb");
    if (!f)
        return LS_FAIL(err, errlen, LS_EIO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%% written by linsolve %d.%d.%d\n",
            LS_VERSION_MAJOR, LS_VERSION_MINOR, LS_VERSION_PATCH);
    fprintf(f, "%d %d\n", m->rows, m->cols);
    /* %.17g: 17 significant digits round-trip every double through strtod. */
    for (int j = 0; j < m->cols && !ferror(f); j++)
        for (int i = 0; i < m->rows; i++)
            fprintf(f, "%.17g\n", m->data[i + (size_t)j * m->ld]);
    return finish(f, path, 0, err, errlen);
}

int ls_npy_write(const char *path, const ls_matrix *m, char *err, size_t errlen)
{
    int st = check_matrix(path, m, err, errlen);
    if (st)
        return st;
    char header[128];
    int n = snprintf(header, sizeof header,
                     "{'descr': '<f8', 'fortran_order': True, 'shape': (%d, %d), }", m->rows,
                     m->cols);
    /* As numpy does: pad with spaces and end with '\n' so that magic (6) +
     * version (2) + length (2) + header is a multiple of 64 bytes, which
     * keeps the data aligned for memory mapping. */
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    size_t header_len = padded - 10;
    memset(header + n, ' ', header_len - 1 - (size_t)n);
    header[header_len - 1] = '\n';

    FILE *f = fopen(path, "wb");
    if (!f)
        return LS_FAIL(err, errlen, LS_EIO, "%s: cannot create: %s", path, strerror(errno));
    unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                (unsigned char)(header_len & 0xff),
                                (unsigned char)(header_len >> 8)};
    fwrite(prefix, 1, sizeof prefix, f);
    fwrite(header, 1, header_len, f);
    const int swap = !ls_io_host_is_little();
    for (int j = 0; j < m->cols && !ferror(f); j++) {
        const double *col = m->data + (size_t)j * m->ld;
        if (!swap) {
            fwrite(col, sizeof(double), (size_t)m->rows, f);
            continue;
        }
        for (int i = 0; i < m->rows; i++) {
            unsigned char b[8], le[8];
            memcpy(b, &col[i], 8);
            for (int k = 0; k < 8; k++)
                le[k] = b[7 - k];
            fwrite(le, 1, 8, f);
        }
    }
    return finish(f, path, 0, err, errlen);
}

int ls_matrix_write(const char *path, const ls_matrix *m, char *err, size_t errlen)
{
    if (!path)
        return LS_FAIL(err, errlen, LS_EINVAL, "matrix write: path is NULL");
    size_t n = strlen(path);
    if (n >= 4 && strcasecmp(path + n - 4, ".npy") == 0)
        return ls_npy_write(path, m, err, errlen);
    return ls_mm_write(path, m, err, errlen);
}
