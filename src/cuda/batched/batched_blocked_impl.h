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

/* The outer block: g panels whose moves and trailing GEMM go to the
 * columns right of the block once (k_batched_outer.cu); 1: one level. */
static int FN(outer_panels)(const ls_cuda_ctx *c, int jb)
{
    int want = (int)ls_knob_int(LS_KNOB_CUDA_BATCHED_NB); /* 0: unset */
    int nb = want ? want : c->tune->bblk_nb;
    if (nb % jb || nb < 2 * jb || nb > LSK_BBLK_MAXNB)
        return 1;
    return nb / jb;
}

/* The panel kernel: rows in registers where the panel has at most
 * LSK_BBLK_ROWS_MAXM rows, shared memory above (LS_CUDA_BATCHED_PANEL). */
static cudaError_t FN(panel)(const lsk_bstack *cm, int j0, int jb, int *mv, int mstride,
                             cudaStream_t s)
{
    if (cm->n - j0 <= LSK_BBLK_ROWS_MAXM && !ls_knob_is(LS_KNOB_CUDA_BATCHED_PANEL, "smem"))
        return FN(lsk_bblk_panel_rows)(cm, j0, jb, mv, mstride, s);
    return FN(lsk_bblk_panel)(cm, j0, jb, mv, mstride, s);
}

/* A[r0 .. r0+m, c0 .. c0+nc] -= A[r0 .. r0+m, k0 .. k0+kk] A[k0 .. k0+kk, c0 .. c0+nc]
 * over the stack. */
static int FN(update)(ls_cuda_ctx *c, const lsk_bstack *s, int r0, int c0, int m, int nc,
                      int k0, int kk, char *err, size_t errlen)
{
    int st = 0;
    long long lda = s->a_cs;
    const REAL m1 = -1, one = 1;
    REAL *A = (REAL *)s->A;
    if (m <= 0 || nc <= 0)
        return 0;
    LSC_BLAS(LSC_T(cublas, gemmStridedBatched)(
        c->blas, CUBLAS_OP_N, CUBLAS_OP_N, m, nc, kk, &m1, A + r0 + k0 * lda, (int)lda, s->sA,
        A + k0 + c0 * lda, (int)lda, s->sA, &one, A + r0 + c0 * lda, (int)lda, s->sA, s->batch));
done:
    return st;
}

/* One outer block, columns [J, Jend), panels p0 .. p0 + g - 1: the panels
 * and their updates within the block, the block's moves on its own
 * columns, then, right of the block, its composed moves, U12 = L11^-1 A12
 * panel by panel, and one GEMM of rank Jend - J. */
static int FN(outer_block)(ls_cuda_ctx *c, const lsk_bstack *cm, int J, int Jend, int jbmax,
                           int *moves, size_t per_panel, int mstride, int *list, int ostride,
                           char *err, size_t errlen)
{
    int st = 0, n = cm->n, p0 = J / jbmax, g = (Jend - J + jbmax - 1) / jbmax;
    if (Jend - J <= jbmax) { /* one panel: its moves ride with U12's solve */
        int *mv = moves + (size_t)p0 * per_panel;
        LSC_CUDA(FN(panel)(cm, J, Jend - J, mv, mstride, c->stream));
        LSC_CUDA(FN(lsk_bblk_right)(cm, J, Jend - J, Jend, n, mv, mstride, c->stream));
        return FN(update)(c, cm, Jend, Jend, n - Jend, n - Jend, J, Jend - J, err, errlen);
    }
    for (int p = p0; p < p0 + g; p++) {
        int j0 = p * jbmax, jb = Jend - j0 < jbmax ? Jend - j0 : jbmax;
        int *mv = moves + (size_t)p * per_panel;
        LSC_CUDA(FN(panel)(cm, j0, jb, mv, mstride, c->stream));
        LSC_CUDA(FN(lsk_bblk_right)(cm, j0, jb, j0 + jb, Jend, mv, mstride, c->stream));
        LSC_TRY(FN(update)(c, cm, j0 + jb, j0 + jb, n - j0 - jb, Jend - j0 - jb, j0, jb, err,
                           errlen));
    }
    LSC_CUDA(FN(lsk_bblk_left)(cm, jbmax, p0, p0 + g, 1, moves, mstride, c->stream));
    if (Jend == n)
        return 0;
    LSC_CUDA(lsk_bblk_compose(n, cm->batch, jbmax, p0, g, moves, mstride, list, ostride,
                              c->stream));
    LSC_CUDA(FN(lsk_bblk_apply)(cm, Jend, list, ostride, c->stream));
    for (int p = p0; p < p0 + g; p++) {
        int j0 = p * jbmax;
        LSC_CUDA(FN(lsk_bblk_right)(cm, j0, jbmax, Jend, n, NULL, mstride, c->stream));
        LSC_TRY(FN(update)(c, cm, j0 + jbmax, Jend, Jend - j0 - jbmax, n - Jend, j0, jbmax, err,
                           errlen));
    }
    LSC_TRY(FN(update)(c, cm, Jend, Jend, n - Jend, n - Jend, J, Jend - J, err, errlen));
done:
    return st;
}

int FN(lsc_bblk_getrf)(ls_cuda_ctx *c, const lsk_bstack *s, size_t optin, char *err,
                       size_t errlen)
{
    int st = 0, n = s->n, rowmajor = s->a_rs != 1;
    int jbmax = FN(lsc_bblk_width)(n, optin), mstride = 1 + 4 * jbmax;
    int npanels = jbmax ? (n + jbmax - 1) / jbmax : 0;
    int g = jbmax ? FN(outer_panels)(c, jbmax) : 1, ostride = 1 + 4 * g * jbmax;
    size_t per_panel = (size_t)mstride * (size_t)s->batch;
    int *moves = NULL, *list = NULL;
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
    if (g > 1)
        LSC_TRY(lsc_tmp_alloc(c, (void **)&list, sizeof(int) * (size_t)ostride * s->batch, err,
                              errlen));
    if (rowmajor)
        LSC_CUDA(FN(lsk_btranspose)(n, (REAL *)s->A, cm.a_cs, s->sA, s->batch, c->stream));
    LSC_CUDA(lsk_bzero_info(s->info, s->batch, c->stream));
    for (int J = 0; J < n; J += g * jbmax) {
        int Jend = n - J < g * jbmax ? n : J + g * jbmax;
        LSC_TRY(FN(outer_block)(c, &cm, J, Jend, jbmax, moves, per_panel, mstride, list, ostride,
                                err, errlen));
    }
    LSC_CUDA(FN(lsk_bblk_left)(&cm, jbmax, 0, npanels, g, moves, mstride, c->stream));
    if (rowmajor)
        LSC_CUDA(FN(lsk_btranspose)(n, (REAL *)s->A, cm.a_cs, s->sA, s->batch, c->stream));
done:
    lsc_tmp_free(c, list);
    lsc_tmp_free(c, moves);
    return st;
}
