/* Matrix Market output for `linsolve gen`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mm_writer.h"

static long long count_nonzeros(const ls_matrix *m)
{
    long long nnz = 0;
    for (int j = 0; j < m->cols; ++j)
        for (int i = 0; i < m->rows; ++i)
            nnz += m->data[(size_t)j * (size_t)m->ld + (size_t)i] != 0.0;
    return nnz;
}

static void write_body(FILE *f, const ls_matrix *m, int sparse, const char *comment)
{
    fprintf(f, "%%%%MatrixMarket matrix %s real general\n", sparse ? "coordinate" : "array");
    if (comment)
        fprintf(f, "%% %s\n", comment);
    if (sparse) {
        fprintf(f, "%d %d %lld\n", m->rows, m->cols, count_nonzeros(m));
        for (int j = 0; j < m->cols; ++j) {
            for (int i = 0; i < m->rows; ++i) {
                double v = m->data[(size_t)j * (size_t)m->ld + (size_t)i];
                if (v != 0.0)
                    fprintf(f, "%d %d %.17g\n", i + 1, j + 1, v);
            }
        }
    } else {
        fprintf(f, "%d %d\n", m->rows, m->cols);
        for (int j = 0; j < m->cols; ++j)
            for (int i = 0; i < m->rows; ++i)
                fprintf(f, "%.17g\n", m->data[(size_t)j * (size_t)m->ld + (size_t)i]);
    }
}

int ls_cli_mm_write(const char *path, const ls_matrix *m, int sparse, const char *comment,
                    char *err, size_t errlen)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
        return LS_EIO;
    }
    write_body(f, m, sparse, comment);
    int bad = ferror(f);
    if (path)
        bad |= fclose(f) != 0;
    else
        bad |= fflush(f) != 0;
    if (bad) {
        snprintf(err, errlen, "%s: write failed: %s", path ? path : "(stdout)", strerror(errno));
        return LS_EIO;
    }
    return 0;
}
