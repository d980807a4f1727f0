/* batched.c's work on device arrays for one precision (REAL, FN: typed.h),
 * instantiated there for double and float.
 * Defines: none (every function and object here is static) */
/* cuBLAS's getrfBatched on column-major matrices (a row-major stack is
 * transposed in place before and after, so its factors land row-major). */
static int FN(getrf_cublas)(ls_cuda_ctx *c, const lsk_bstack *s, char *err, size_t errlen)
{
    int st = 0, rowmajor = s->a_rs != 1;
    int lda = (int)(rowmajor ? s->a_rs : s->a_cs);
    REAL *A = (REAL *)s->A, **ptrs = NULL;
    LSC_TRY(lsc_tmp_alloc(c, (void **)&ptrs, sizeof(REAL *) * (size_t)s->batch, err, errlen));
    LSC_CUDA(FN(lsk_bpointers)(A, s->sA, s->batch, ptrs, c->stream));
    if (rowmajor)
        LSC_CUDA(FN(lsk_btranspose)(s->n, A, lda, s->sA, s->batch, c->stream));
    LSC_BLAS(LSC_T(cublas, getrfBatched)(c->blas, s->n, (REAL *const *)ptrs, lda, s->ipiv,
                                         s->info, s->batch));
    if (rowmajor)
        LSC_CUDA(FN(lsk_btranspose)(s->n, A, lda, s->sA, s->batch, c->stream));
done:
    lsc_tmp_free(c, ptrs);
    return st;
}

/* The factor kernel for n (with fused right-hand sides solved in the same
 * pass where it can): the fastest that can run by the tuning row t, or the
 * one LS_CUDA_BATCHED_PATH names where it can. */
static int FN(factor_path)(const lsc_tuning *t, int n, int fused, size_t optin)
{
    const int rows_max = LSC_IS_DOUBLE ? 64 : 128; /* k_batched.h: rows64, rows128 */
    int can[PATH_COUNT] = {n <= LSK_BTHREAD_MAXN, n <= LSK_BWARP_MAXN,
                           n <= rows_max && FN(lsk_brows_bytes)(n, LSK_BROWS_MAXRHS) <= optin,
                           n <= LSK_BSMEM_MAXN && FN(lsk_bsmem_bytes)(n, 0) <= optin,
                           FN(lsc_bblk_width)(n, optin) > 0, 1};
    for (int p = 0; p < PATH_COUNT; p++)
        if (ls_knob_is(LS_KNOB_CUDA_BATCHED_PATH, PATH_NAMES[p]) && can[p])
            return p;
    if (n >= t->bthread_min_n && n <= t->bthread_max_n && fused <= LSK_BTHREAD_MAXRHS)
        return PATH_THREAD;
    if (can[PATH_WARP])
        return PATH_WARP;
    if (n <= (LSC_IS_DOUBLE ? t->brows_max_n_d : t->brows_max_n_s) && can[PATH_ROWS])
        return PATH_ROWS;
    if (can[PATH_SMEM] && (n < t->bblk_min_n || !LSC_IS_DOUBLE))
        return PATH_SMEM;
    return can[PATH_BLOCKED] ? PATH_BLOCKED : can[PATH_SMEM] ? PATH_SMEM : PATH_CUBLAS;
}

/* batched.c's run_device for this precision. */
static int FN(run_device)(ls_cuda_ctx *c, const ls_batched_job *j, REAL *A, int *ipiv, REAL *B,
                          int *info, char *err, size_t errlen)
{
    int st = 0, n = j->n;
    int fused = j->op == LS_BATCHED_GESV ? j->nrhs : 0;
    int *piv_tmp = NULL;
    size_t optin = c->prop.sharedMemPerBlockOptin;
    if (n == 0) {
        LSC_CUDA(lsk_bzero_info(info, j->batch, c->stream));
        return 0;
    }
    if (j->op == LS_BATCHED_GETRS) {
        lsk_bstack s = stack_of(j, A, ipiv, B, info);
        if (j->nrhs > 65535)
            return LSC_FAIL(err, errlen, LS_ELIMIT, "batched getrs: nrhs %d > 65535", j->nrhs);
        if (j->nrhs > 0)
            LSC_CUDA(FN(lsk_bgetrs)(j->trans, &s, j->nrhs, NULL, getrs_smem(), c->stream));
        LSC_CUDA(lsk_bzero_info(info, j->batch, c->stream));
        return 0;
    }
    /* which factor kernel, and whether it solves too */
    int path = FN(factor_path)(c->tune, n, fused, optin);
    int thread = path == PATH_THREAD, warp = path == PATH_WARP, smem = path == PATH_SMEM;
    int rows = path == PATH_ROWS;
    int in_pass = (thread && fused <= LSK_BTHREAD_MAXRHS) || (warp && fused <= LSK_BWARP_MAXRHS) ||
                  (rows && fused <= LSK_BROWS_MAXRHS) ||
                  (smem && FN(lsk_bsmem_bytes)(n, fused) <= optin);
    /* A row-major stack whose factors the caller does not keep (gesv, no
     * ipiv) is factored as it lies, column-major: A^T = P L U, and A X = B
     * becomes U^T L^T P^T X = B, a transposed solve on the same factors (as
     * torch.linalg.solve does). It spares the blocked and cuBLAS paths the
     * two in-place transposes of the stack, and the others strided loads;
     * it costs the in-pass solve, so auto takes it only where the factor
     * kernel would not solve in its own pass. info is then that of A^T's
     * LU: nonzero for the same singular systems, maybe at another column. */
    ls_batched_job jt = *j;
    int transposed = fused > 0 && !j->ipiv && j->a_cs == 1 && j->a_rs != 1 &&
                     !ls_knob_is(LS_KNOB_CUDA_BATCHED_TRANSPOSED, "off") &&
                     (!in_pass || ls_knob_is(LS_KNOB_CUDA_BATCHED_TRANSPOSED, "on"));
    if (transposed) {
        jt.a_rs = 1, jt.a_cs = j->a_rs;
        in_pass = 0;
    }
    j = &jt;
    int later = fused > 0 && !in_pass; /* a separate getrs after the factorization */
    if (later && j->nrhs > 65535)
        return LSC_FAIL(err, errlen, LS_ELIMIT, "batched gesv: nrhs %d > 65535 at n = %d",
                        j->nrhs, n);
    if (!ipiv && (later || (!thread && !warp && !rows && !smem))) {
        LSC_TRY(lsc_tmp_alloc(c, (void **)&piv_tmp, sizeof(int) * (size_t)n * j->batch, err,
                          errlen));
        ipiv = piv_tmp;
    }
    lsk_bstack s = stack_of(j, A, ipiv, B, info);
    int nr = in_pass ? fused : 0;
    if (thread)
        LSC_CUDA(FN(lsk_bthread_lu)(&s, nr, c->stream));
    else if (warp)
        LSC_CUDA(FN(lsk_bwarp_lu)(&s, nr, c->stream));
    else if (rows && n <= 64)
        LSC_CUDA(FN(lsk_brows64_lu)(&s, nr, c->stream));
    else if (rows)
        LSC_CUDA(FN(lsk_brows128_lu)(&s, nr, c->stream));
    else if (smem)
        LSC_CUDA(FN(lsk_bsmem_lu)(&s, nr, optin, c->stream));
    else if (path == PATH_BLOCKED)
        LSC_TRY(FN(lsc_bblk_getrf)(c, &s, optin, err, errlen));
    else
        LSC_TRY(FN(getrf_cublas)(c, &s, err, errlen));
    if (later)
        LSC_CUDA(FN(lsk_bgetrs)(transposed ? 'T' : 'N', &s, j->nrhs, info, getrs_smem(),
                                 c->stream));
done:
    lsc_tmp_free(c, piv_tmp);
    return st;
}
