/* batched_blocked.c for one precision (REAL, FN: typed.h), instantiated
 * there for double and float.
 * Defines: lsc_bblk_width_d, lsc_bblk_width_s, lsc_bblk_getrf_d,
 *   lsc_bblk_getrf_s */
int FN(lsc_bblk_width)(int n, size_t optin)
{
    int want = (int)ls_knob_int(LS_KNOB_CUDA_BATCHED_JB); /* measurements only; 0: unset */
    if ((want == 8 || want == 16 || want == 32) && FN(lsk_bblk_panel_bytes)(n, want) <= optin)
        return want;
    /* The widest that fits: fewer passes of row moves and GEMM over the
     * stack beat more blocks an SM (H100: jb 32 at one block an SM ran
     * n = 512 FP64 in 29 ms, jb 16 at three in 39; batched-variants.txt). */
    for (int jb = LSK_BBLK_MAXJB; jb >= 8; jb /= 2)
        if (FN(lsk_bblk_panel_bytes)(n, jb) <= optin)
            return jb;
    return 0;
}

/* A22 -= A21 U12 over the stack. */
static int FN(update)(ls_cuda_ctx *c, const lsk_bstack *s, int j0, int jb, char *err,
                      size_t errlen)
{
    int st = 0, mt = s->n - j0 - jb, lda = (int)s->a_cs;
    long long off21 = j0 + jb + (long long)j0 * lda, off12 = j0 + (long long)(j0 + jb) * lda;
    long long off22 = j0 + jb + (long long)(j0 + jb) * lda;
    const REAL m1 = -1, one = 1;
    REAL *A = (REAL *)s->A;
    LSC_BLAS(LSC_T(cublas, gemmStridedBatched)(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, mt, mt, jb, &m1,
                                               A + off21, lda, s->sA, A + off12, lda, s->sA,
                                               &one, A + off22, lda, s->sA, s->batch));
done:
    return st;
}

int FN(lsc_bblk_getrf)(ls_cuda_ctx *c, const lsk_bstack *s, size_t optin, char *err,
                       size_t errlen)
{
    int st = 0, n = s->n, rowmajor = s->a_rs != 1;
    int jbmax = FN(lsc_bblk_width)(n, optin), mstride = 1 + 4 * jbmax;
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
        LSC_CUDA(FN(lsk_btranspose)(n, (REAL *)s->A, cm.a_cs, s->sA, s->batch, c->stream));
    LSC_CUDA(lsk_bzero_info(s->info, s->batch, c->stream));
    for (int p = 0; p < npanels; p++) {
        int j0 = p * jbmax, jb = n - j0 < jbmax ? n - j0 : jbmax;
        int *mv = moves + (size_t)p * per_panel;
        LSC_CUDA(FN(lsk_bblk_panel)(&cm, j0, jb, mv, mstride, c->stream));
        if (j0 + jb < n) {
            LSC_CUDA(FN(lsk_bblk_right)(&cm, j0, jb, mv, mstride, c->stream));
            LSC_TRY(FN(update)(c, &cm, j0, jb, err, errlen));
        }
    }
    LSC_CUDA(FN(lsk_bblk_left)(&cm, jbmax, moves, mstride, c->stream));
    if (rowmajor)
        LSC_CUDA(FN(lsk_btranspose)(n, (REAL *)s->A, cm.a_cs, s->sA, s->batch, c->stream));
done:
    lsc_tmp_free(c, moves);
    return st;
}
