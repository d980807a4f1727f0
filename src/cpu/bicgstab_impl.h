/*
 * BiCGStab (Panchatcharam, Sundar & Klar 2013, Algorithm 2: the standard
 * unpreconditioned method) on
 * a dense matrix, one right-hand side at a time, precision-generic (see
 * real_macros.h). Included by bicgstab.c once per precision.
 * Defines: ls_cpu_bicgstab_d, ls_cpu_bicgstab_s
 *
 * Vectors are kept in REAL, dot products and norms accumulate in double so
 * the single-precision variant loses no more than its storage precision.
 * Success is only reported after the true residual b - A x meets the
 * tolerance: the recurrence residual drifts from it on hard problems.
 */
#include "common/real_macros.h"

/* y = A x, dense column-major; OpenMP over row blocks, columns inner. */
static void FN(matvec)(int n, const REAL *A, int lda, const REAL *x, REAL *y)
{
    enum { RB = 256 };
    int nblocks = (n + RB - 1) / RB;
#pragma omp parallel for schedule(static) if ((size_t)n * n > 20000)
    for (int b = 0; b < nblocks; b++) {
        int i0 = b * RB, i1 = i0 + RB < n ? i0 + RB : n;
        double acc[RB];
        for (int i = i0; i < i1; i++)
            acc[i - i0] = 0;
        for (int k = 0; k < n; k++) {
            const REAL *ak = A + (size_t)k * lda;
            double xk = x[k];
            for (int i = i0; i < i1; i++)
                acc[i - i0] += ak[i] * xk;
        }
        for (int i = i0; i < i1; i++)
            y[i] = (REAL)acc[i - i0];
    }
}

static double FN(dot)(int n, const REAL *x, const REAL *y)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > 50000)
    for (int i = 0; i < n; i++)
        s += (double)x[i] * y[i];
    return s;
}

/* r = b - A x with the product accumulated in double; returns ||r||2. */
static double FN(true_residual)(int n, const REAL *A, int lda, const REAL *x, const REAL *b,
                                REAL *r)
{
    FN(matvec)(n, A, lda, x, r);
    double s = 0;
    for (int i = 0; i < n; i++) {
        r[i] = b[i] - r[i];
        s += (double)r[i] * r[i];
    }
    return sqrt(s);
}

/* Not a number we can divide by or keep iterating with. */
static int FN(bad_scalar)(double v)
{
    return v == 0 || !isfinite(v);
}

/* One right-hand side: b in, x out (x starts at 0). Returns 0, LS_NOT_CONVERGED
 * or LS_BREAKDOWN with a message; *its gets the iterations run. */
static int FN(solve_one)(int n, const REAL *A, int lda, const REAL *b, REAL *x, double rtol,
                         double atol, int max_iter, REAL *work, ls_hist_buf *history, int *its,
                         char *msg, size_t msglen)
{
    REAL *r = work, *rhat = work + n, *u = work + 2 * (size_t)n, *v = work + 3 * (size_t)n;
    REAL *s = work + 4 * (size_t)n, *t = work + 5 * (size_t)n;
    double bnorm = sqrt(FN(dot)(n, b, b));
    double tol = rtol * bnorm > atol ? rtol * bnorm : atol;
    *its = 0;
    for (int i = 0; i < n; i++) {
        x[i] = 0;
        r[i] = b[i];
        rhat[i] = b[i];
        u[i] = 0;
        v[i] = 0;
    }
    if (bnorm <= tol) /* b == 0 (or tolerance met by x = 0) */
        return 0;
    double rho0 = 1, alpha = 1, omega0 = 1, rnorm = bnorm;
    for (int it = 1; it <= max_iter; it++) {
        *its = it;
        ls_hist_set(history, it, rnorm / bnorm); /* overwritten below unless we break down */
        double rho = FN(dot)(n, rhat, r);
        if (FN(bad_scalar)(rho)) {
            snprintf(msg, msglen, "BiCGStab breakdown: rho = (r_hat . r) = %g at iteration %d",
                     rho, it);
            return LS_BREAKDOWN;
        }
        double beta = (rho / rho0) * (alpha / omega0);
        for (int i = 0; i < n; i++)
            u[i] = (REAL)(r[i] + beta * (u[i] - omega0 * v[i]));
        FN(matvec)(n, A, lda, u, v);
        double rv = FN(dot)(n, rhat, v);
        if (FN(bad_scalar)(rv)) {
            snprintf(msg, msglen, "BiCGStab breakdown: (r_hat . v) = %g at iteration %d", rv, it);
            return LS_BREAKDOWN;
        }
        alpha = rho / rv;
        for (int i = 0; i < n; i++)
            s[i] = (REAL)(r[i] - alpha * v[i]);
        double snorm = sqrt(FN(dot)(n, s, s));
        if (snorm <= tol) {
            /* Half step already converged: x += alpha u and check for real. */
            for (int i = 0; i < n; i++)
                x[i] = (REAL)(x[i] + alpha * u[i]);
            rnorm = FN(true_residual)(n, A, lda, x, b, r);
            ls_hist_set(history, it, rnorm / bnorm);
            if (rnorm <= tol)
                return 0;
            rho0 = 1, alpha = 1, omega0 = 1; /* restart from the true residual */
            for (int i = 0; i < n; i++) {
                u[i] = 0;
                v[i] = 0;
            }
            continue;
        }
        FN(matvec)(n, A, lda, s, t);
        double tt = FN(dot)(n, t, t);
        double omega = tt > 0 ? FN(dot)(n, t, s) / tt : 0;
        if (FN(bad_scalar)(omega)) {
            snprintf(msg, msglen, "BiCGStab breakdown: omega = %g at iteration %d", omega, it);
            return LS_BREAKDOWN;
        }
        double rr = 0;
        for (int i = 0; i < n; i++) {
            x[i] = (REAL)(x[i] + alpha * u[i] + omega * s[i]);
            r[i] = (REAL)(s[i] - omega * t[i]);
            rr += (double)r[i] * r[i];
        }
        rnorm = sqrt(rr);
        ls_hist_set(history, it, rnorm / bnorm);
        if (!isfinite(rnorm)) {
            snprintf(msg, msglen, "BiCGStab breakdown: residual norm %g at iteration %d", rnorm,
                     it);
            return LS_BREAKDOWN;
        }
        if (rnorm <= tol) {
            double truth = FN(true_residual)(n, A, lda, x, b, r);
            ls_hist_set(history, it, truth / bnorm);
            if (truth <= tol)
                return 0;
            rnorm = truth; /* keep going from the true residual in r */
        }
        rho0 = rho;
        omega0 = omega;
    }
    double truth = FN(true_residual)(n, A, lda, x, b, r);
    snprintf(msg, msglen,
             "BiCGStab did not converge in %d iterations: relative residual %.3e > rtol %.1e",
             max_iter, truth / bnorm, rtol);
    return LS_NOT_CONVERGED;
}

void FN(ls_cpu_bicgstab)(int n, int nrhs, const REAL *A, int lda, REAL *B, int ldb, double rtol,
                         double atol, int max_iter, ls_cpu_iter_result *res)
{
    memset(res, 0, sizeof *res);
    size_t wcount, wbytes;
    if (ls_mul_size((size_t)n, 8, &wcount) || ls_mul_size(wcount, sizeof(REAL), &wbytes)) {
        res->status = LS_ENOMEM;
        snprintf(res->message, sizeof res->message, "BiCGStab workspace size overflows");
        return;
    }
    REAL *work = malloc(wbytes);
    if (!work) {
        res->status = LS_ENOMEM;
        snprintf(res->message, sizeof res->message, "cannot allocate BiCGStab workspace");
        return;
    }
    ls_hist_buf hist = {NULL, 0, 0};
    REAL *b = work + 6 * (size_t)n, *x = work + 7 * (size_t)n;
    /* Every column is attempted, so X holds the best iterate for each; the
     * first failure names the status and the message. */
    for (int c = 0; c < nrhs; c++) {
        REAL *bc = B + (size_t)c * ldb;
        memcpy(b, bc, sizeof(REAL) * (size_t)n);
        int its = 0;
        char msg[200] = "";
        int st = FN(solve_one)(n, A, lda, b, x, rtol, atol, max_iter, work, c == 0 ? &hist : NULL,
                               &its, msg, sizeof msg);
        memcpy(bc, x, sizeof(REAL) * (size_t)n);
        if (its > res->iterations)
            res->iterations = its;
        res->total_iterations += its;
        if (st && !res->status) {
            res->status = st;
            if (nrhs > 1)
                snprintf(res->message, sizeof res->message, "right-hand side %d: %s", c + 1, msg);
            else
                snprintf(res->message, sizeof res->message, "%s", msg);
        }
    }
    if (res->status == 0)
        snprintf(res->message, sizeof res->message,
                 "BiCGStab converged in at most %d iterations (true residual checked)",
                 res->iterations);
    free(work);
    res->history = hist.v;
    res->history_len = hist.len;
}
