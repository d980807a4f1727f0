/* When the small-n LU (k_lu_small.cu) runs, and its launch shape.
 *
 * It serves square systems of n <= LS_CUDA_LU_SMALL_MAX_N (default
 * LSC_LU_SMALL_DEFAULT_N; 0 turns it off) whose columns fit the shared
 * memory of the largest cluster this device runs (16 blocks where the
 * non-portable size is allowed, else 8; sm_90 and up). The cluster is the
 * smallest power of two giving each block about LSC_LU_SMALL_COLS columns
 * (enough warps for the update of a step), grown until the columns fit.
 * LS_CUDA_LU_SMALL_BLOCKS fixes the cluster size (for measuring). */
#include "cuda_backend.h"
#include "lu_small.h"

#include <stdlib.h>

#define LSC_LU_SMALL_DEFAULT_N 0 /* off: slower than the blocked lu where measured (docs/cuda-lu-small.md) */
#define LSC_LU_SMALL_COLS 32
/* the back substitution's diagonal block (32 x 33) and one rhs column */
#define LSC_LU_SMALL_SOLVE_ELEMS(n) (32 * 33 + (size_t)(n))
/* a column block of the solve takes at most this many rhs at a time */
#define LSC_LU_SMALL_SOLVE_RHS 8

static int small_max_n(void)
{
    const char *e = getenv("LS_CUDA_LU_SMALL_MAX_N");
    int v = e ? atoi(e) : LSC_LU_SMALL_DEFAULT_N;
    return v > 0 ? v : 0;
}

static int forced_blocks(void)
{
    const char *e = getenv("LS_CUDA_LU_SMALL_BLOCKS");
    int v = e ? atoi(e) : 0;
    return v == 1 || v == 2 || v == 4 || v == 8 || v == 16 ? v : 0;
}

/* The kernel's own static arrays are a few words; this leaves room. */
static size_t smem_limit(const ls_cuda_ctx *c)
{
    return c->prop.sharedMemPerBlockOptin - 1024;
}

/* Dynamic shared memory a block needs (lu_small's layout). */
static size_t smem_bytes(ls_precision p, int n, int nrhs, int G)
{
    size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float);
    size_t nlmax = ((size_t)n + (size_t)nrhs + (size_t)G - 1) / (size_t)G;
    size_t elems = nlmax * (size_t)n + 4 * (size_t)n; /* columns, pub, Lbuf */
    if (nrhs > 0) {
        size_t rc = nrhs < LSC_LU_SMALL_SOLVE_RHS ? (size_t)nrhs : LSC_LU_SMALL_SOLVE_RHS;
        size_t solve = LSC_LU_SMALL_SOLVE_ELEMS(n) + (rc - 1) * (size_t)n;
        elems = solve > elems ? solve : elems;
    }
    return elems * es;
}

static int max_blocks(ls_cuda_ctx *c, ls_precision p)
{
    signed char *known = &c->lu_small[p == LS_DOUBLE ? 0 : 1];
    if (*known == 0) {
        int G = p == LS_DOUBLE ? lsk_lu_small_max_blocks_d(smem_limit(c))
                               : lsk_lu_small_max_blocks_s(smem_limit(c));
        *known = G > 0 ? (signed char)G : -1;
    }
    return *known > 0 ? *known : 0;
}

int lsc_lu_small_plan(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, int *G, size_t *smem)
{
    int gmax, g = 1, ncol = n + nrhs, forced = forced_blocks();
    *G = 0;
    *smem = 0;
    if (n < 1 || nrhs < 0 || n > small_max_n() || (gmax = max_blocks(c, p)) == 0)
        return 0;
    if (forced) {
        g = forced;
    } else {
        while (g < gmax && (ncol + g - 1) / g > LSC_LU_SMALL_COLS)
            g *= 2;
        while (g < gmax && smem_bytes(p, n, nrhs, g) > smem_limit(c))
            g *= 2;
    }
    if (g > gmax || smem_bytes(p, n, nrhs, g) > smem_limit(c))
        return 0;
    *G = g;
    *smem = smem_bytes(p, n, nrhs, g);
    return 1;
}

int lsc_lu_small_run(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda, void *dB,
                     int ldb, int *d_ipiv, int *d_info, int G, size_t smem, char *err,
                     size_t errlen)
{
    int st = 0;
    LSC_CUDA(p == LS_DOUBLE ? lsk_lu_small_d(n, nrhs, (double *)dA, lda, (double *)dB, ldb, d_ipiv,
                                             d_info, G, smem, c->stream)
                            : lsk_lu_small_s(n, nrhs, (float *)dA, lda, (float *)dB, ldb, d_ipiv,
                                             d_info, G, smem, c->stream));
done:
    return st;
}

int lsc_lu_small_gesv(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                      int *d_ipiv, int *d_info, void *dB, int ldb, int *fused, char *err,
                      size_t errlen)
{
    int G = 0;
    size_t smem = 0;
    *fused = lsc_lu_small_plan(c, p, n, nrhs, &G, &smem);
    if (!*fused)
        return 0;
    return lsc_lu_small_run(c, p, n, nrhs, dA, lda, dB, ldb, d_ipiv, d_info, G, smem, err, errlen);
}
