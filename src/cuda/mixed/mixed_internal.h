/* The state shared by the three files of the mixed-precision solver on
 * the device: mixed_cuda.c (lsc_mixed_open, the workspace), mixed_factor.c
 * (the factorizations) and mixed_refine.c (the refinement steps and the
 * ops table). Private to src/cuda/mixed; the slot's own declaration is
 * mixed_cuda.h. */
#ifndef LS_CUDA_MIXED_INTERNAL_H
#define LS_CUDA_MIXED_INTERNAL_H

#include <stddef.h>

#include "algo/mixed.h"
#include "cuda/common/cuda_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The buffers kept in the context between solves; each only grows. */
struct lsc_mixed_ws {
    float *As;    /* low-precision factors (FP32 storage), n x n */
    double *Ad;   /* n x n: the low factors in FP64 (GMRES-IR), or the copy
                   * of A the residuals read once A holds the FP64 factors */
    double *vec;  /* R, V, T, scales, GMRES h and y, norm bits, equilibration */
    int *iw;      /* pivots (low, FP64), info, range flag, diagonal min/max */
    double *host; /* scalars read back (pinned when the runtime allows) */
    size_t as_bytes, ad_bytes, vec_bytes, iw_bytes, host_bytes;
    int host_pinned;
};

typedef struct cuda_mx {
    ls_cuda_ctx *c;
    struct lsc_mixed_ws *w;
    ls_mixed_problem pb;
    float *As;      /* w->As */
    double *Ad;     /* w->Ad once it holds the low factors in FP64, else NULL */
    double *A0;     /* w->Ad once it holds the original A, else NULL */
    double *R, *V;  /* n x nrhs; n x (restart + 1) */
    float *T;       /* n x nrhs */
    int *ipiv_s, *ipiv_d, *info, *flag; /* low pivots, FP64 pivots, info, range flag */
    unsigned *mm;   /* auto's diagonal min and max (float bits) */
    double *scal;   /* column scales (nrhs) */
    double *gh;     /* GMRES: two Gram-Schmidt passes' coefficients and the norm (2 m1 + 1) */
    double *gy;     /* GMRES: y (m1) */
    double *eq_r, *eq_c; /* fp16 / bf16: A was factored as diag(eq_r) A diag(eq_c) */
    double *rbt_m;       /* rbt: the butterflies' multipliers (4 n), else NULL */
    int nopiv;           /* rbt or none: LU without interchanges */
    int auto_pick;       /* the caller asked for auto: tf32 may escalate to fp32 */
    unsigned long long *bits; /* two norms */
    /* host side of the read-backs (w->host) */
    unsigned long long *h_bits; /* 2 */
    int *h_int;                 /* info, flag, diagonal min, max */
    double *h_h, *h_y;          /* 2 m1 + 1; m1 */
} cuda_mx;

/* The FP64 n x n buffer; when the device is full and the low factors are
 * done with (fallback), their buffer is given up first (mixed_cuda.c). */
int lsc_mx_ws_grow_ad(cuda_mx *m, int may_drop_low, char *err, size_t errlen);

/* The ops table's factor and factor_used slots (mixed_factor.c). */
int lsc_mx_factor(void *ws, int level, int *info, int *kept, char *err, size_t errlen);
ls_factor_prec lsc_mx_factor_used(void *ws);

/* The operations lsc_mixed_open hands out (mixed_refine.c). */
extern const ls_mixed_ops lsc_mx_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif
