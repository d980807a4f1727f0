/* getrf on the device for method "lu": recursive right-looking LU with
 * partial pivoting on the column-major matrix (LAPACK's dgetrf2 shape): the
 * left half is factored, its interchanges applied to the right half, U12
 * solved with cuBLAS trsm and the trailing block updated with cuBLAS gemm,
 * then the right half is factored. Leaves run our panel kernels. Pivots and
 * info never leave the device: no host sync. */
#include "core/knobs.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/lu/k_lu.h"
#include "cuda/lu/lu_small.h"
#include "cuda/steps/k_steps.h" /* lsk_laswp (k_pivot.cu) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LSC_LU_LEAF 16

/* The cluster leaf (8 blocks) beats the cooperative one (up to one block per
 * SM) on short leaves only: H100 run 6, n = 1024: 4.33 vs 4.53 ms FP64,
 * 3.87 vs 4.26 ms FP32; n = 4096 with cluster leaves up to 4096 rows: 24.7
 * vs 22.2 ms. LS_CUDA_LU_LEAF=cluster lifts the limit (for measuring). */
#define LSC_CLUSTER_ROWS 1024
/* The push leaf beats the cooperative one up to about this many rows
 * (H100, this session: n = 256..1024 4-9 % faster, 4096 7 % slower). */
#define LSC_PUSH_ROWS 2048
/* The one-SM leaf serves leaves of at least this width; panels too tall for
 * it take the multi-block leaves. */
#define LSC_SM_MINW 8

/* Most blocks a cooperative leaf may use: one per SM, or fewer when
 * LS_CUDA_LU_COOP_BLOCKS says so (for measuring the barrier's cost). */
static int coop_max_blocks(const ls_cuda_ctx *c)
{
    int sms = c->prop.multiProcessorCount;
    long long g = ls_knob_int(LS_KNOB_CUDA_LU_COOP_BLOCKS); /* 0: unset */
    return g > 0 && g < sms ? (int)g : sms;
}

static const char *leaf_choice(void)
{
    return ls_knob_str(LS_KNOB_CUDA_LU_LEAF); /* "auto" unless set */
}

/* Dynamic shared memory a push leaf block may take: the opt-in limit less
 * the kernel's static arrays and a margin. */
static size_t push_smem_limit(const ls_cuda_ctx *c)
{
    return c->prop.sharedMemPerBlockOptin - 4096;
}

/* The one-SM leaf's shared memory limit: the opt-in limit less its static
 * arrays and a margin. */
static size_t sm_smem_limit(const ls_cuda_ctx *c)
{
    return c->prop.sharedMemPerBlockOptin - 2048;
}

/* The one-SM leaf's widest leaf: LSK_SM_MAXW, or less when LS_CUDA_LU_SMW
 * says so (for measuring the leaf width against the recursion's calls). */
static int sm_maxw(void)
{
    long long w = ls_knob_int(LS_KNOB_CUDA_LU_SMW); /* 0: unset */
    return w >= 1 && w < LSK_SM_MAXW ? (int)w : LSK_SM_MAXW;
}

/* Whether the one-SM leaf takes the tallest leaf of m rows at a useful
 * width (LS_CUDA_LU_LEAF=auto or sm). */
static int sm_allowed(void)
{
    const char *leaf = leaf_choice();
    return !strcmp(leaf, "auto") || !strcmp(leaf, "sm");
}

/* The look-ahead driver (cuSOLVER panel beside our trailing update) from
 * this size on; below it the recursive driver with one-SM leaves wins. H100,
 * both replayed as graphs, the look-ahead's interchanges gathered: 2.51 vs
 * 2.56 ms at 1024, 6.82 vs 6.12 at 2048, 19.3 vs 15.1 at 4096 (FP64).
 * LS_CUDA_LU_DRIVER=recursive|lookahead forces one. */
#define LSC_LOOKAHEAD_MIN 1536
static int use_lookahead(int kmin)
{
    if (ls_knob_is(LS_KNOB_CUDA_LU_DRIVER, "recursive"))
        return 0;
    if (ls_knob_is(LS_KNOB_CUDA_LU_DRIVER, "lookahead"))
        return 1;
    return kmin >= LSC_LOOKAHEAD_MIN;
}

#define LS_REAL_IMPL "cuda/lu/getrf_impl.h"
#include "common/instantiate_real.h"

int lsc_getrf_device(ls_cuda_ctx *c, ls_precision p, int m, int n, void *dA, int lda,
                     int *d_ipiv, int *d_info, char *err, size_t errlen)
{
    return p == LS_DOUBLE
               ? lsc_getrf_device_d(c, m, n, (double *)dA, lda, d_ipiv, d_info, err, errlen)
               : lsc_getrf_device_s(c, m, n, (float *)dA, lda, d_ipiv, d_info, err, errlen);
}
