/* When the small-n LU (k_lu_small.cu) runs, and its launch shape.
 *
 * It serves square systems of n <= LS_CUDA_LU_SMALL_MAX_N (the knob
 * registry's default: 1024; 0 turns it off; never above LSK_LU_SMALL_MAX_N)
 * whose column blocks fit the shared memory of the largest cluster this
 * device runs (16 blocks where the non-portable size is allowed, else 8;
 * sm_90 and up). The cluster is the smallest power of two giving each
 * block at most one of A's 32-column panels, grown until the columns fit.
 * LS_CUDA_LU_SMALL_BLOCKS fixes the cluster size (for measuring). */
#include "core/knobs.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/lu/lu_small.h"

/* the kernel's copies of L11 (32 x 33) and U12 (32 x 36) */
#define LSC_LU_SMALL_HEAD_ELEMS ((size_t)LSK_LUS_PANEL * (LSK_LUS_PANEL + 1 + LSK_LUS_PANEL + 4))
/* the back substitution's diagonal block (32 x 33) and one rhs column */
#define LSC_LU_SMALL_SOLVE_ELEMS(n) (32 * 33 + (size_t)(n))
/* a column block of the solve takes at most this many rhs at a time */
#define LSC_LU_SMALL_SOLVE_RHS 8

static int small_max_n(void)
{
    return (int)ls_knob_int(LS_KNOB_CUDA_LU_SMALL_MAX_N);
}

static int forced_blocks(void)
{
    return (int)ls_knob_int(LS_KNOB_CUDA_LU_SMALL_BLOCKS);
}

/* The kernel's static arrays (the published and copied interchange lists,
 * the pivot candidates with their rows: about 6.6 KB) come out of the same per-block
 * limit as the dynamic part; this leaves room for them. */
static size_t smem_limit(const ls_cuda_ctx *c)
{
    return c->prop.sharedMemPerBlockOptin - 8192;
}

/* Dynamic shared memory a block needs (lu_small's layout): the copies of
 * L11 and U12, then its 32-column blocks of [A | B] (block jb in cluster
 * block jb % G); with right-hand sides, the back substitution reuses the
 * columns' room. */
static size_t smem_bytes(ls_precision p, int n, int nrhs, int G)
{
    size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float), cols_max = 0;
    int ncol = n + nrhs, nblk = (ncol + LSK_LUS_PANEL - 1) / LSK_LUS_PANEL;
    for (int b = 0; b < G; b++) {
        size_t cols = 0;
        for (int jb = b; jb < nblk; jb += G)
            cols += (size_t)(ncol - jb * LSK_LUS_PANEL < LSK_LUS_PANEL ? ncol - jb * LSK_LUS_PANEL
                                                                      : LSK_LUS_PANEL);
        cols_max = cols > cols_max ? cols : cols_max;
    }
    size_t elems = cols_max * (size_t)n;
    if (nrhs > 0) {
        size_t rc = nrhs < LSC_LU_SMALL_SOLVE_RHS ? (size_t)nrhs : LSC_LU_SMALL_SOLVE_RHS;
        size_t solve = LSC_LU_SMALL_SOLVE_ELEMS(n) + (rc - 1) * (size_t)n;
        elems = solve > elems ? solve : elems;
    }
    return (LSC_LU_SMALL_HEAD_ELEMS + elems) * es;
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
    int gmax, g = 1, np = (n + LSK_LUS_PANEL - 1) / LSK_LUS_PANEL, forced = forced_blocks();
    *G = 0;
    *smem = 0;
    /* a panel's rows: one per thread in FP64, two in FP32 (k_lu_small.cu) */
    int rows_max = LSK_LUS_THREADS * (p == LS_DOUBLE ? 1 : 2);
    if (n < 1 || nrhs < 0 || n > small_max_n() || n > LSK_LU_SMALL_MAX_N || n > rows_max ||
        (gmax = max_blocks(c, p)) == 0)
        return 0;
    if (forced) {
        g = forced;
    } else {
        while (g < gmax && g < np)
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
