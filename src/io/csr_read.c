/* Matrix Market coordinate file -> CSR, never forming the dense matrix.
 *
 * One pass over the file with the dense reader's parser (mm_internal.h), so
 * both readers accept and refuse the same files with the same messages.
 * The entries are kept as triplets while counting each row's entries (after
 * symmetric expansion), then scattered into CSR in file order, then each
 * row is put in column order by a stable sort and its duplicates summed in
 * file order: the same additions, in the same order, as the dense reader's,
 * so both give the same values.
 *
 * Memory: 24 bytes per file entry for the triplets plus the CSR itself
 * (16 bytes per stored entry, 8 per row). A header is checked before
 * anything is allocated: its entries against the file's size (mm_read.c)
 * and this peak against 16 bytes per element of ls_io_max_elements(), the
 * memory the dense reader may take (half the host memory by default). The
 * triplets grow with the entries that arrive, and the rows are allocated
 * only after the last entry, so a size line alone (a FIFO's, or one that
 * claims 10^8 rows over one entry) costs nothing. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tool_api.h"
#include "core/util.h"
#include "mm_internal.h"

typedef struct csr_triplet {
    int64_t i, j; /* 0-based row, column */
    double v;
} csr_triplet;

typedef struct csr_build {
    csr_triplet *t; /* grows with the entries read, never sized by the header */
    size_t nt, tcap;
    int64_t *row_ptr, *col_idx;
    double *val;
    int64_t *sort_c; /* merge-sort scratch, the longest row's length */
    double *sort_v;
} csr_build;

static void build_free(csr_build *b)
{
    free(b->t);
    free(b->row_ptr);
    free(b->col_idx);
    free(b->val);
    free(b->sort_c);
    free(b->sort_v);
    memset(b, 0, sizeof *b);
}

/* malloc of count elements of size bytes, at least one element so that an
 * empty matrix still has arrays; NULL on overflow or no memory. */
static void *alloc_n(long long count, size_t size)
{
    size_t bytes = 0;
    if (count < 0 || ls_mul_size(count > 0 ? (size_t)count : 1, size, &bytes))
        return NULL;
    return ls_malloc(bytes);
}

/* The reader's peak memory for what the header claims, refused before any
 * allocation when it passes the cap. */
static int check_budget(const ls_mm_reader *r, char *err, size_t errlen)
{
    double entries = (double)r->entries;
    double stored = r->symmetry == LS_MM_GENERAL ? entries : 2.0 * entries;
    double bytes = 24.0 * entries + 16.0 * stored + 8.0 * ((double)r->rows + 1.0);
    double cap = 16.0 * (double)ls_io_max_elements();
    if (bytes > cap)
        return LS_FAIL(err, errlen, LS_ESIZE,
                       "%s:%lld: %lld x %lld with %lld entries needs about %.3g bytes to read "
                       "into CSR, over the limit of %.3g (16 bytes per element of "
                       "LS_MAX_ELEMENTS, or half the host memory)",
                       r->path, r->lines.line_no, r->rows, r->cols, r->entries, bytes, cap);
    return 0;
}

/* Stable merge sort of one row's (column, value) pairs by column: stable so
 * that duplicates are later summed in file order. */
static void sort_row(int64_t *c, double *v, int64_t len, int64_t *tc, double *tv)
{
    for (int64_t width = 1; width < len; width *= 2) {
        for (int64_t lo = 0; lo < len; lo += 2 * width) {
            int64_t mid = lo + width < len ? lo + width : len;
            int64_t hi = lo + 2 * width < len ? lo + 2 * width : len;
            int64_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) {
                if (c[b] < c[a]) {
                    tc[o] = c[b];
                    tv[o++] = v[b++];
                } else {
                    tc[o] = c[a];
                    tv[o++] = v[a++];
                }
            }
            while (a < mid) {
                tc[o] = c[a];
                tv[o++] = v[a++];
            }
            while (b < hi) {
                tc[o] = c[b];
                tv[o++] = v[b++];
            }
        }
        memcpy(c, tc, sizeof *c * (size_t)len);
        memcpy(v, tv, sizeof *v * (size_t)len);
    }
}

/* Room for one more triplet: doubling from 64 Ki, at most the header's
 * count, so memory follows the entries that arrived. */
static int room_for_one(const ls_mm_reader *r, csr_build *b)
{
    if (b->nt < b->tcap)
        return 0;
    size_t most = (size_t)r->entries, want = b->tcap ? b->tcap * 2 : (size_t)1 << 16;
    if (want > most)
        want = most;
    size_t bytes = 0;
    if (want <= b->tcap || ls_mul_size(want, sizeof *b->t, &bytes))
        return LS_ENOMEM;
    csr_triplet *bigger = ls_realloc(b->t, bytes);
    if (!bigger)
        return LS_ENOMEM;
    b->t = bigger;
    b->tcap = want;
    return 0;
}

static int read_triplets(ls_mm_reader *r, csr_build *b)
{
    for (long long k = 0; k < r->entries; k++) {
        long long i = 0, j = 0;
        double v = 0.0;
        int st = ls_mm_coord_entry(r, k, &i, &j, &v);
        if (st)
            return st;
        if (room_for_one(r, b))
            return LS_FAIL(r->err, r->errlen, LS_ENOMEM, "%s:%lld: no memory for the entries",
                           r->path, r->lines.line_no);
        b->t[b->nt].i = i - 1;
        b->t[b->nt].j = j - 1;
        b->t[b->nt++].v = v;
    }
    return ls_mm_expect_end(r);
}

/* Row counts (row_ptr[i+1] counts row i, mirrored entries included). */
static void count_rows(const ls_mm_reader *r, csr_build *b)
{
    const int mirror = r->symmetry != LS_MM_GENERAL;
    for (size_t k = 0; k < b->nt; k++) {
        b->row_ptr[b->t[k].i + 1]++;
        if (mirror && b->t[k].i != b->t[k].j)
            b->row_ptr[b->t[k].j + 1]++;
    }
}

/* A square matrix with an empty row or column is singular whatever its
 * values: fewer stored entries than rows leave one empty at once; else a
 * bit per row and column finds it. Returns 0 or the 1-based index of the
 * first empty column (else row), err saying which. */
static int structurally_singular(const ls_mm_reader *r, const csr_build *b)
{
    if (r->rows != r->cols)
        return 0;
    const int mirror = r->symmetry != LS_MM_GENERAL;
    size_t n = (size_t)r->rows;
    unsigned char *seen = ls_calloc(n / 4 + 2, 1); /* n bits for rows, then n for columns */
    if (!seen)
        return 0; /* an early answer, not a requirement */
#define LS_SEEN_SET(x) (seen[(x) / 8] |= (unsigned char)(1u << ((x) % 8)))
    for (size_t k = 0; k < b->nt; k++) {
        size_t i = (size_t)b->t[k].i, j = (size_t)b->t[k].j;
        LS_SEEN_SET(i);
        LS_SEEN_SET(n + j);
        if (mirror) {
            LS_SEEN_SET(j);
            LS_SEEN_SET(n + i);
        }
    }
#undef LS_SEEN_SET
    int found = 0;
    for (size_t x = 0; x < 2 * n && !found; x++) {
        size_t at = x < n ? n + x : x - n; /* columns first, then rows */
        if (!(seen[at / 8] >> (at % 8) & 1))
            found = LS_FAIL(r->err, r->errlen, at % n < INT_MAX ? (int)(at % n) + 1 : INT_MAX,
                            "%s: the matrix is singular: %s %zu holds no entry (%lld x %lld "
                            "with %zu stored entries)",
                            r->path, x < n ? "column" : "row", at % n + 1, r->rows, r->cols,
                            b->nt);
    }
    free(seen);
    return found;
}

/* Row counts (row_ptr[i+1] counts row i) -> row starts; row_ptr[rows] is
 * then the number of stored entries. */
static void prefix_counts(const ls_mm_reader *r, csr_build *b)
{
    for (int64_t i = 0; i < r->rows; i++)
        b->row_ptr[i + 1] += b->row_ptr[i];
}

/* Triplets -> rows in file order (each mirrored entry right after its
 * original, where the dense reader adds it too). */
static void scatter(const ls_mm_reader *r, csr_build *b)
{
    const int64_t n = r->rows;
    int64_t *rp = b->row_ptr;
    /* rp[i] is row i's start (prefix_counts); use it as the row's cursor,
     * then shift back */
    int64_t *next = rp; /* next[i] advances from the start of row i */
    const int mirror = r->symmetry != LS_MM_GENERAL;
    const double sign = r->symmetry == LS_MM_SKEW ? -1.0 : 1.0;
    for (size_t k = 0; k < b->nt; k++) {
        int64_t i = b->t[k].i, j = b->t[k].j;
        int64_t p = next[i]++;
        b->col_idx[p] = j;
        b->val[p] = b->t[k].v;
        if (mirror && i != j) {
            p = next[j]++;
            b->col_idx[p] = i;
            b->val[p] = sign * b->t[k].v;
        }
    }
    /* next[i] is now the end of row i = the start of row i+1 */
    for (int64_t i = n; i > 0; i--)
        rp[i] = rp[i - 1];
    rp[0] = 0;
}

/* Put every row in column order and sum its duplicates, compacting the
 * arrays in place. */
static int sort_and_sum(const ls_mm_reader *r, csr_build *b, int64_t *nnz_out, char *err,
                        size_t errlen)
{
    const int64_t n = r->rows;
    int64_t *rp = b->row_ptr, *c = b->col_idx;
    double *v = b->val;
    int64_t longest = 0;
    for (int64_t i = 0; i < n; i++)
        if (rp[i + 1] - rp[i] > longest)
            longest = rp[i + 1] - rp[i];
    int64_t w = 0, start = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t end = rp[i + 1], len = end - start;
        int sorted = 1;
        for (int64_t p = start + 1; p < end && sorted; p++)
            sorted = c[p - 1] <= c[p];
        if (!sorted) {
            /* scratch only when a file needs it: most are already in order */
            if (!b->sort_c) {
                b->sort_c = alloc_n(longest, sizeof *b->sort_c);
                b->sort_v = alloc_n(longest, sizeof *b->sort_v);
                if (!b->sort_c || !b->sort_v)
                    return LS_FAIL(err, errlen, LS_ENOMEM,
                                   "%s: no memory to sort a row of %lld entries", r->path,
                                   (long long)longest);
            }
            sort_row(c + start, v + start, len, b->sort_c, b->sort_v);
        }
        rp[i] = w;
        for (int64_t p = start; p < end; p++) {
            if (w > rp[i] && c[w - 1] == c[p]) {
                v[w - 1] += v[p];
                if (!isfinite(v[w - 1]))
                    return LS_FAIL(err, errlen, LS_ENONFINITE,
                                   "%s: expected finite sums of duplicate entries, got overflow "
                                   "at (%lld, %lld)",
                                   r->path, (long long)i + 1, (long long)c[p] + 1);
            } else {
                c[w] = c[p];
                v[w++] = v[p];
            }
        }
        start = end;
    }
    rp[n] = w;
    *nnz_out = w;
    return 0;
}

static int csr_read_src(ls_io_src *src, int for_solve, ls_csr *out, char *err, size_t errlen)
{
    ls_mm_reader r;
    int st = ls_mm_begin(&r, src, 1, err, errlen);
    if (st)
        return st;
    csr_build b;
    memset(&b, 0, sizeof b);
    st = check_budget(&r, err, errlen);
    if (!st)
        st = read_triplets(&r, &b);
    ls_mm_end(&r);
    if (!st && for_solve)
        st = structurally_singular(&r, &b);
    /* the rows are allocated only now, after the entries proved the file */
    if (!st && !(b.row_ptr = r.rows < LLONG_MAX ? ls_calloc((size_t)r.rows + 1, sizeof *b.row_ptr)
                                                : NULL))
        st = LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for %lld rows", r.path, r.rows);
    if (!st)
        count_rows(&r, &b);
    long long stored = 0;
    if (!st) {
        prefix_counts(&r, &b);
        stored = b.row_ptr[r.rows];
        b.col_idx = alloc_n(stored, sizeof *b.col_idx);
        b.val = alloc_n(stored, sizeof *b.val);
        if (!b.col_idx || !b.val)
            st = LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for %lld stored entries",
                         r.path, stored);
    }
    if (!st) {
        scatter(&r, &b);
        free(b.t);
        b.t = NULL;
        int64_t nnz = 0;
        st = sort_and_sum(&r, &b, &nnz, err, errlen);
        if (!st && nnz < stored && nnz > 0) {
            /* give back what the summed duplicates freed; keep on failure */
            int64_t *c = ls_realloc(b.col_idx, sizeof *c * (size_t)nnz);
            if (c)
                b.col_idx = c;
            double *v = ls_realloc(b.val, sizeof *v * (size_t)nnz);
            if (v)
                b.val = v;
        }
        if (!st) {
            out->n_rows = r.rows;
            out->n_cols = r.cols;
            out->nnz = nnz;
            out->row_ptr = b.row_ptr;
            out->col_idx = b.col_idx;
            out->val = b.val;
            b.row_ptr = b.col_idx = NULL;
            b.val = NULL;
        }
    }
    build_free(&b);
    return st;
}

static int csr_read_path(const char *path, int for_solve, ls_csr *out, char *err,
                         size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path)
        return LS_FAIL(err, errlen, LS_EINVAL, "csr read: path is NULL");
    if (!out)
        return LS_FAIL(err, errlen, LS_EINVAL, "%s: csr read: output matrix is NULL", path);
    memset(out, 0, sizeof *out);
    ls_io_src src;
    int st = ls_io_open(&src, path, NULL, NULL, err, errlen);
    if (st)
        return st;
    st = csr_read_src(&src, for_solve, out, err, errlen);
    ls_io_close(&src);
    return st;
}

int ls_csr_read_mm(const char *path, ls_csr *out, char *err, size_t errlen)
{
    return csr_read_path(path, 0, out, err, errlen);
}

int ls_csr_read_for_solve(const char *path, ls_csr *out, char *err, size_t errlen)
{
    return csr_read_path(path, 1, out, err, errlen);
}
