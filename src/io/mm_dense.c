/* Dense matrices from Matrix Market files, with memory that follows the
 * data that actually arrived, not the size line.
 *
 * A size line is a promise: "20000 20000 1" costs 66 bytes to write and
 * would cost 3.2 GB to believe. So:
 * - array files: the values are collected in a buffer that grows with them
 *   (a regular file, whose size was checked against the header, gets its
 *   buffer at once); symmetric and skew-symmetric storage holds the packed
 *   lower triangle, unpacked in place once it is complete;
 * - coordinate files: the entries are kept as (row, col, value, line)
 *   until they fill an eighth of the matrix, then the dense matrix is
 *   allocated and takes them and every later entry directly. So a sparse
 *   file costs memory in proportion to its entries until its last entry
 *   has been read and checked, and the triplets never cost more than 3
 *   bytes per matrix element beside the dense matrix.
 * With src->for_solve, a square coordinate file whose entries leave a row
 * or a column empty is refused as singular before the dense matrix exists. */
#include "mm_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Values of a stream are collected in a buffer starting at this many. */
#define MM_GROW_START (1 << 16)

typedef struct mm_triplet {
    int i, j; /* 1-based, checked against the size line */
    double v;
    long long line; /* for the message when a duplicate sum overflows */
} mm_triplet;

static int alloc_dense(ls_mm_reader *r, double **A, char *err, size_t errlen)
{
    size_t bytes = 0;
    if (ls_mul_size((size_t)r->rows * (size_t)r->cols, sizeof(double), &bytes))
        return LS_FAIL(err, errlen, LS_ESIZE, "%s: %lld x %lld does not fit in memory", r->path,
                       r->rows, r->cols);
    *A = ls_calloc((size_t)r->rows * (size_t)r->cols, sizeof(double));
    if (!*A)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for %lld x %lld doubles", r->path,
                       r->rows, r->cols);
    return 0;
}

/* Grow a buffer of n elements of size each to hold at least need, doubling
 * up to most; returns 0 or LS_ENOMEM. */
static int grow(void **buf, size_t *cap, size_t need, size_t most, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t want = *cap ? *cap : MM_GROW_START;
    while (want < need)
        want = want > SIZE_MAX / 2 ? SIZE_MAX : want * 2;
    if (want > most)
        want = most;
    size_t bytes = 0;
    if (want < need || ls_mul_size(want, size, &bytes))
        return LS_ENOMEM;
    void *bigger = ls_realloc(*buf, bytes);
    if (!bigger)
        return LS_ENOMEM;
    *buf = bigger;
    *cap = want;
    return 0;
}

/* Duplicate entries are summed, as assembly-style files (and SciPy,
 * MATLAB's sparse()) intend. Symmetric storage mirrors every off-diagonal
 * entry, whichever triangle it was written in. */
static int add_entry(ls_mm_reader *r, double *A, const mm_triplet *t)
{
    double *a = &A[(size_t)(t->i - 1) + (size_t)(t->j - 1) * (size_t)r->rows];
    *a += t->v;
    int finite = isfinite(*a);
    if (r->symmetry != LS_MM_GENERAL && t->i != t->j) {
        double *b = &A[(size_t)(t->j - 1) + (size_t)(t->i - 1) * (size_t)r->rows];
        *b += r->symmetry == LS_MM_SKEW ? -t->v : t->v;
        finite = finite && isfinite(*b);
    }
    if (!finite)
        return LS_FAIL(r->err, r->errlen, LS_ENONFINITE,
                       "%s:%lld: expected finite sums of duplicate entries, got overflow at "
                       "(%d, %d)",
                       r->path, t->line, t->i, t->j);
    return 0;
}

/* A square matrix with an empty row or column is singular whatever its
 * values (structurally singular): say so from the entries alone. Returns
 * 0, or the 1-based index of the first empty column (else of the first
 * empty row), the message in err saying which. */
static int structurally_singular(ls_mm_reader *r, const mm_triplet *t, size_t nt)
{
    if (r->rows != r->cols)
        return 0; /* not square: the solver says so in its own words */
    size_t n = (size_t)r->rows;
    unsigned char *seen = ls_calloc(2 * n, 1); /* rows, then columns */
    if (!seen)
        return 0; /* the check is an early answer, not a requirement */
    for (size_t k = 0; k < nt; k++) {
        seen[t[k].i - 1] = seen[n + (size_t)t[k].j - 1] = 1;
        if (r->symmetry != LS_MM_GENERAL)
            seen[t[k].j - 1] = seen[n + (size_t)t[k].i - 1] = 1;
    }
    int found = 0;
    for (size_t c = 0; c < n && !found; c++)
        if (!seen[n + c])
            found = LS_FAIL(r->err, r->errlen, (int)c + 1,
                            "%s: the matrix is singular: column %zu holds no entry (%lld x %lld "
                            "with %zu stored entries)",
                            r->path, c + 1, r->rows, r->cols, nt);
    for (size_t i = 0; i < n && !found; i++)
        if (!seen[i])
            found = LS_FAIL(r->err, r->errlen, (int)i + 1,
                            "%s: the matrix is singular: row %zu holds no entry (%lld x %lld "
                            "with %zu stored entries)",
                            r->path, i + 1, r->rows, r->cols, nt);
    free(seen);
    return found;
}

static int coordinate_entries(ls_mm_reader *r, int for_solve, double **out)
{
    mm_triplet *t = NULL;
    size_t nt = 0, cap = 0;
    double *A = NULL;
    long long cells = r->rows * r->cols;
    long long switch_at = cells / 8 > 0 ? cells / 8 : 1;
    int st = 0;
    for (long long k = 0; !st && k < r->entries; k++) {
        long long i = 0, j = 0;
        mm_triplet e = {0, 0, 0.0, 0};
        if ((st = ls_mm_coord_entry(r, k, &i, &j, &e.v)))
            break;
        e.i = (int)i, e.j = (int)j, e.line = r->lines.line_no;
        if (A) {
            st = add_entry(r, A, &e);
            continue;
        }
        if (grow((void **)&t, &cap, nt + 1, (size_t)switch_at, sizeof *t)) {
            st = LS_FAIL(r->err, r->errlen, LS_ENOMEM, "%s:%lld: no memory for the entries",
                         r->path, e.line);
            break;
        }
        t[nt++] = e;
        if ((long long)nt >= switch_at && k + 1 < r->entries) {
            /* dense enough: the matrix is cheaper than more triplets */
            st = alloc_dense(r, &A, r->err, r->errlen);
            for (size_t q = 0; !st && q < nt; q++)
                st = add_entry(r, A, &t[q]);
            free(t);
            t = NULL;
            nt = cap = 0;
        }
    }
    if (!st)
        st = ls_mm_expect_end(r);
    if (!st && !A && for_solve)
        st = structurally_singular(r, t, nt);
    if (!st && !A)
        st = alloc_dense(r, &A, r->err, r->errlen);
    for (size_t q = 0; !st && q < nt; q++)
        st = add_entry(r, A, &t[q]);
    free(t);
    if (st) {
        free(A);
        return st;
    }
    *out = A;
    return 0;
}

/* The packed lower triangle (column by column; without the diagonal for
 * skew-symmetric storage) spread over the n x n matrix it fills, in place:
 * each value moves to an index at least its own, so walking from the last
 * one back never overwrites a value not yet moved. Then the upper triangle
 * is mirrored from the lower one. */
static void unpack_triangle(double *A, size_t n, int skew)
{
    size_t packed = skew ? n * (n - 1) / 2 : n * (n + 1) / 2;
    size_t src = packed;
    for (size_t j = n; j-- > 0;) {
        size_t first = skew ? j + 1 : j;
        for (size_t i = n; i-- > first;)
            A[i + j * n] = A[--src];
    }
    for (size_t j = 0; j < n; j++) {
        if (skew)
            A[j + j * n] = 0.0;
        for (size_t i = j + 1; i < n; i++)
            A[j + i * n] = skew ? -A[i + j * n] : A[i + j * n];
    }
}

static int array_entries(ls_mm_reader *r, double **out)
{
    size_t total = (size_t)r->entries, cells = (size_t)(r->rows * r->cols), cap = 0;
    double *A = NULL;
    int st = 0;
    /* a file's size has vouched for its entries already: one allocation */
    if (r->lines.src->size >= 0 && grow((void **)&A, &cap, cells, cells, sizeof *A))
        st = LS_FAIL(r->err, r->errlen, LS_ENOMEM, "%s: no memory for %lld x %lld doubles",
                     r->path, r->rows, r->cols);
    for (size_t k = 0; !st && k < total; k++) {
        double v = 0.0;
        if ((st = ls_mm_array_value(r, (long long)k, &v)))
            break;
        if (grow((void **)&A, &cap, k + 1, total, sizeof *A)) {
            st = LS_FAIL(r->err, r->errlen, LS_ENOMEM, "%s:%lld: no memory for the values",
                         r->path, r->lines.line_no);
            break;
        }
        A[k] = v;
    }
    if (!st)
        st = ls_mm_expect_end(r);
    if (!st && cap < cells && grow((void **)&A, &cap, cells, cells, sizeof *A))
        st = LS_FAIL(r->err, r->errlen, LS_ENOMEM, "%s: no memory for %lld x %lld doubles",
                     r->path, r->rows, r->cols);
    if (!st && r->symmetry != LS_MM_GENERAL)
        unpack_triangle(A, (size_t)r->rows, r->symmetry == LS_MM_SKEW);
    if (st) {
        free(A);
        return st;
    }
    *out = A;
    return 0;
}

int ls_mm_read_src(ls_io_src *src, ls_matrix *m, char *err, size_t errlen)
{
    ls_mm_reader r;
    int st = ls_mm_begin(&r, src, 0, err, errlen);
    if (st)
        return st;
    double *A = NULL;
    st = r.coordinate ? coordinate_entries(&r, src->for_solve, &A) : array_entries(&r, &A);
    ls_mm_end(&r);
    if (st)
        return st;
    m->rows = (int)r.rows;
    m->cols = (int)r.cols;
    m->ld = (int)r.rows;
    m->data = A;
    m->sparse_input = r.coordinate;
    m->nnz = r.entries;
    return 0;
}
