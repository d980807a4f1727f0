/* Packing copies: one matrix from any strided float/double storage into
 * the compact storage the library takes, converting the element type and,
 * when asked, stopping at the first NaN or Inf. Three speeds: a straight
 * copy when source and destination run the same way (memcpy per column),
 * 32 x 32 tiles when the copy transposes (a C-order matrix into
 * column-major storage: both sides stay in cache), element by element
 * otherwise (conversions, odd strides). */
#include "lsx.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define LSX_TILE 32

static int aligned(const char *p, Py_ssize_t s, int es)
{
    return (uintptr_t)p % (uintptr_t)es == 0 && s % es == 0;
}

/* Columns are contiguous on both sides (row stride = element size). */
static int copy_columns(const lsx_pack_src *s, char *dst, Py_ssize_t dcs, int check, int *bi,
                        int *bj)
{
    size_t bytes = (size_t)s->rows * (size_t)s->esize;
    for (int j = 0; j < s->cols; j++) {
        const char *col = s->base + j * s->cs;
        if (check) {
            Py_ssize_t at = lsx_scan(col, s->fmt, s->rows);
            if (at >= 0) {
                *bi = (int)at;
                *bj = j;
                return 1;
            }
        }
        if (dst)
            memcpy(dst + j * dcs, col, bytes);
    }
    return 0;
}

/* Rows are contiguous in the source and columns in the destination (or the
 * other way round): tiles keep both the reads and the writes in cache. */
#define LSX_TILED(T)                                                          \
    for (int j0 = 0; j0 < s->cols; j0 += LSX_TILE)                            \
        for (int i0 = 0; i0 < s->rows; i0 += LSX_TILE) {                      \
            int i1 = i0 + LSX_TILE < s->rows ? i0 + LSX_TILE : s->rows;       \
            int j1 = j0 + LSX_TILE < s->cols ? j0 + LSX_TILE : s->cols;       \
            for (int i = i0; i < i1; i++) {                                   \
                const T *row = (const T *)(s->base + i * s->rs);              \
                for (int j = j0; j < j1; j++) {                               \
                    T v = row[j];                                             \
                    if (check && !isfinite(v)) {                              \
                        *bi = i;                                              \
                        *bj = j;                                              \
                        return 1;                                             \
                    }                                                         \
                    ((T *)(dst + j * dcs))[i] = v;                            \
                }                                                             \
            }                                                                 \
        }                                                                     \
    return 0

/* rows contiguous in the source (cs = element size), columns in dst */
static int copy_tiled(const lsx_pack_src *s, char *dst, Py_ssize_t dcs, int check, int *bi, int *bj)
{
    if (s->fmt == 'd') {
        LSX_TILED(double);
    } else {
        LSX_TILED(float);
    }
}

int lsx_pack(const lsx_pack_src *s, char *dst, char dfmt, Py_ssize_t drs, Py_ssize_t dcs,
             int check, int *bi, int *bj)
{
    if (s->rows <= 0 || s->cols <= 0)
        return 0;
    int same = s->fmt == dfmt;
    int es = s->esize;
    if (same && s->rs == es && (!dst || drs == es) && aligned(s->base, s->cs, es))
        return copy_columns(s, dst, dcs, check, bi, bj);
    if (same && dst && s->cs == es && drs == es && aligned(s->base, s->rs, es) &&
        aligned(dst, dcs, es)) {
        /* the transposing copy: rows contiguous in, columns contiguous out */
        return copy_tiled(s, dst, dcs, check, bi, bj);
    }
    if (same && dst && s->cs == es && dcs == es && aligned(s->base, s->rs, es)) {
        /* row-major to row-major: rows as the contiguous runs */
        lsx_pack_src t = {s->base, s->fmt, es, s->cols, s->rows, s->cs, s->rs};
        return copy_columns(&t, dst, drs, check, bj, bi);
    }
    return lsx_copy(s->rows, s->cols, s->base, s->fmt, s->rs, s->cs, dst, dfmt, drs, dcs, check,
                    bi, bj);
}
