/* The batched getrf by panels (k_batched_blocked.cu) with cuBLAS's
 * strided-batched GEMM for the trailing updates: for orders from about 128,
 * where a block per whole matrix leaves the SMs short of warps (or the
 * matrix does not fit shared memory) and cuBLAS's getrfBatched runs at
 * about 1 TFLOP/s. */
#include "batched_cuda.h"

#include <stdlib.h>
#include <string.h>

#include "k_batched_blocked.h"

int lsc_bblk_width(int dbl, int n, size_t optin)
{
    const char *e = getenv("LS_CUDA_BATCHED_JB"); /* measurements only */
    int want = e ? atoi(e) : 0;
    if ((want == 8 || want == 16 || want == 32) && lsk_bblk_panel_bytes(dbl, n, want) <= optin)
        return want;
    /* The widest that fits: fewer passes of row moves and GEMM over the
     * stack beat more blocks an SM (H100: jb 32 at one block an SM ran
     * n = 512 FP64 in 29 ms, jb 16 at three in 39; batched-variants.txt). */
    for (int jb = LSK_BBLK_MAXJB; jb >= 8; jb /= 2)
        if (lsk_bblk_panel_bytes(dbl, n, jb) <= optin)
            return jb;
    return 0;
}

/* A22 -= A21 U12 over the stack. */
static int update(ls_cuda_ctx *c, int dbl, const lsk_bstack *s, int j0, int jb, char *err,
                  size_t errlen)
{
    int st = 0, mt = s->n - j0 - jb, lda = (int)s->a_cs;
    long long off21 = j0 + jb + (long long)j0 * lda, off12 = j0 + (long long)(j0 + jb) * lda;
    long long off22 = j0 + jb + (long long)(j0 + jb) * lda;
    if (dbl) {
        const double m1 = -1, one = 1;
        double *A = (double *)s->A;
        LSC_BLAS(cublasDgemmStridedBatched(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, mt, mt, jb, &m1,
                                           A + off21, lda, s->sA, A + off12, lda, s->sA, &one,
                                           A + off22, lda, s->sA, s->batch));
    } else {
        const float m1 = -1, one = 1;
        float *A = (float *)s->A;
        LSC_BLAS(cublasSgemmStridedBatched(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, mt, mt, jb, &m1,
                                           A + off21, lda, s->sA, A + off12, lda, s->sA, &one,
                                           A + off22, lda, s->sA, s->batch));
    }
done:
    return st;
}

int lsc_bblk_getrf(ls_cuda_ctx *c, int dbl, const lsk_bstack *s, size_t optin, char *err,
                   size_t errlen)
{
    int st = 0, n = s->n, rowmajor = s->a_rs != 1;
    int jbmax = lsc_bblk_width(dbl, n, optin), mstride = 1 + 4 * jbmax;
    int npanels = jbmax ? (n + jbmax - 1) / jbmax : 0;
    size_t per_panel = (size_t)mstride * (size_t)s->batch;
    int *moves = NULL;
    lsk_bstack cm = *s; /* the column-major view */
    if (jbmax == 0)
        return LSC_FAIL(err, errlen, LS_ELIMIT, "batched getrf: n = %d too large for a panel", n);
    if (rowmajor) {
        cm.a_rs = 1;
        cm.a_cs = s->a_rs;
    }
    /* every panel's moves: the left-hand columns take them all at the end */
    LSC_TRY(lsc_tmp_alloc(c, (void **)&moves, sizeof(int) * per_panel * (size_t)npanels, err,
                          errlen));
    if (rowmajor)
        LSC_CUDA(lsk_btranspose(dbl, n, s->A, cm.a_cs, s->sA, s->batch, c->stream));
    LSC_CUDA(lsk_bzero_info(s->info, s->batch, c->stream));
    for (int p = 0; p < npanels; p++) {
        int j0 = p * jbmax, jb = n - j0 < jbmax ? n - j0 : jbmax;
        int *mv = moves + (size_t)p * per_panel;
        LSC_CUDA(lsk_bblk_panel(dbl, &cm, j0, jb, mv, mstride, c->stream));
        if (j0 + jb < n) {
            LSC_CUDA(lsk_bblk_right(dbl, &cm, j0, jb, mv, mstride, c->stream));
            LSC_TRY(update(c, dbl, &cm, j0, jb, err, errlen));
        }
    }
    LSC_CUDA(lsk_bblk_left(dbl, &cm, jbmax, moves, mstride, c->stream));
    if (rowmajor)
        LSC_CUDA(lsk_btranspose(dbl, n, s->A, cm.a_cs, s->sA, s->batch, c->stream));
done:
    lsc_tmp_free(c, moves);
    return st;
}
