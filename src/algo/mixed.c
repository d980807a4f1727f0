/* Mixed-precision refinement and the FP64 fallback, written once for every
 * backend: the backend's operations (algo/mixed.h) do the arithmetic where
 * the data lives; this file decides what to do next from the FP64 scaled
 * residual of each iterate. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mixed.h"
#include "core/util.h"

/* LAPACK's acceptance threshold on the scaled residual. */
#define MX_TOL 30.0
/* IR counts as slow when a step shrinks the residual by less than this
 * (auto then switches to GMRES-IR); either kind has stagnated when a step
 * shrinks it by less than MX_STALL, and diverged when it grows MX_DIVERGE
 * times over the best so far. */
#define MX_SLOW 0.5
#define MX_STALL 0.9
#define MX_DIVERGE 2.0
/* GMRES-IR's inner tolerance on the preconditioned residual, relative: what
 * the outer test still needs (MX_TOL over the current scaled residual) with
 * a margin of MX_GMRES_MARGIN, kept within [MX_GMRES_TOL, MX_GMRES_TOL_MAX].
 * A correction that solves further than the outer test asks only adds
 * inner steps (each a GEMV over A and two triangular solves). */
#define MX_GMRES_TOL 1e-6
#define MX_GMRES_TOL_MAX 1e-2
#define MX_GMRES_MARGIN 0.1
/* FP64 refinement steps after the fallback (as ls_solve's refine). */
#define MX_FP64_STEPS 4
#define MX_RESTART_MAX 64 /* the Hessenberg matrix lives on the stack */

/* Factors without interchanges (rbt, none) never meet an exactly zero
 * pivot, so a singular A could pass the scaled-residual test with a huge X.
 * When ||A|| ||X|| / ||B|| (a lower bound on cond(A)) exceeds 1/u of FP32
 * (2^40 for FP64 factors, whose rounding leaves singular systems near
 * 1/u64), the FP64 LU with partial pivoting decides, with LAPACK's info. */
#define MX_NOPIV_COND 0x1p24
#define MX_NOPIV_COND_FP64 0x1p40

typedef struct mx_run {
    const ls_mixed_ops *o;
    void *ws;
    const ls_mixed_problem *pb;
    ls_mixed_result *res;
    double anorm, bnorm, xnorm;
    char *err;
    size_t errlen;
} mx_run;

/* The FP64 scaled residual of the current X (R left for the next step). */
static int scaled_residual(mx_run *r, double *s)
{
    double rnorm = 0, xnorm = 0;
    int st = r->o->residual(r->ws, &rnorm, &xnorm, r->err, r->errlen);
    if (st)
        return st;
    r->xnorm = xnorm;
    double denom = (double)r->pb->n * r->anorm * xnorm * ls_eps(LS_DOUBLE);
    if (isnan(rnorm) || isnan(xnorm) || !isfinite(xnorm))
        *s = NAN;
    else if (rnorm == 0)
        *s = 0;
    else
        *s = denom > 0 && isfinite(denom) ? rnorm / denom : INFINITY;
    return 0;
}

static void record(ls_mixed_result *res, double s)
{
    if (res->history_len < LS_MIXED_HISTORY_MAX)
        res->history[res->history_len++] = s;
}

/* The inner tolerance for a correction from scaled residual s. */
static double gmres_tol(double s)
{
    double t = isfinite(s) && s > 0 ? MX_GMRES_MARGIN * MX_TOL / s : MX_GMRES_TOL;
    return t < MX_GMRES_TOL ? MX_GMRES_TOL : t > MX_GMRES_TOL_MAX ? MX_GMRES_TOL_MAX : t;
}

/* One GMRES-IR correction per column: GMRES(m) on M^-1 A d = M^-1 r_j from
 * d = 0 to relative tolerance tol, then x_j += d. Givens rotations on the
 * host; m is small. */
static int gmres_correction(mx_run *r, double tol)
{
    int m = r->pb->restart, st = 0;
    double H[MX_RESTART_MAX + 1][MX_RESTART_MAX + 1], g[MX_RESTART_MAX + 1];
    double cs[MX_RESTART_MAX], sn[MX_RESTART_MAX], h[MX_RESTART_MAX + 1], y[MX_RESTART_MAX];
    for (int j = 0; j < r->pb->nrhs; j++) {
        double beta = 0;
        if ((st = r->o->gm_start(r->ws, j, &beta, r->err, r->errlen)))
            return st;
        if (!(beta > 0) || !isfinite(beta))
            continue; /* nothing to correct, or the next residual says diverged */
        memset(g, 0, sizeof g);
        g[0] = beta;
        int k = 0;
        while (k < m) {
            if ((st = r->o->gm_step(r->ws, k + 1, h, r->err, r->errlen)))
                return st;
            r->res->inner_iterations++;
            for (int i = 0; i < k; i++) { /* earlier rotations on the new column */
                double t = cs[i] * h[i] + sn[i] * h[i + 1];
                h[i + 1] = -sn[i] * h[i] + cs[i] * h[i + 1];
                h[i] = t;
            }
            double den = hypot(h[k], h[k + 1]);
            if (!(den > 0) || !isfinite(den))
                break; /* w was zero or non-finite: keep what we have */
            cs[k] = h[k] / den;
            sn[k] = h[k + 1] / den;
            h[k] = den;
            h[k + 1] = 0;
            g[k + 1] = -sn[k] * g[k];
            g[k] = cs[k] * g[k];
            for (int i = 0; i <= k; i++)
                H[i][k] = h[i];
            k++;
            if (fabs(g[k]) <= tol * beta)
                break;
        }
        for (int i = k - 1; i >= 0; i--) { /* y = H^-1 g, H upper triangular */
            double t = g[i];
            for (int c = i + 1; c < k; c++)
                t -= H[i][c] * y[c];
            y[i] = t / H[i][i];
        }
        if (k > 0 && (st = r->o->gm_update(r->ws, j, k, y, r->err, r->errlen)))
            return st;
    }
    return 0;
}

/* Low-precision refinement; *done = 1 when X meets the test. */
static int refine_low(mx_run *r, const ls_mixed_opts *opts, int *done, const char **why)
{
    ls_mixed_result *res = r->res;
    int st = 0, gmres = opts->refine == LS_REFINE_GMRES;
    double best = INFINITY, prev = INFINITY;
    res->refine = gmres ? LS_REFINE_GMRES : LS_REFINE_IR;
    if ((st = r->o->start(r->ws, r->err, r->errlen)) ||
        (st = r->o->ir_step(r->ws, LS_MX_LOW, r->err, r->errlen)))
        return st;
    *done = 0;
    for (;;) {
        double s = 0;
        if ((st = scaled_residual(r, &s)))
            return st;
        record(res, s);
        res->residual = s;
        if (s <= MX_TOL) {
            double big = res->factor == LS_FACTOR_FP64 ? MX_NOPIV_COND_FP64 : MX_NOPIV_COND;
            if (r->pb->pivot != LS_PIVOT_PARTIAL && r->bnorm > 0 &&
                !(r->anorm * r->xnorm <= big * r->bnorm)) {
                *why = "||A|| ||X|| / ||B|| says A may be singular";
                return 0;
            }
            *done = 1;
            return 0;
        }
        if (!isfinite(s)) {
            *why = "the iterate is not finite";
            return 0;
        }
        if (s > MX_DIVERGE * best) {
            *why = "refinement diverged";
            return 0;
        }
        if (res->iterations >= opts->max_iter) {
            *why = "the iteration limit was reached";
            return 0;
        }
        if (s > MX_SLOW * prev && !gmres && opts->refine == LS_REFINE_AUTO) {
            gmres = 1; /* IR is slow: GMRES-IR from here on */
            res->refine = LS_REFINE_GMRES;
        } else if (s > MX_STALL * prev) {
            *why = "refinement stagnated";
            return 0;
        }
        best = s < best ? s : best;
        prev = s;
        st = gmres ? gmres_correction(r, gmres_tol(s)) : r->o->ir_step(r->ws, LS_MX_LOW, r->err, r->errlen);
        if (st)
            return st;
        res->iterations++;
    }
}

/* Factor in FP64 and solve, then refine in FP64 as ls_solve does. */
static int fallback(mx_run *r, int *info, int *kept)
{
    int st = 0;
    double s = NAN;
    r->res->fell_back = 1;
    r->res->residual = NAN;
    if ((st = r->o->factor(r->ws, LS_MX_FP64, info, kept, r->err, r->errlen)) || *info)
        return st;
    if ((st = r->o->start(r->ws, r->err, r->errlen)) ||
        (st = r->o->ir_step(r->ws, LS_MX_FP64, r->err, r->errlen)))
        return st;
    if (!*kept)
        return 0; /* no copy of A: the residual cannot be formed */
    for (int step = 0;; step++) {
        if ((st = scaled_residual(r, &s)))
            return st;
        r->res->residual = s;
        if (s <= MX_TOL || !isfinite(s) || step == MX_FP64_STEPS)
            return 0;
        if ((st = r->o->ir_step(r->ws, LS_MX_FP64, r->err, r->errlen)))
            return st;
    }
}

/* "tf32x3", or "tf32x3 (rbt)" for factors of the butterfly-transformed A. */
static const char *low_word(const ls_mixed_result *res, char *buf, size_t len)
{
    const char *nm = ls_factor_name(res->factor);
    snprintf(buf, len, "%s%s", nm ? nm : "?", res->pivot == LS_PIVOT_RBT ? " (rbt)" : "");
    return buf;
}

int ls_mixed_run(const ls_mixed_ops *o, void *ws, const ls_mixed_problem *pb,
                 const ls_mixed_opts *opts, ls_mixed_result *res, char *err, size_t errlen)
{
    mx_run r = {o, ws, pb, res, 0, 0, 0, err, errlen};
    int st = 0, info = 0, kept = 0, done = 0;
    const char *why = "";
    char low_note[96] = "", lw[32];
    res->factor = pb->factor;
    res->pivot = pb->pivot;
    if ((st = o->norms(ws, &r.anorm, &r.bnorm, err, errlen)))
        return st;
    if (!isfinite(r.anorm) || !isfinite(r.bnorm)) {
        snprintf(res->message, sizeof res->message, "%s holds NaN or Inf: nothing was solved",
                 !isfinite(r.anorm) ? "A" : "B");
        o->zero_x(ws, err, errlen);
        return LS_FAIL(err, errlen, LS_ENONFINITE, "%s", res->message);
    }
    if ((st = o->factor(ws, LS_MX_LOW, &info, &kept, err, errlen)))
        return st;
    if (o->factor_used)
        res->factor = o->factor_used(ws);
    if (info == LS_MX_INFO_RANGE)
        snprintf(low_note, sizeof low_note, "A does not fit %s", low_word(res, lw, sizeof lw));
    else if (info > 0)
        snprintf(low_note, sizeof low_note, "the %s factors have a zero pivot at column %d",
                 low_word(res, lw, sizeof lw), info);
    else if ((st = refine_low(&r, opts, &done, &why)))
        return st;
    else if (!done)
        snprintf(low_note, sizeof low_note, "%s after %d step(s)", why, res->iterations);
    res->converged = done;
    if (done) {
        snprintf(res->message, sizeof res->message,
                 "%s factors, %s refinement: scaled residual %.3g <= 30 after %d step(s)",
                 low_word(res, lw, sizeof lw), ls_refine_name(res->refine), res->residual,
                 res->iterations);
        return o->pivots(ws, LS_MX_LOW, err, errlen);
    }
    if (!opts->fallback) {
        snprintf(res->message, sizeof res->message, "%s refinement did not converge: %s",
                 low_word(res, lw, sizeof lw), low_note);
        if (!isfinite(res->residual))
            o->zero_x(ws, err, errlen);
        if ((st = o->pivots(ws, LS_MX_LOW, err, errlen)))
            return st;
        return LS_NOT_CONVERGED;
    }
    if ((st = fallback(&r, &info, &kept)))
        return st;
    if ((st = o->pivots(ws, LS_MX_FP64, err, errlen)))
        return st;
    if (info > 0) {
        o->zero_x(ws, err, errlen);
        snprintf(res->message, sizeof res->message,
                 "matrix is singular: U(%d,%d) is exactly zero in FP64 too (%s)", info, info,
                 low_note);
        return info;
    }
    if (!kept) {
        snprintf(res->message, sizeof res->message,
                 "fell back to FP64 (%s); no memory to keep A for the residual check", low_note);
        return 0;
    }
    if (!isfinite(res->residual)) {
        o->zero_x(ws, err, errlen);
        snprintf(res->message, sizeof res->message,
                 "fell back to FP64 (%s), whose answer is not finite: X set to zero", low_note);
        return LS_INACCURATE;
    }
    snprintf(res->message, sizeof res->message, "fell back to FP64 (%s): scaled residual %.3g",
             low_note, res->residual);
    return res->residual <= MX_TOL ? 0 : LS_INACCURATE;
}
