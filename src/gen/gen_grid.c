/*
 * Grid problems of any size: the Dirichlet Laplacian and a central-difference
 * convection-diffusion operator on a kx x ky (x kz) grid, either into CSR
 * (ls_gen_grid) or streamed row by row to a Matrix Market coordinate file
 * (ls_gen_grid_write_mm) in O(1) memory: a 10^7-unknown problem is written
 * without ever holding it. Both take each row from grid_row(), so the file
 * and the CSR are the same matrix entry for entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "linsolve.h"

typedef struct grid {
    int dims;
    int64_t kx, ky, kz, kxy, n, nnz;
    double diag, lower, upper;
} grid;

/* 0, or the ls_gen_grid status for bad arguments. */
static int grid_init(grid *g, int dims, int64_t kx, int64_t ky, int64_t kz, double peclet)
{
    memset(g, 0, sizeof *g);
    if (dims != 2 && dims != 3)
        return -1;
    if (dims == 2)
        kz = 1;
    if (kx < 1 || ky < 1 || kz < 1)
        return -2;
    /* 16 bytes per entry, at most 7 entries a row, must stay addressable:
     * this also keeps n and every index below far from overflow. */
    double n_d = (double)kx * (double)ky * (double)kz;
    if (n_d * (7.0 * 16.0 + 8.0) > 4.0e18)
        return -2;
    if (!(peclet >= 0) || peclet > 1e300)
        return -4;
    g->dims = dims;
    g->kx = kx, g->ky = ky, g->kz = kz;
    g->kxy = kx * ky;
    g->n = g->kxy * kz;
    /* every grid line of k points has k - 1 links, each stored twice */
    g->nnz = g->n + 2 * ((kx - 1) * ky * kz + kx * (ky - 1) * kz + kx * ky * (kz - 1));
    /* -Laplace(u) + w . grad(u), w = peclet (1, 1, 1), one mesh width h =
     * 1 / (max k + 1) in every direction, central differences, times h^2:
     * the lower neighbour gets -1 - peclet h / 2, the upper -1 + peclet h / 2. */
    int64_t km = kx > ky ? kx : ky;
    km = km > kz ? km : kz;
    double gh = peclet / (2.0 * ((double)km + 1.0));
    g->diag = 2.0 * dims;
    g->lower = -1.0 - gh;
    g->upper = -1.0 + gh;
    return 0;
}

/* Row p's columns in increasing order, and which value each takes
 * (0 lower, 1 diagonal, 2 upper). Returns the count (<= 7). */
static int grid_row(const grid *g, int64_t p, int64_t *col, unsigned char *what)
{
    const int64_t ix = p % g->kx, iy = (p / g->kx) % g->ky, iz = p / g->kxy;
    int c = 0;
#define PUT(cond, q, w) \
    do {                \
        if (cond) {     \
            col[c] = q; \
            what[c++] = w; \
        }               \
    } while (0)
    PUT(iz > 0, p - g->kxy, 0);
    PUT(iy > 0, p - g->kx, 0);
    PUT(ix > 0, p - 1, 0);
    PUT(1, p, 1);
    PUT(ix < g->kx - 1, p + 1, 2);
    PUT(iy < g->ky - 1, p + g->kx, 2);
    PUT(iz < g->kz - 1, p + g->kxy, 2);
#undef PUT
    return c;
}

int ls_gen_grid(int dims, int64_t kx, int64_t ky, int64_t kz, double peclet, ls_csr *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    grid g;
    int st = grid_init(&g, dims, kx, ky, kz, peclet);
    if (st)
        return st;
    if (!out)
        return -3;
    const int64_t n = g.n;
    int64_t *rp = ls_malloc(sizeof *rp * (size_t)(n + 1));
    int64_t *ci = ls_malloc(sizeof *ci * (size_t)g.nnz);
    double *v = ls_malloc(sizeof *v * (size_t)g.nnz);
    if (!rp || !ci || !v) {
        free(rp);
        free(ci);
        free(v);
        return LS_ENOMEM;
    }
    const double value[3] = {g.lower, g.diag, g.upper};
    rp[0] = 0;
    for (int64_t p = 0; p < n; p++) {
        int64_t col[7];
        unsigned char what[7];
        rp[p + 1] = rp[p] + grid_row(&g, p, col, what);
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n > 10000)
#endif
    for (int64_t p = 0; p < n; p++) {
        unsigned char what[7];
        int c = grid_row(&g, p, ci + rp[p], what);
        for (int e = 0; e < c; e++)
            v[rp[p] + e] = value[what[e]];
    }
    out->n_rows = out->n_cols = n;
    out->nnz = g.nnz;
    out->row_ptr = rp;
    out->col_idx = ci;
    out->val = v;
    return 0;
}

int ls_gen_poisson(int dims, int64_t k, ls_csr *out)
{
    return ls_gen_grid(dims, k, k, k, 0.0, out);
}

/* Decimal digits of v >= 0 at s, returns the length. */
static int put_uint(char *s, uint64_t v)
{
    char tmp[24];
    int len = 0;
    do {
        tmp[len++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < len; i++)
        s[i] = tmp[len - 1 - i];
    return len;
}

int ls_gen_grid_write_mm(void *stream, const char *path, int dims, int64_t kx, int64_t ky,
                         int64_t kz, double peclet, const char *comment, char *err,
                         size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    const char *name = path ? path : "<stream>";
    grid g;
    int st = grid_init(&g, dims, kx, ky, kz, peclet);
    if (st)
        return LS_FAIL(err, errlen, LS_EINVAL,
                       "%s: grid %lld x %lld x %lld (dims %d, peclet %g): %s", name,
                       (long long)kx, (long long)ky, (long long)kz, dims, peclet,
                       st == -1   ? "dims must be 2 or 3"
                       : st == -2 ? "every side needs >= 1 point and n must stay addressable"
                                  : "peclet must be finite and >= 0");
    if (!stream && !path)
        return LS_FAIL(err, errlen, LS_EINVAL, "grid write: neither a stream nor a path");
    FILE *f = stream ? (FILE *)stream : fopen(path, "wb");
    if (!f)
        return LS_FAIL(err, errlen, LS_EIO, "%s: cannot create: %s", path, strerror(errno));
    /* The three values, formatted once ("%.17g" reads back bit for bit). */
    char vs[3][32];
    int vl[3];
    const double value[3] = {g.lower, g.diag, g.upper};
    for (int w = 0; w < 3; w++)
        vl[w] = snprintf(vs[w], sizeof vs[w], "%.17g", value[w]);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% %s\n", comment && *comment ? comment : "grid problem written by linsolve");
    fprintf(f, "%lld %lld %lld\n", (long long)g.n, (long long)g.n, (long long)g.nnz);
    /* Lines are built in a buffer and written in large blocks: formatting
     * 10^7 lines through fprintf would take longer than solving. */
    enum { BUF = 1 << 20, LINE = 80 };
    char *buf = ls_malloc(BUF);
    int failed = 0;
    if (!buf) {
        st = LS_FAIL(err, errlen, LS_ENOMEM, "%s: cannot allocate a 1 MiB write buffer", name);
        failed = -1;
    }
    size_t used = 0;
    for (int64_t p = 0; p < g.n && !failed; p++) {
        int64_t col[7];
        unsigned char what[7];
        int c = grid_row(&g, p, col, what);
        for (int e = 0; e < c; e++) {
            char *s = buf + used;
            s += put_uint(s, (uint64_t)p + 1);
            *s++ = ' ';
            s += put_uint(s, (uint64_t)col[e] + 1);
            *s++ = ' ';
            memcpy(s, vs[what[e]], (size_t)vl[what[e]]);
            s += vl[what[e]];
            *s++ = '\n';
            used = (size_t)(s - buf);
        }
        if (used > BUF - 8 * LINE) {
            failed = fwrite(buf, 1, used, f) != used;
            used = 0;
        }
    }
    if (!failed && used)
        failed = fwrite(buf, 1, used, f) != used;
    free(buf);
    int saved = errno;
    if (fflush(f) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (!stream && fclose(f) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed > 0)
        st = LS_FAIL(err, errlen, LS_EIO, "%s: write failed: %s", name, strerror(saved));
    if (failed && !stream)
        remove(path);
    return st;
}
