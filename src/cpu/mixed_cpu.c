/* The mixed-precision solver's operations on host arrays (algo/mixed.h):
 * FP32 LU (the linked LAPACK's sgetrf, else our reference getrf), FP64
 * residuals and GMRES vectors with the linked BLAS (else plain loops).
 * The CPU has no tensor-core formats: FP32 is its only low precision. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/mixed.h"
#include "core/util.h"
#include "cpu_internal.h"

/* Fortran BLAS / LAPACK (LP64), found in liblinsolve's own dependencies. */
typedef void (*dgemm_fn)(const char *ta, const char *tb, const int *m, const int *n,
                         const int *k, const double *alpha, const double *A, const int *lda,
                         const double *B, const int *ldb, const double *beta, double *C,
                         const int *ldc, size_t, size_t);
typedef void (*dgemv_fn)(const char *t, const int *m, const int *n, const double *alpha,
                         const double *A, const int *lda, const double *x, const int *incx,
                         const double *beta, double *y, const int *incy, size_t);

typedef struct cpu_mx {
    ls_mixed_problem pb;
    float *As;   /* FP32 factors, n x n */
    double *Ad;  /* the same factors in FP64, for GMRES-IR (made on first use) */
    int *ipiv_s; /* their pivots */
    double *A0;  /* the original A once A holds the FP64 factors (NULL before) */
    double *R;   /* n x nrhs */
    double *V;   /* n x (restart + 1) */
    double *w;   /* n */
    float *t;    /* n x nrhs, the FP32 right-hand sides of the low solves */
    dgemm_fn dgemm;
    dgemv_fn dgemv;
} cpu_mx;

static const double *orig_A(const cpu_mx *m, int *lda)
{
    *lda = m->A0 ? m->pb.n : m->pb.lda;
    return m->A0 ? m->A0 : m->pb.A;
}

/* y = alpha op(A) x + beta y, A m x k. */
static void gemv(const cpu_mx *m, char t, int rows, int cols, double alpha, const double *A,
                 int lda, const double *x, double beta, double *y)
{
    const int one = 1;
    if (m->dgemv) {
        m->dgemv(&t, &rows, &cols, &alpha, A, &lda, x, &one, &beta, y, &one, 1);
        return;
    }
    if (t == 'T') {
        for (int j = 0; j < cols; j++) {
            double s = 0;
            for (int i = 0; i < rows; i++)
                s += A[i + (size_t)j * lda] * x[i];
            y[j] = alpha * s + beta * y[j];
        }
        return;
    }
    for (int i = 0; i < rows; i++)
        y[i] = beta == 0 ? 0 : y[i] * beta; /* BLAS: beta 0 ignores y */
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++)
            y[i] += alpha * A[i + (size_t)j * lda] * x[j];
}

static double nrm2(int n, const double *x)
{
    double scale = 0, ssq = 1; /* LAPACK's dnrm2 recurrence: no overflow */
    for (int i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (a == 0)
            continue;
        if (scale < a) {
            ssq = 1 + ssq * (scale / a) * (scale / a);
            scale = a;
        } else {
            ssq += (a / scale) * (a / scale);
        }
    }
    return scale * sqrt(ssq);
}

/* Largest row sum of |M| (n x c). */
static double norm_inf(int n, int c, const double *M, int ld)
{
    return ls_norm_inf(n, c, M, ld);
}

/* The low solve in FP64 arithmetic on the FP32 factors (GMRES-IR): GMRES
 * needs M^-1 A applied accurately, which FP32 triangular solves are not
 * once cond(A) u32 nears 1. */
#define MX_LOW_IN_FP64 2

/* y = M^-1 x for c columns with the level's factors, x and y FP64 (may
 * alias). The FP32 solve sees x / ||x||inf, so neither tiny nor huge
 * residuals leave FP32's range. */
static void solve_level(cpu_mx *m, int level, int c, const double *x, int ldx, double *y,
                        int ldy)
{
    int n = m->pb.n, info = 0;
    if (level == LS_MX_FP64 || level == MX_LOW_IN_FP64) {
        int fp64 = level == LS_MX_FP64, lda = fp64 ? m->pb.lda : n;
        const double *F = fp64 ? m->pb.A : m->Ad;
        const int *ip = fp64 ? m->pb.ipiv : m->ipiv_s;
        for (int j = 0; j < c; j++)
            if (y != x)
                memcpy(y + (size_t)j * ldy, x + (size_t)j * ldx, (size_t)n * sizeof(double));
        if (ls_cpu_lapack_getrs(LS_DOUBLE, n, c, F, lda, ip, y, ldy, &info))
            ls_cpu_getrs_d('N', n, c, F, lda, ip, y, ldy);
        return;
    }
    for (int j = 0; j < c; j++) {
        const double *xj = x + (size_t)j * ldx;
        double s = norm_inf(n, 1, xj, n);
        double inv = s > 0 && isfinite(s) ? 1.0 / s : 1.0;
        float *tj = m->t + (size_t)j * n;
        for (int i = 0; i < n; i++)
            tj[i] = (float)(xj[i] * inv);
        if (ls_cpu_lapack_getrs(LS_SINGLE, n, 1, m->As, n, m->ipiv_s, tj, n, &info))
            ls_cpu_getrs_s('N', n, 1, m->As, n, m->ipiv_s, tj, n);
        double back = s > 0 && isfinite(s) ? s : 1.0;
        double *yj = y + (size_t)j * ldy;
        for (int i = 0; i < n; i++)
            yj[i] = (double)tj[i] * back;
    }
}

static int mx_norms(void *ws, double *anorm, double *bnorm, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    *anorm = norm_inf(m->pb.n, m->pb.n, m->pb.A, m->pb.lda);
    *bnorm = norm_inf(m->pb.n, m->pb.nrhs, m->pb.B, m->pb.ldb);
    return 0;
}

static int mx_factor(void *ws, int level, int *info, int *kept, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    int n = m->pb.n;
    *info = 0;
    *kept = 1;
    if (level == LS_MX_LOW) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double a = m->pb.A[i + (size_t)j * m->pb.lda];
                if (fabs(a) > FLT_MAX) {
                    *info = LS_MX_INFO_RANGE;
                    return 0;
                }
                m->As[i + (size_t)j * n] = (float)a;
            }
        if (ls_cpu_lapack_getrf(LS_SINGLE, n, m->As, n, m->ipiv_s, info))
            *info = ls_cpu_getrf_s(n, n, m->As, n, m->ipiv_s, 1);
        return 0;
    }
    /* FP64: the original A kept for residuals, then A factored in place */
    m->A0 = ls_malloc((size_t)n * (size_t)n * sizeof(double));
    *kept = m->A0 != NULL;
    for (int j = 0; m->A0 && j < n; j++)
        memcpy(m->A0 + (size_t)j * n, m->pb.A + (size_t)j * m->pb.lda, (size_t)n * sizeof(double));
    if (ls_cpu_lapack_getrf(LS_DOUBLE, n, m->pb.A, m->pb.lda, m->pb.ipiv, info))
        *info = ls_cpu_getrf_d(n, n, m->pb.A, m->pb.lda, m->pb.ipiv, 1);
    return 0;
}

static int mx_start(void *ws, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    for (int j = 0; j < m->pb.nrhs; j++) {
        memset(m->pb.X + (size_t)j * m->pb.ldx, 0, (size_t)m->pb.n * sizeof(double));
        memcpy(m->R + (size_t)j * m->pb.n, m->pb.B + (size_t)j * m->pb.ldb,
               (size_t)m->pb.n * sizeof(double));
    }
    return 0;
}

static int mx_residual(void *ws, double *rnorm, double *xnorm, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    int n = m->pb.n, c = m->pb.nrhs, lda = 0;
    const double *A = orig_A(m, &lda);
    for (int j = 0; j < c; j++)
        memcpy(m->R + (size_t)j * n, m->pb.B + (size_t)j * m->pb.ldb, (size_t)n * sizeof(double));
    if (m->dgemm) {
        const double minus = -1, one = 1;
        m->dgemm("N", "N", &n, &c, &n, &minus, A, &lda, m->pb.X, &m->pb.ldx, &one, m->R, &n, 1,
                 1);
    } else {
        for (int j = 0; j < c; j++)
            gemv(m, 'N', n, n, -1.0, A, lda, m->pb.X + (size_t)j * m->pb.ldx, 1.0,
                 m->R + (size_t)j * n);
    }
    *rnorm = norm_inf(n, c, m->R, n);
    *xnorm = norm_inf(n, c, m->pb.X, m->pb.ldx);
    return 0;
}

static int mx_ir_step(void *ws, int level, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    int n = m->pb.n;
    solve_level(m, level, m->pb.nrhs, m->R, n, m->R, n);
    for (int j = 0; j < m->pb.nrhs; j++) {
        double *x = m->pb.X + (size_t)j * m->pb.ldx, *d = m->R + (size_t)j * n;
        for (int i = 0; i < n; i++)
            x[i] += d[i];
    }
    return 0;
}

static int mx_gm_start(void *ws, int j, double *beta, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    int n = m->pb.n;
    if (!m->Ad) {
        m->Ad = ls_malloc((size_t)n * (size_t)n * sizeof(double));
        if (!m->Ad)
            return LS_FAIL(err, errlen, LS_ENOMEM, "no memory for the FP64 copy of the factors");
        for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
            m->Ad[k] = m->As[k];
    }
    solve_level(m, MX_LOW_IN_FP64, 1, m->R + (size_t)j * n, n, m->V, n);
    *beta = nrm2(n, m->V);
    if (*beta > 0 && isfinite(*beta))
        for (int i = 0; i < n; i++)
            m->V[i] /= *beta;
    return 0;
}

static int mx_gm_step(void *ws, int k, double *h, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    int n = m->pb.n, lda = 0;
    const double *A = orig_A(m, &lda);
    double *vk = m->V + (size_t)k * n, h2[65];
    gemv(m, 'N', n, n, 1.0, A, lda, m->V + (size_t)(k - 1) * n, 0.0, m->w);
    solve_level(m, MX_LOW_IN_FP64, 1, m->w, n, vk, n);
    /* classical Gram-Schmidt twice: as good as modified, in matrix-vector form */
    gemv(m, 'T', n, k, 1.0, m->V, n, vk, 0.0, h);
    gemv(m, 'N', n, k, -1.0, m->V, n, h, 1.0, vk);
    gemv(m, 'T', n, k, 1.0, m->V, n, vk, 0.0, h2);
    gemv(m, 'N', n, k, -1.0, m->V, n, h2, 1.0, vk);
    for (int i = 0; i < k; i++)
        h[i] += h2[i];
    h[k] = nrm2(n, vk);
    if (h[k] > 0 && isfinite(h[k]))
        for (int i = 0; i < n; i++)
            vk[i] /= h[k];
    return 0;
}

static int mx_gm_update(void *ws, int j, int k, const double *y, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    gemv(m, 'N', m->pb.n, k, 1.0, m->V, m->pb.n, y, 1.0, m->pb.X + (size_t)j * m->pb.ldx);
    return 0;
}

static int mx_zero_x(void *ws, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    for (int j = 0; j < m->pb.nrhs; j++)
        memset(m->pb.X + (size_t)j * m->pb.ldx, 0, (size_t)m->pb.n * sizeof(double));
    return 0;
}

static int mx_pivots(void *ws, int level, char *err, size_t errlen)
{
    cpu_mx *m = ws;
    if (level == LS_MX_LOW) /* the FP64 factorization wrote the caller's own */
        memcpy(m->pb.ipiv, m->ipiv_s, (size_t)m->pb.n * sizeof(int));
    return 0;
}

static void mx_close(void *ws)
{
    cpu_mx *m = ws;
    if (!m)
        return;
    free(m->As);
    free(m->Ad);
    free(m->ipiv_s);
    free(m->A0);
    free(m->R);
    free(m->V);
    free(m->w);
    free(m->t);
    free(m);
}

static const ls_mixed_ops cpu_mx_ops = {mx_norms,     mx_factor,  mx_start,  mx_residual,
                                        mx_ir_step,   mx_gm_start, mx_gm_step, mx_gm_update,
                                        mx_zero_x,    mx_pivots,  mx_close,
                                        NULL /* FP32 only: nothing to escalate */};

int ls_cpu_mixed_open(void *bctx, ls_mixed_problem *pb, const ls_mixed_ops **ops, void **ws,
                      char *err, size_t errlen)
{
    (void)bctx;
    *ops = NULL;
    *ws = NULL;
    if (pb->factor == LS_FACTOR_AUTO)
        pb->factor = LS_FACTOR_FP32;
    if (pb->pivot == LS_PIVOT_AUTO)
        pb->pivot = LS_PIVOT_PARTIAL;
    if (pb->pivot != LS_PIVOT_PARTIAL)
        return LS_FAIL(err, errlen, LS_EUNSUPPORTED,
                       "pivoting %s is not available for mixed precision on the cpu backend (it has "
                       "partial only)",
                       ls_pivot_name(pb->pivot) ? ls_pivot_name(pb->pivot) : "?");
    if (pb->factor != LS_FACTOR_FP32)
        return LS_FAIL(err, errlen, LS_EUNSUPPORTED,
                       "factor precision %s is not available on the cpu backend (it has fp32 "
                       "only: tf32, tf32x3, bf16 and fp16 need CUDA tensor cores)",
                       ls_factor_name(pb->factor) ? ls_factor_name(pb->factor) : "?");
    size_t n = (size_t)pb->n, c = (size_t)pb->nrhs, m1 = (size_t)pb->restart + 1;
    cpu_mx *m = ls_calloc(1, sizeof *m);
    if (!m)
        return LS_FAIL(err, errlen, LS_ENOMEM, "no memory for the mixed solver's workspace");
    m->pb = *pb;
    m->As = ls_malloc(n * n * sizeof(float));
    m->ipiv_s = ls_malloc(n * sizeof(int));
    m->R = ls_malloc(n * c * sizeof(double));
    m->V = ls_malloc(n * m1 * sizeof(double));
    m->w = ls_malloc(n * sizeof(double));
    m->t = ls_malloc(n * c * sizeof(float));
    if (!m->As || !m->ipiv_s || !m->R || !m->V || !m->w || !m->t) {
        mx_close(m);
        return LS_FAIL(err, errlen, LS_ENOMEM,
                       "no memory for the mixed solver's workspace (n = %zu, nrhs = %zu)", n, c);
    }
    m->dgemm = (dgemm_fn)ls_cpu_lapack_sym("dgemm_");
    m->dgemv = (dgemv_fn)ls_cpu_lapack_sym("dgemv_");
    *ops = &cpu_mx_ops;
    *ws = m;
    return 0;
}
