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

/* The tallest panels of the cluster and push leaves, and the size from
 * which the look-ahead driver runs, are the context's tuning row
 * (c->tune: cluster_rows, push_rows, lookahead_min; common/tuning.h). */
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
 * the tuning row's lookahead_min on; below it the recursive driver with
 * one-SM leaves wins. LS_CUDA_LU_DRIVER=recursive|lookahead forces one. */
static int use_lookahead(const ls_cuda_ctx *c, int kmin)
{
    if (ls_knob_is(LS_KNOB_CUDA_LU_DRIVER, "recursive"))
        return 0;
    if (ls_knob_is(LS_KNOB_CUDA_LU_DRIVER, "lookahead"))
        return 1;
    return kmin >= c->tune->lookahead_min;
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
