/* The recursive getrf of getrf.c for one precision (REAL, FN: typed.h),
 * instantiated there for double and float.
 * Defines: lsc_lu_leaf_kind_d, lsc_lu_leaf_kind_s, lsc_lu_workspace_d,
 *   lsc_lu_workspace_s, lsc_getrf_device_d, lsc_getrf_device_s,
 *   lsc_lookahead_panel_ours_d, lsc_lookahead_panel_ours_s, lsc_getrf_panel_d,
 *   lsc_getrf_panel_s */
typedef struct FN(lu_run) {
    ls_cuda_ctx *c;
    int m;
    REAL *A; /* device, column-major */
    int lda;
    int *d_ipiv, *d_info;
    char *err;
    size_t errlen;
    int ncols;      /* all columns of A: the cooperative leaf swaps across them */
    void *scratch;  /* cooperative leaf workspace; NULL -> per-column leaf */
    int coop_max_blocks;
    int *pairs;     /* the cluster leaf's move list (device); NULL -> no cluster leaf */
    int cluster_rows; /* leaves of at most this many rows take the cluster leaf */
    int *moves;       /* the push leaf's move list (device); NULL -> no push leaf */
    int push_blocks;  /* largest cluster the push leaf may use */
    size_t push_smem; /* its dynamic shared memory limit per block */
    int *sm_moves;    /* the one-SM leaf's move list (device); NULL -> no one-SM leaf */
    size_t sm_smem;   /* its dynamic shared memory limit */
    int sm_maxw;      /* its widest leaf */
    cublasHandle_t blas; /* bound to stream */
    cudaStream_t stream;
} FN(lu_run);

static REAL *FN(at)(const FN(lu_run) *r, int i, int j)
{
    return r->A + ((size_t)i + (size_t)j * (size_t)r->lda);
}

/* B (k x nc at (row0, col0)) = L^-1 B, L unit lower k x k at (row0, row0). */
static int FN(trsm_lower_unit)(const FN(lu_run) *r, int k, int nc, int row0, int col0)
{
    int st = 0;
    char *err = r->err;
    size_t errlen = r->errlen;
    if (k <= 0 || nc <= 0)
        return 0;
    const REAL one = 1;
    LSC_BLAS(LSC_T(cublas, trsm)(r->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_UNIT, k, nc, &one, FN(at)(r, row0, row0), r->lda,
                                 FN(at)(r, row0, col0), r->lda));
done:
    return st;
}

/* A22 -= A21 A12 with A21 = (rows [i0, m), cols [j0, j0+k)), A12 = (rows
 * [j0, j0+k), cols [c0, c0+nc)), A22 = (rows [i0, m), cols [c0, c0+nc)). */
static int FN(gemm_update)(const FN(lu_run) *r, int i0, int j0, int k, int c0, int nc)
{
    int st = 0, mm = r->m - i0;
    char *err = r->err;
    size_t errlen = r->errlen;
    if (mm <= 0 || nc <= 0 || k <= 0)
        return 0;
    const REAL one = 1, minus = -1;
    LSC_BLAS(LSC_T(cublas, gemm)(r->blas, CUBLAS_OP_N, CUBLAS_OP_N, mm, nc, k, &minus,
                                 FN(at)(r, i0, j0), r->lda, FN(at)(r, j0, c0), r->lda, &one,
                                 FN(at)(r, i0, c0), r->lda));
done:
    return st;
}

static int FN(laswp_cols)(const FN(lu_run) *r, int c0, int nc, int k0, int k1)
{
    int st = 0;
    char *err = r->err;
    size_t errlen = r->errlen;
    LSC_CUDA(FN(lsk_laswp)(nc, FN(at)(r, 0, c0), r->lda, k0, k1, r->d_ipiv, r->stream));
done:
    return st;
}

/* Factor columns [j0, j0+nc) over rows [j0, m); all of them lie left of
 * min(m, n), so every column has a pivot row. */
static int FN(lu_rec)(const FN(lu_run) *r, int j0, int nc)
{
    int st = 0;
    char *err = r->err;
    size_t errlen = r->errlen;
    int wsm = r->sm_moves ? FN(lsk_panel_sm_width)(r->m - j0, r->sm_maxw, r->sm_smem) : 0;
    if (wsm >= LSC_SM_MINW && nc <= wsm) {
        /* the whole leaf in one block: one block barrier a column */
        LSC_CUDA(FN(lsk_panel_sm)(r->m, r->ncols, j0, nc, r->A, r->lda, r->d_ipiv, r->d_info,
                              r->sm_moves, r->sm_smem, r->stream));
        return 0;
    }
    if (wsm >= LSC_SM_MINW)
        goto split; /* narrower leaves of the one-SM kind beat the others */
    if (r->moves && nc <= LSK_PUSH_MAXW && r->m - j0 <= r->c->tune->push_rows) {
        /* the whole leaf in one cluster's shared memory, candidates pushed:
         * one split barrier a column (k_panel_push.cu) */
        int R = 0, G = FN(lsk_panel_push_shape)(r->m - j0, nc, r->push_blocks, r->push_smem,
                                            &R);
        if (G > 0) {
            LSC_CUDA(FN(lsk_panel_push)(r->m, r->ncols, j0, nc, r->A, r->lda, r->d_ipiv,
                                    r->d_info, r->moves, G, R, r->stream));
            return 0;
        }
    }
    if (r->scratch && nc <= LSK_COOP_MAXW) {
        /* one launch for the leaf, one to swap the other columns: the
         * recursion above then needs no laswp of its own; one cluster when
         * the rows fit it (hardware barrier), else a cooperative grid */
        int R = 0, G = r->pairs && r->m - j0 <= r->cluster_rows
                           ? FN(lsk_panel_cluster_shape)(r->m - j0, nc, &R)
                           : 0;
        if (G > 0) {
            LSC_CUDA(FN(lsk_panel_cluster)(r->m, r->ncols, j0, nc, r->A, r->lda, r->d_ipiv,
                                       r->d_info, r->pairs, G, R, r->stream));
            return 0;
        }
        G = FN(lsk_panel_coop_shape)(r->m - j0, nc, r->coop_max_blocks,
                                            r->c->prop.multiProcessorCount, &R);
        LSC_CUDA(G > 0 ? FN(lsk_panel_coop)(r->m, r->ncols, j0, nc, r->A, r->lda, r->d_ipiv,
                                        r->d_info, r->scratch, G, R, r->stream)
                       : cudaErrorInvalidConfiguration);
        return 0;
    }
    if (nc <= LSC_LU_LEAF) {
        for (int j = j0; j < j0 + nc; j++) {
            LSC_CUDA(FN(lsk_panel_column)(r->m, j, j0, nc, r->A, r->lda, r->d_ipiv,
                                      r->d_info, r->stream));
            LSC_CUDA(FN(lsk_panel_update)(r->m, j, j0, nc, r->A, r->lda, r->stream));
        }
        return 0;
    }
split:;
    int n1 = nc / 2, n2 = nc - n1;
    LSC_TRY(FN(lu_rec)(r, j0, n1));
    if (!r->scratch)
        LSC_TRY(FN(laswp_cols)(r, j0 + n1, n2, j0, j0 + n1));
    LSC_TRY(FN(trsm_lower_unit)(r, n1, n2, j0, j0 + n1));
    LSC_TRY(FN(gemm_update)(r, j0 + n1, j0, n1, j0 + n1, n2));
    LSC_TRY(FN(lu_rec)(r, j0 + n1, n2));
    if (!r->scratch)
        LSC_TRY(FN(laswp_cols)(r, j0, n1, j0 + n1, j0 + nc));
done:
    return st;
}

/* Blocks of the first (tallest) cooperative leaf, or 0 when the per-column
 * leaf must run: the cooperative launch needs every block resident (one per
 * SM) and the slice in shared memory. LS_CUDA_LU_LEAF=column|coop|cluster
 * forces a leaf (for comparisons; default: cluster where the rows fit,
 * cooperative above that). */
static int FN(coop_blocks)(const ls_cuda_ctx *c, int m)
{
    size_t es = sizeof(REAL);
    int R = 0, G = FN(lsk_panel_coop_shape)(m, LSK_COOP_MAXW, coop_max_blocks(c),
                                            c->prop.multiProcessorCount, &R);
    if (!c->prop.cooperativeLaunch || G <= 0 || !strcmp(leaf_choice(), "column") ||
        (size_t)R * LSK_COOP_MAXW * es + 4096 > c->prop.sharedMemPerBlockOptin)
        return 0;
    return G;
}

/* Whether the cluster leaf serves the leaves whose rows fit one cluster. */
static int FN(use_cluster)(ls_cuda_ctx *c)
{
    const char *leaf = leaf_choice();
    if (strcmp(leaf, "auto") && strcmp(leaf, "cluster"))
        return 0;
    signed char *known = &c->lu_cluster[LSC_PREC_SLOT];
    if (*known == 0)
        *known = FN(lsk_panel_cluster_usable)() ? 1 : -1;
    return *known > 0;
}

/* The push leaf's largest cluster for this precision (0: not usable here,
 * or another leaf forced by LS_CUDA_LU_LEAF), found once per context. */
static int FN(push_blocks)(ls_cuda_ctx *c)
{
    const char *leaf = leaf_choice();
    if (strcmp(leaf, "auto") && strcmp(leaf, "push"))
        return 0;
    signed char *known = &c->lu_push[LSC_PREC_SLOT];
    if (*known == 0) {
        int G = FN(lsk_panel_push_max_blocks)(push_smem_limit(c));
        *known = G > 0 ? (signed char)G : -1;
    }
    return *known > 0 ? *known : 0;
}

static int FN(use_sm)(ls_cuda_ctx *c, int m)
{
    return sm_allowed() && FN(coop_blocks)(c, m) > 0 &&
           FN(lsk_panel_sm_width)(m, sm_maxw(), sm_smem_limit(c)) >= LSC_SM_MINW;
}

const char *FN(lsc_lu_leaf_kind)(ls_cuda_ctx *c, int n)
{
    int R = 0, cl = FN(use_cluster)(c), co = FN(coop_blocks)(c, n) > 0, pu = FN(push_blocks)(c);
    lsc_lu_small_shape small;
    if (lsc_lu_small_plan(c, LSC_IS_DOUBLE ? LS_DOUBLE : LS_SINGLE, n, 0, &small))
        return small.in_smem ? "one launch, the matrix in one thread-block cluster's shared memory"
                             : "one launch of one thread-block cluster, the matrix in place (L2)";
    if (use_lookahead(c, n))
        return FN(lsc_lookahead_panel_ours)(c, n)
                   ? "look-ahead: recursive panel (one-SM and cooperative leaves) on a second stream beside the trailing update"
                   : "look-ahead: cuSOLVER panel on a second stream beside the trailing update";
    if (FN(use_sm)(c, n))
        return "recursive, one-SM leaf";
    if (sm_allowed() && co)
        return "recursive, multi-block leaves for tall leaves, one-SM leaf below";
    if (co && pu && n <= c->tune->push_rows &&
        FN(lsk_panel_push_shape)(n, LSK_PUSH_MAXW, pu, push_smem_limit(c), &R) > 0)
        return "recursive, push-cluster leaf";
    if (co && pu)
        return "recursive, push-cluster + cooperative leaves";
    if (cl && co && n <= c->tune->cluster_rows && FN(lsk_panel_cluster_shape)(n, LSK_COOP_MAXW, &R) > 0)
        return "recursive, cluster leaf";
    if (cl && co)
        return "recursive, cooperative + cluster leaves";
    return co ? "recursive, cooperative leaf" : "recursive, per-column leaf";
}

/* The leaves' workspace for m rows (the cooperative leaf's scratch, the
 * cluster leaf's move list, the push leaf's move list), kept in the context
 * so that repeated solves (and the timed region) allocate nothing; NULL in
 * *ws when the per-column leaf will run, NULL in *pairs / *moves when the
 * cluster / push leaf will not. */
static int FN(lu_workspace)(ls_cuda_ctx *c, int m, void **ws, int **pairs, int **moves,
                            int **sm_moves, char *err, size_t errlen)
{
    int G = FN(coop_blocks)(c, m);
    size_t coop = G > 0 ? (FN(lsk_panel_coop_scratch)(G) + 255) / 256 * 256 : 0;
    size_t need = G > 0 ? coop + sizeof(int) * (LSK_LEAF_PAIRS + LSK_PUSH_MOVES) : 0;
    *ws = NULL;
    *pairs = NULL;
    if (moves)
        *moves = NULL;
    if (sm_moves)
        *sm_moves = NULL;
    if (need == 0)
        return 0;
    if (c->lu_ws_bytes < need) {
        cudaFree(c->lu_ws);
        c->lu_ws = NULL;
        c->lu_ws_bytes = 0;
        c->ws_gen++;
        int st = lsc_malloc(&c->lu_ws, need, 1, err, errlen);
        if (st != 0)
            return st;
        c->lu_ws_bytes = need;
    }
    *ws = c->lu_ws;
    if (FN(use_cluster)(c))
        *pairs = (int *)((char *)c->lu_ws + coop);
    if (moves && FN(push_blocks)(c))
        *moves = (int *)((char *)c->lu_ws + coop) + LSK_LEAF_PAIRS;
    if (sm_moves) /* the push leaf's list: the two never run at once */
        *sm_moves = (int *)((char *)c->lu_ws + coop) + LSK_LEAF_PAIRS;
    return 0;
}

int FN(lsc_lu_workspace)(ls_cuda_ctx *c, int m, void **ws, int **pairs, char *err, size_t errlen)
{
    return FN(lu_workspace)(c, m, ws, pairs, NULL, NULL, err, errlen);
}

typedef struct FN(getrf_args) {
    ls_cuda_ctx *c;
    int m, n, lda;
    REAL *dA;
    int *d_ipiv, *d_info;
} FN(getrf_args);

static int FN(getrf_enqueue)(ls_cuda_ctx *c, int m, int n, REAL *dA, int lda, int *d_ipiv,
                             int *d_info, char *err, size_t errlen);

static int FN(getrf_enqueue_fn)(void *arg, char *err, size_t errlen)
{
    const FN(getrf_args) *a = (const FN(getrf_args) *)arg;
    return FN(getrf_enqueue)(a->c, a->m, a->n, a->dA, a->lda, a->d_ipiv, a->d_info, err, errlen);
}

int FN(lsc_getrf_device)(ls_cuda_ctx *c, int m, int n, REAL *dA, int lda, int *d_ipiv,
                         int *d_info, char *err, size_t errlen)
{
    FN(getrf_args) a = {c, m, n, lda, dA, d_ipiv, d_info};
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (m <= 0 || n <= 0)
        return 0;
    if (cublasGetMathMode(c->blas, &mode) != CUBLAS_STATUS_SUCCESS)
        return FN(getrf_enqueue_fn)(&a, err, errlen);
    uintptr_t key[LSC_GRAPH_KEY] = {1,
                                    (uintptr_t)LSC_IS_DOUBLE,
                                    (uintptr_t)(unsigned)m,
                                    (uintptr_t)(unsigned)n,
                                    (uintptr_t)dA,
                                    (uintptr_t)(unsigned)lda,
                                    (uintptr_t)d_ipiv,
                                    (uintptr_t)d_info,
                                    (uintptr_t)c->stream,
                                    (uintptr_t)mode,
                                    0,
                                    0};
    return lsc_graph_run(c, m < n ? m : n, key, FN(getrf_enqueue_fn), &a, err, errlen);
}

static int FN(getrf_enqueue)(ls_cuda_ctx *c, int m, int n, REAL *dA, int lda, int *d_ipiv,
                             int *d_info, char *err, size_t errlen)
{
    int st = 0, kmin = m < n ? m : n;
    FN(lu_run) r = {c, m, dA, lda, d_ipiv, d_info, err, errlen, n, NULL, 0, NULL, 0, NULL, 0, 0,
                    NULL, 0, 0, c->blas, c->stream};
    lsc_lu_small_shape small;
    if (kmin <= 0)
        return 0;
    if (m == n && lsc_lu_small_plan(c, LSC_IS_DOUBLE ? LS_DOUBLE : LS_SINGLE, n, 0,
                                    &small)) /* one launch, one cluster */
        return lsc_lu_small_run(c, LSC_IS_DOUBLE ? LS_DOUBLE : LS_SINGLE, n, 0, dA, lda, NULL, 0,
                                d_ipiv, d_info, &small, err, errlen);
    if (use_lookahead(c, kmin))
        return FN(lsc_getrf_lookahead)(c, m, n, dA, lda, d_ipiv, d_info, err, errlen);
    int *sm_moves = NULL;
    LSC_TRY(FN(lu_workspace)(c, m, &r.scratch, &r.pairs, &r.moves, &sm_moves, err, errlen));
    r.push_blocks = FN(push_blocks)(c);
    r.push_smem = push_smem_limit(c);
    r.sm_moves = r.scratch && sm_allowed() ? sm_moves : NULL; /* for the leaves it fits */
    r.sm_smem = sm_smem_limit(c);
    r.sm_maxw = sm_maxw();
    r.cluster_rows = strcmp(leaf_choice(), "cluster") ? c->tune->cluster_rows : m;
    r.coop_max_blocks = coop_max_blocks(c);
    LSC_TRY(FN(lu_rec)(&r, 0, kmin));
    if (n > kmin) { /* wide matrix: U's extra columns */
        if (!r.scratch)
            LSC_TRY(FN(laswp_cols)(&r, kmin, n - kmin, 0, kmin));
        LSC_TRY(FN(trsm_lower_unit)(&r, kmin, n - kmin, 0, kmin));
    }
done:
    return st;
}


int FN(lsc_lookahead_panel_ours)(ls_cuda_ctx *c, int m)
{
    /* H100: cuSOLVER's panel wins inside the look-ahead (ours, v1 one-SM
     * leaf: 26.3 vs 20.4 ms at n = 4096 FP64); LS_CUDA_LU_PANEL=ours for
     * measuring, with cooperative leaves where the rows outgrow one SM
     * (LS_CUDA_LU_COOP_BLOCKS caps their blocks, leaving SMs to the GEMM) */
    return ls_knob_is(LS_KNOB_CUDA_LU_PANEL, "ours") &&
           (FN(use_sm)(c, m) || FN(coop_blocks)(c, m) > 0);
}

int FN(lsc_getrf_panel)(ls_cuda_ctx *c, int m, int n, REAL *dA, int lda, int *d_ipiv,
                        int *d_info, cublasHandle_t blas, cudaStream_t stream, char *err,
                        size_t errlen)
{
    int st = 0, kmin = m < n ? m : n, *sm_moves = NULL;
    FN(lu_run) r = {c, m, dA, lda, d_ipiv, d_info, err, errlen, n, NULL, 0, NULL, 0, NULL, 0, 0,
                    NULL, 0, 0, blas, stream};
    if (kmin <= 0)
        return 0;
    /* only the one-SM leaf and the cooperative leaf run here: the cluster
     * and push leaves keep their own move lists in the same workspace */
    LSC_TRY(FN(lu_workspace)(c, m, &r.scratch, &r.pairs, NULL, &sm_moves, err, errlen));
    r.pairs = NULL;
    if (!r.scratch) /* no cooperative leaf (and so no one-SM leaf either) */
        return LSC_FAIL(err, errlen, LS_EUNAVAIL, "no LU panel leaf can take %d rows here", m);
    r.sm_moves = sm_allowed() ? sm_moves : NULL; /* LS_CUDA_LU_LEAF may rule it out */
    r.sm_smem = sm_smem_limit(c);
    r.sm_maxw = sm_maxw();
    r.coop_max_blocks = coop_max_blocks(c);
    LSC_TRY(FN(lu_rec)(&r, 0, kmin));
done:
    return st;
}
