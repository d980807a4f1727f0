/* When the small-n LU (k_lu_small.cu) runs, and its launch shape.
 *
 * It serves square systems of n <= LS_CUDA_LU_SMALL_MAX_N (the knob
 * registry's default: 1024; 0 turns it off; never above LSK_LU_SMALL_MAX_N)
 * on sm_90 and up, in one cluster (16 blocks where the non-portable size
 * is allowed, else 8):
 *  - in shared memory where the column blocks of [A | B] fit the
 *    cluster's: the cluster is the smallest power of two giving each block
 *    at most one of A's 32-column panels, grown until the columns fit;
 *  - else, for getrf (nrhs 0), in place in A: the matrix is served by L2
 *    and the largest cluster takes it (gesv then runs getrf and getrs).
 * LS_CUDA_LU_SMALL_BLOCKS fixes the cluster size and
 * LS_CUDA_LU_SMALL_IN_PLACE=1 the in-place form (for measuring, testing). */
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

static int forced_in_place(void)
{
    return (int)ls_knob_int(LS_KNOB_CUDA_LU_SMALL_IN_PLACE);
}

int lsc_lu_small_forced(void)
{
    return forced_blocks() != 0 || forced_in_place() != 0;
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

/* The in-place form: the largest cluster (more blocks share the update),
 * at most one block per panel; shared memory for L11's and U12's copies. */
static int plan_in_place(ls_precision p, int np, int gmax, int forced, lsc_lu_small_shape *sh)
{
    int g = 1;
    if (forced) {
        g = forced;
    } else {
        while (g < gmax && g < np)
            g *= 2;
    }
    if (g > gmax)
        return 0;
    sh->G = g;
    sh->smem = LSC_LU_SMALL_HEAD_ELEMS * (p == LS_DOUBLE ? sizeof(double) : sizeof(float));
    sh->in_smem = 0;
    return 1;
}

int lsc_lu_small_plan(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, lsc_lu_small_shape *sh)
{
    int gmax, g = 1, np = (n + LSK_LUS_PANEL - 1) / LSK_LUS_PANEL, forced = forced_blocks();
    sh->G = 0;
    sh->smem = 0;
    sh->in_smem = 0;
    /* a panel's rows: at most two per thread (k_lu_small.cu) */
    if (n < 1 || nrhs < 0 || n > small_max_n() || n > LSK_LU_SMALL_MAX_N ||
        n > 2 * LSK_LUS_THREADS || (gmax = max_blocks(c, p)) == 0)
        return 0;
    /* in shared memory FP64 holds one panel row a thread: n <= 512 */
    if (forced_in_place() || (p == LS_DOUBLE && n > LSK_LUS_THREADS))
        return nrhs == 0 && plan_in_place(p, np, gmax, forced, sh);
    if (forced) {
        g = forced;
    } else {
        while (g < gmax && g < np)
            g *= 2;
        while (g < gmax && smem_bytes(p, n, nrhs, g) > smem_limit(c))
            g *= 2;
    }
    if (g > gmax || smem_bytes(p, n, nrhs, g) > smem_limit(c))
        return nrhs == 0 && plan_in_place(p, np, gmax, forced, sh);
    sh->G = g;
    sh->smem = smem_bytes(p, n, nrhs, g);
    sh->in_smem = 1;
    return 1;
}

int lsc_lu_small_run(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda, void *dB,
                     int ldb, int *d_ipiv, int *d_info, const lsc_lu_small_shape *sh, char *err,
                     size_t errlen)
{
    int st = 0;
    LSC_CUDA(p == LS_DOUBLE ? lsk_lu_small_d(n, nrhs, (double *)dA, lda, (double *)dB, ldb, d_ipiv,
                                             d_info, sh->G, sh->smem, sh->in_smem, c->stream)
                            : lsk_lu_small_s(n, nrhs, (float *)dA, lda, (float *)dB, ldb, d_ipiv,
                                             d_info, sh->G, sh->smem, sh->in_smem, c->stream));
done:
    return st;
}

int lsc_lu_small_gesv(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                      int *d_ipiv, int *d_info, void *dB, int ldb, int *fused, char *err,
                      size_t errlen)
{
    lsc_lu_small_shape sh;
    *fused = lsc_lu_small_plan(c, p, n, nrhs, &sh);
    if (!*fused)
        return 0;
    return lsc_lu_small_run(c, p, n, nrhs, dA, lda, dB, ldb, d_ipiv, d_info, &sh, err, errlen);
}
