/* getrf on the device for method "lu": recursive right-looking LU with
 * partial pivoting on the column-major matrix (LAPACK's dgetrf2 shape): the
 * left half is factored, its interchanges applied to the right half, U12
 * solved with cuBLAS trsm and the trailing block updated with cuBLAS gemm,
 * then the right half is factored. Leaves run our panel kernels. Pivots and
 * info never leave the device: no host sync. */
#include "cuda_backend.h"
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LSC_LU_LEAF 16

typedef struct lu_run {
    ls_cuda_ctx *c;
    int dbl;
    size_t es;
    int m;
    char *A; /* device, column-major */
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
} lu_run;

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

static void *at(const lu_run *r, int i, int j)
{
    return r->A + ((size_t)i + (size_t)j * (size_t)r->lda) * r->es;
}

/* B (k x nc at (row0, col0)) = L^-1 B, L unit lower k x k at (row0, row0). */
static int trsm_lower_unit(const lu_run *r, int k, int nc, int row0, int col0)
{
    int st = 0;
    char *err = r->err;
    size_t errlen = r->errlen;
    if (k <= 0 || nc <= 0)
        return 0;
    if (r->dbl) {
        const double one = 1.0;
        LSC_BLAS(cublasDtrsm(r->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_UNIT, k, nc, &one, at(r, row0, row0), r->lda,
                             at(r, row0, col0), r->lda));
    } else {
        const float one = 1.0f;
        LSC_BLAS(cublasStrsm(r->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_UNIT, k, nc, &one, at(r, row0, row0), r->lda,
                             at(r, row0, col0), r->lda));
    }
done:
    return st;
}

/* A22 -= A21 A12 with A21 = (rows [i0, m), cols [j0, j0+k)), A12 = (rows
 * [j0, j0+k), cols [c0, c0+nc)), A22 = (rows [i0, m), cols [c0, c0+nc)). */
static int gemm_update(const lu_run *r, int i0, int j0, int k, int c0, int nc)
{
    int st = 0, mm = r->m - i0;
    char *err = r->err;
    size_t errlen = r->errlen;
    if (mm <= 0 || nc <= 0 || k <= 0)
        return 0;
    if (r->dbl) {
        const double one = 1.0, minus = -1.0;
        LSC_BLAS(cublasDgemm(r->blas, CUBLAS_OP_N, CUBLAS_OP_N, mm, nc, k, &minus,
                             at(r, i0, j0), r->lda, at(r, j0, c0), r->lda, &one, at(r, i0, c0),
                             r->lda));
    } else {
        const float one = 1.0f, minus = -1.0f;
        LSC_BLAS(cublasSgemm(r->blas, CUBLAS_OP_N, CUBLAS_OP_N, mm, nc, k, &minus,
                             at(r, i0, j0), r->lda, at(r, j0, c0), r->lda, &one, at(r, i0, c0),
                             r->lda));
    }
done:
    return st;
}

static int laswp_cols(const lu_run *r, int c0, int nc, int k0, int k1)
{
    int st = 0;
    char *err = r->err;
    size_t errlen = r->errlen;
    LSC_CUDA(lsk_laswp(r->dbl, nc, at(r, 0, c0), r->lda, k0, k1, r->d_ipiv, r->stream));
done:
    return st;
}

/* Factor columns [j0, j0+nc) over rows [j0, m); all of them lie left of
 * min(m, n), so every column has a pivot row. */
static int lu_rec(const lu_run *r, int j0, int nc)
{
    int st = 0;
    char *err = r->err;
    size_t errlen = r->errlen;
    int wsm = r->sm_moves ? lsk_panel_sm_width(r->dbl, r->m - j0, r->sm_maxw, r->sm_smem) : 0;
    if (wsm >= LSC_SM_MINW && nc <= wsm) {
        /* the whole leaf in one block: one block barrier a column */
        LSC_CUDA(lsk_panel_sm(r->dbl, r->m, r->ncols, j0, nc, r->A, r->lda, r->d_ipiv, r->d_info,
                              r->sm_moves, r->sm_smem, r->stream));
        return 0;
    }
    if (wsm >= LSC_SM_MINW)
        goto split; /* narrower leaves of the one-SM kind beat the others */
    if (r->moves && nc <= LSK_PUSH_MAXW && r->m - j0 <= LSC_PUSH_ROWS) {
        /* the whole leaf in one cluster's shared memory, candidates pushed:
         * one split barrier a column (k_panel_push.cu) */
        int R = 0, G = lsk_panel_push_shape(r->dbl, r->m - j0, nc, r->push_blocks, r->push_smem,
                                            &R);
        if (G > 0) {
            LSC_CUDA(lsk_panel_push(r->dbl, r->m, r->ncols, j0, nc, r->A, r->lda, r->d_ipiv,
                                    r->d_info, r->moves, G, R, r->stream));
            return 0;
        }
    }
    if (r->scratch && nc <= LSK_COOP_MAXW) {
        /* one launch for the leaf, one to swap the other columns: the
         * recursion above then needs no laswp of its own; one cluster when
         * the rows fit it (hardware barrier), else a cooperative grid */
        int R = 0, G = r->pairs && r->m - j0 <= r->cluster_rows
                           ? lsk_panel_cluster_shape(r->dbl, r->m - j0, nc, &R)
                           : 0;
        if (G > 0) {
            LSC_CUDA(lsk_panel_cluster(r->dbl, r->m, r->ncols, j0, nc, r->A, r->lda, r->d_ipiv,
                                       r->d_info, r->pairs, G, R, r->stream));
            return 0;
        }
        G = lsk_panel_coop_shape(r->dbl, r->m - j0, nc, r->coop_max_blocks,
                                            r->c->prop.multiProcessorCount, &R);
        LSC_CUDA(G > 0 ? lsk_panel_coop(r->dbl, r->m, r->ncols, j0, nc, r->A, r->lda, r->d_ipiv,
                                        r->d_info, r->scratch, G, R, r->stream)
                       : cudaErrorInvalidConfiguration);
        return 0;
    }
    if (nc <= LSC_LU_LEAF) {
        for (int j = j0; j < j0 + nc; j++) {
            LSC_CUDA(lsk_panel_column(r->dbl, r->m, j, j0, nc, r->A, r->lda, r->d_ipiv,
                                      r->d_info, r->stream));
            LSC_CUDA(lsk_panel_update(r->dbl, r->m, j, j0, nc, r->A, r->lda, r->stream));
        }
        return 0;
    }
split:;
    int n1 = nc / 2, n2 = nc - n1;
    LSC_TRY(lu_rec(r, j0, n1));
    if (!r->scratch)
        LSC_TRY(laswp_cols(r, j0 + n1, n2, j0, j0 + n1));
    LSC_TRY(trsm_lower_unit(r, n1, n2, j0, j0 + n1));
    LSC_TRY(gemm_update(r, j0 + n1, j0, n1, j0 + n1, n2));
    LSC_TRY(lu_rec(r, j0 + n1, n2));
    if (!r->scratch)
        LSC_TRY(laswp_cols(r, j0, n1, j0 + n1, j0 + nc));
done:
    return st;
}

/* Most blocks a cooperative leaf may use: one per SM, or fewer when
 * LS_CUDA_LU_COOP_BLOCKS says so (for measuring the barrier's cost). */
static int coop_max_blocks(const ls_cuda_ctx *c)
{
    const char *cap = getenv("LS_CUDA_LU_COOP_BLOCKS");
    int sms = c->prop.multiProcessorCount, g = cap ? atoi(cap) : 0;
    return g > 0 && g < sms ? g : sms;
}

static const char *leaf_choice(void)
{
    const char *leaf = getenv("LS_CUDA_LU_LEAF");
    return leaf ? leaf : "auto";
}

/* Blocks of the first (tallest) cooperative leaf, or 0 when the per-column
 * leaf must run: the cooperative launch needs every block resident (one per
 * SM) and the slice in shared memory. LS_CUDA_LU_LEAF=column|coop|cluster
 * forces a leaf (for comparisons; default: cluster where the rows fit,
 * cooperative above that). */
static int coop_blocks(const ls_cuda_ctx *c, int dbl, int m)
{
    size_t es = dbl ? sizeof(double) : sizeof(float);
    int R = 0, G = lsk_panel_coop_shape(dbl, m, LSK_COOP_MAXW, coop_max_blocks(c),
                                          c->prop.multiProcessorCount, &R);
    if (!c->prop.cooperativeLaunch || G <= 0 || !strcmp(leaf_choice(), "column") ||
        (size_t)R * LSK_COOP_MAXW * es + 4096 > c->prop.sharedMemPerBlockOptin)
        return 0;
    return G;
}

/* Dynamic shared memory a push leaf block may take: the opt-in limit less
 * the kernel's static arrays and a margin. */
static size_t push_smem_limit(const ls_cuda_ctx *c)
{
    return c->prop.sharedMemPerBlockOptin - 4096;
}

/* Whether the cluster leaf serves the leaves whose rows fit one cluster. */
static int use_cluster(ls_cuda_ctx *c, int dbl)
{
    const char *leaf = leaf_choice();
    if (strcmp(leaf, "auto") && strcmp(leaf, "cluster"))
        return 0;
    signed char *known = &c->lu_cluster[dbl ? 0 : 1];
    if (*known == 0)
        *known = lsk_panel_cluster_usable(dbl) ? 1 : -1;
    return *known > 0;
}

/* The push leaf's largest cluster for this precision (0: not usable here,
 * or another leaf forced by LS_CUDA_LU_LEAF), found once per context. */
static int push_blocks(ls_cuda_ctx *c, int dbl)
{
    const char *leaf = leaf_choice();
    if (strcmp(leaf, "auto") && strcmp(leaf, "push"))
        return 0;
    signed char *known = &c->lu_push[dbl ? 0 : 1];
    if (*known == 0) {
        int G = lsk_panel_push_max_blocks(dbl, push_smem_limit(c));
        *known = G > 0 ? (signed char)G : -1;
    }
    return *known > 0 ? *known : 0;
}

static int use_lookahead(int kmin);

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
    const char *e = getenv("LS_CUDA_LU_SMW");
    int w = e ? atoi(e) : 0;
    return w >= 1 && w < LSK_SM_MAXW ? w : LSK_SM_MAXW;
}

/* Whether the one-SM leaf takes the tallest leaf of m rows at a useful
 * width (LS_CUDA_LU_LEAF=auto or sm). */
static int sm_allowed(void)
{
    const char *leaf = leaf_choice();
    return !strcmp(leaf, "auto") || !strcmp(leaf, "sm");
}

static int use_sm(ls_cuda_ctx *c, int dbl, int m)
{
    return sm_allowed() && coop_blocks(c, dbl, m) > 0 &&
           lsk_panel_sm_width(dbl, m, sm_maxw(), sm_smem_limit(c)) >= LSC_SM_MINW;
}

const char *lsc_lu_leaf_kind(ls_cuda_ctx *c, int dbl, int n)
{
    int R = 0, cl = use_cluster(c, dbl), co = coop_blocks(c, dbl, n) > 0, pu = push_blocks(c, dbl);
    if (use_lookahead(n))
        return lsc_lookahead_panel_ours(c, dbl, n)
                   ? "look-ahead: recursive one-SM-leaf panel on a second stream beside the trailing update"
                   : "look-ahead: cuSOLVER panel on a second stream beside the trailing update";
    if (use_sm(c, dbl, n))
        return "recursive, one-SM leaf";
    if (sm_allowed() && co)
        return "recursive, multi-block leaves for tall leaves, one-SM leaf below";
    if (co && pu && n <= LSC_PUSH_ROWS &&
        lsk_panel_push_shape(dbl, n, LSK_PUSH_MAXW, pu, push_smem_limit(c), &R) > 0)
        return "recursive, push-cluster leaf";
    if (co && pu)
        return "recursive, push-cluster + cooperative leaves";
    if (cl && co && n <= LSC_CLUSTER_ROWS && lsk_panel_cluster_shape(dbl, n, LSK_COOP_MAXW, &R) > 0)
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
static int lu_workspace(ls_cuda_ctx *c, int dbl, int m, void **ws, int **pairs, int **moves,
                        int **sm_moves, char *err, size_t errlen)
{
    int G = coop_blocks(c, dbl, m);
    size_t coop = G > 0 ? (lsk_panel_coop_scratch(dbl, G) + 255) / 256 * 256 : 0;
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
    if (use_cluster(c, dbl))
        *pairs = (int *)((char *)c->lu_ws + coop);
    if (moves && push_blocks(c, dbl))
        *moves = (int *)((char *)c->lu_ws + coop) + LSK_LEAF_PAIRS;
    if (sm_moves) /* the push leaf's list: the two never run at once */
        *sm_moves = (int *)((char *)c->lu_ws + coop) + LSK_LEAF_PAIRS;
    return 0;
}

/* The look-ahead driver (cuSOLVER panel beside our trailing update) from
 * this size on; below it the recursive driver with one-SM leaves wins. H100,
 * both replayed as graphs, the look-ahead's interchanges gathered: 2.51 vs
 * 2.56 ms at 1024, 6.82 vs 6.12 at 2048, 19.3 vs 15.1 at 4096 (FP64).
 * LS_CUDA_LU_DRIVER=recursive|lookahead forces one. */
#define LSC_LOOKAHEAD_MIN 1536
static int use_lookahead(int kmin)
{
    const char *d = getenv("LS_CUDA_LU_DRIVER");
    if (d && !strcmp(d, "recursive"))
        return 0;
    if (d && !strcmp(d, "lookahead"))
        return 1;
    return kmin >= LSC_LOOKAHEAD_MIN;
}

int lsc_lu_workspace(ls_cuda_ctx *c, int dbl, int m, void **ws, int **pairs, char *err,
                     size_t errlen)
{
    return lu_workspace(c, dbl, m, ws, pairs, NULL, NULL, err, errlen);
}

typedef struct getrf_args {
    ls_cuda_ctx *c;
    int dbl, m, n, lda;
    void *dA;
    int *d_ipiv, *d_info;
} getrf_args;

static int getrf_enqueue(ls_cuda_ctx *c, int dbl, int m, int n, void *dA, int lda, int *d_ipiv,
                         int *d_info, char *err, size_t errlen);

static int getrf_enqueue_fn(void *arg, char *err, size_t errlen)
{
    const getrf_args *a = (const getrf_args *)arg;
    return getrf_enqueue(a->c, a->dbl, a->m, a->n, a->dA, a->lda, a->d_ipiv, a->d_info, err,
                         errlen);
}

int lsc_getrf_device(ls_cuda_ctx *c, int dbl, int m, int n, void *dA, int lda, int *d_ipiv,
                     int *d_info, char *err, size_t errlen)
{
    getrf_args a = {c, dbl, m, n, lda, dA, d_ipiv, d_info};
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (m <= 0 || n <= 0)
        return 0;
    if (cublasGetMathMode(c->blas, &mode) != CUBLAS_STATUS_SUCCESS)
        return getrf_enqueue_fn(&a, err, errlen);
    uintptr_t key[LSC_GRAPH_KEY] = {1,
                                    (uintptr_t)dbl,
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
    return lsc_graph_run(c, key, getrf_enqueue_fn, &a, err, errlen);
}

static int getrf_enqueue(ls_cuda_ctx *c, int dbl, int m, int n, void *dA, int lda, int *d_ipiv,
                         int *d_info, char *err, size_t errlen)
{
    int st = 0, kmin = m < n ? m : n;
    lu_run r = {c, dbl, dbl ? sizeof(double) : sizeof(float), m, (char *)dA, lda, d_ipiv, d_info,
                err, errlen, n, NULL, 0, NULL, 0, NULL, 0, 0, NULL, 0, 0, c->blas, c->stream};
    if (kmin <= 0)
        return 0;
    if (use_lookahead(kmin))
        return lsc_getrf_lookahead(c, dbl, m, n, dA, lda, d_ipiv, d_info, err, errlen);
    int *sm_moves = NULL;
    LSC_TRY(lu_workspace(c, dbl, m, &r.scratch, &r.pairs, &r.moves, &sm_moves, err, errlen));
    r.push_blocks = push_blocks(c, dbl);
    r.push_smem = push_smem_limit(c);
    r.sm_moves = r.scratch && sm_allowed() ? sm_moves : NULL; /* for the leaves it fits */
    r.sm_smem = sm_smem_limit(c);
    r.sm_maxw = sm_maxw();
    r.cluster_rows = strcmp(leaf_choice(), "cluster") ? LSC_CLUSTER_ROWS : m;
    r.coop_max_blocks = coop_max_blocks(c);
    LSC_TRY(lu_rec(&r, 0, kmin));
    if (n > kmin) { /* wide matrix: U's extra columns */
        if (!r.scratch)
            LSC_TRY(laswp_cols(&r, kmin, n - kmin, 0, kmin));
        LSC_TRY(trsm_lower_unit(&r, kmin, n - kmin, 0, kmin));
    }
done:
    return st;
}


int lsc_lookahead_panel_ours(ls_cuda_ctx *c, int dbl, int m)
{
    /* H100: cuSOLVER's panel wins inside the look-ahead (ours: 26.3 vs 20.4
     * ms at n = 4096 FP64); LS_CUDA_LU_PANEL=ours for measuring */
    const char *p = getenv("LS_CUDA_LU_PANEL");
    return p && !strcmp(p, "ours") && use_sm(c, dbl, m);
}

int lsc_getrf_panel(ls_cuda_ctx *c, int dbl, int m, int n, void *dA, int lda, int *d_ipiv,
                    int *d_info, cublasHandle_t blas, cudaStream_t stream, char *err,
                    size_t errlen)
{
    int st = 0, kmin = m < n ? m : n, *sm_moves = NULL;
    lu_run r = {c, dbl, dbl ? sizeof(double) : sizeof(float), m, (char *)dA, lda, d_ipiv, d_info,
                err, errlen, n, NULL, 0, NULL, 0, NULL, 0, 0, NULL, 0, 0, blas, stream};
    if (kmin <= 0)
        return 0;
    /* only the one-SM leaf and the cooperative leaf run here: the cluster
     * and push leaves keep their own move lists in the same workspace */
    LSC_TRY(lu_workspace(c, dbl, m, &r.scratch, &r.pairs, NULL, &sm_moves, err, errlen));
    r.pairs = NULL;
    if (!r.scratch || !use_sm(c, dbl, m))
        return LSC_FAIL(err, errlen, LS_EUNAVAIL, "the one-SM LU leaf cannot take %d rows", m);
    r.sm_moves = sm_moves;
    r.sm_smem = sm_smem_limit(c);
    r.sm_maxw = sm_maxw();
    r.coop_max_blocks = coop_max_blocks(c);
    LSC_TRY(lu_rec(&r, 0, kmin));
done:
    return st;
}
