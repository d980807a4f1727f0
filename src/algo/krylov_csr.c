/*
 * ls_csr_solve_iter: argument checks, optional equilibration, a column
 * permutation, the preconditioner, then BiCGStab, GMRES(m) or CG over a
 * table of vector operations (algo/krylov.h: the host's, or a backend's on
 * its device); the answer is judged once more on the caller's own A and b.
 * The driver runs on the host for every backend, so A's preparation
 * (MC64 and maximum transversal, the preconditioners) and the host's
 * vector kernels are the CPU's code (cpu/krylov_csr.h), called directly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "cpu/krylov_csr.h"
#include "krylov.h"

/* |a_ii| at most this against the largest of its row and column (after any
 * equilibration) calls for the weighted matching under LS_PERMUTE_AUTO. */
#define LS_MC64_SMALL_DIAG 1e-3

int ls_kr_bad(double v)
{
    return v == 0 || !isfinite(v);
}

void ls_iter_options_init(ls_iter_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->method = LS_ITER_BICGSTAB;
    opt->precond = LS_PRECOND_NONE;
    opt->rtol = 0;
    opt->max_iter = 2000;
    opt->restart = 30;
    opt->equilibrate = 0;
    opt->ilut_tol = 1e-4;
    opt->ilut_fill = 10;
}

/* The power of two nearest below 1 / amax (1 for an empty or zero line):
 * scaling by it is exact, so unscaling the answer adds no rounding. */
static double pow2_inverse(double amax)
{
    if (!(amax > 0) || !isfinite(amax))
        return 1.0;
    int e;
    frexp(amax, &e);
    return ldexp(1.0, -e);
}

static int check_args(const ls_csr *A, const double *b, const double *x,
                      const ls_iter_options *o, char *msg, size_t len)
{
    if (!A || !A->row_ptr || (A->nnz > 0 && (!A->col_idx || !A->val)) || A->nnz < 0) {
        snprintf(msg, len, "A is NULL or has no arrays");
        return LS_EINVAL;
    }
    if (!b || !x) {
        snprintf(msg, len, "%s is NULL", !b ? "b" : "x");
        return LS_EINVAL;
    }
    if (A->n_rows != A->n_cols || A->n_rows < 0) {
        snprintf(msg, len, "A is %lld x %lld: an iterative solve needs a square matrix",
                 (long long)A->n_rows, (long long)A->n_cols);
        return LS_ESIZE;
    }
    if (o->method != LS_ITER_BICGSTAB && o->method != LS_ITER_GMRES && o->method != LS_ITER_CG) {
        snprintf(msg, len, "unknown method %d", (int)o->method);
        return LS_EINVAL;
    }
    if (o->precond != LS_PRECOND_NONE && o->precond != LS_PRECOND_JACOBI &&
        o->precond != LS_PRECOND_ILU0 && o->precond != LS_PRECOND_ILUT) {
        snprintf(msg, len, "unknown preconditioner %d", (int)o->precond);
        return LS_EINVAL;
    }
    if (o->permute != LS_PERMUTE_AUTO && o->permute != LS_PERMUTE_MC64 &&
        o->permute != LS_PERMUTE_MAXTRANS && o->permute != LS_PERMUTE_NONE) {
        snprintf(msg, len, "unknown permutation %d", (int)o->permute);
        return LS_EINVAL;
    }
    if (!(o->rtol >= 0) || !isfinite(o->rtol) || o->max_iter < 0 ||
        (o->method == LS_ITER_GMRES && (o->restart < 1 || o->restart > 100000))) {
        snprintf(msg, len, "bad option: rtol %g (>= 0), max_iter %d (>= 0), restart %d (1..1e5)",
                 o->rtol, o->max_iter, o->restart);
        return LS_EINVAL;
    }
    if (o->precond == LS_PRECOND_ILUT &&
        (!(o->ilut_tol >= 0) || !isfinite(o->ilut_tol) || o->ilut_fill < 0)) {
        snprintf(msg, len, "bad option: ilut_tol %g (finite, >= 0), ilut_fill %d (>= 0)",
                 o->ilut_tol, o->ilut_fill);
        return LS_EINVAL;
    }
    int st = ls_csr_check(A, msg, len);
    if (st)
        return st;
    for (int64_t i = 0; i < A->n_rows; i++)
        if (!isfinite(b[i]) || !isfinite(x[i])) {
            snprintf(msg, len, "%s[%lld] is not finite", !isfinite(b[i]) ? "b" : "x",
                     (long long)i);
            return LS_ENONFINITE;
        }
    return 0;
}

/* As = R A C with powers of two, bs = R b, y = C^-1 x; rw = 1 / R. With sym
 * (CG), R = C = the powers of two nearest 1 / sqrt|a_ii|, so that a
 * symmetric A stays symmetric. */
static int equilibrate(const ls_csr *A, const double *b, double *x, ls_csr *As, double **bs,
                       double **rw, double **cs, int sym)
{
    int64_t n = A->n_rows;
    size_t nn = (size_t)(n ? n : 1);
    *As = *A;
    As->val = ls_malloc(sizeof(double) * (size_t)(A->nnz ? A->nnz : 1));
    *bs = ls_malloc(sizeof(double) * nn);
    *rw = ls_malloc(sizeof(double) * nn);
    *cs = ls_malloc(sizeof(double) * nn);
    if (!As->val || !*bs || !*rw || !*cs)
        return LS_ENOMEM;
    double *c = *cs;
    if (sym) {
        for (int64_t i = 0; i < n; i++) {
            double d = 0;
            for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
                if (A->col_idx[p] == i)
                    d = fabs(A->val[p]);
            c[i] = pow2_inverse(sqrt(d));
            (*rw)[i] = 1.0 / c[i];
            (*bs)[i] = c[i] * b[i];
            x[i] /= c[i];
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
                As->val[p] = c[i] * A->val[p] * c[A->col_idx[p]];
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        double amax = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            amax = fmax(amax, fabs(A->val[p]));
        double ri = pow2_inverse(amax);
        (*rw)[i] = 1.0 / ri;
        (*bs)[i] = ri * b[i];
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            As->val[p] = ri * A->val[p];
        c[i] = 0;
    }
    for (int64_t p = 0; p < A->nnz; p++)
        c[A->col_idx[p]] = fmax(c[A->col_idx[p]], fabs(As->val[p]));
    for (int64_t j = 0; j < n; j++) {
        c[j] = pow2_inverse(c[j]);
        x[j] /= c[j];
    }
    for (int64_t p = 0; p < A->nnz; p++)
        As->val[p] *= c[A->col_idx[p]];
    return 0;
}

static const char *method_name(const ls_iter_options *o)
{
    return o->method == LS_ITER_GMRES ? "GMRES" : o->method == LS_ITER_CG ? "CG" : "BiCGStab";
}

static const char *precond_name(ls_precond p)
{
    return p == LS_PRECOND_ILU0     ? "ILU(0)"
           : p == LS_PRECOND_ILUT   ? "ILUT"
           : p == LS_PRECOND_JACOBI ? "Jacobi"
                                    : "none";
}

/* The weighted matching on As (already equilibrated or not): T->B =
 * Dr As Dc Q; b's scaling, the residual weights and x's column scaling
 * take Dr and Dc on (allocated here when there was no equilibration), and
 * x goes to B's variables. Nothing changes unless it all succeeds. */
static int apply_mc64(const ls_csr *As, const double *b, double *x, ls_csr_colperm *T,
                      double **bs, double **rw, double **cs, char *msg, size_t len)
{
    int64_t n = As->n_rows;
    size_t nn = (size_t)(n ? n : 1);
    double *dr = ls_malloc(sizeof(double) * nn), *dc = ls_malloc(sizeof(double) * nn);
    double *nb = *bs ? *bs : ls_malloc(sizeof(double) * nn);
    double *nw = *rw ? *rw : ls_malloc(sizeof(double) * nn);
    double *nc = *cs ? *cs : ls_malloc(sizeof(double) * nn);
    int st = 0;
    if (!dr || !dc || !nb || !nw || !nc) {
        st = LS_ENOMEM;
        snprintf(msg, len, "cannot allocate the weighted matching");
    } else {
        st = ls_csr_colperm_build_mc64(As, T, dr, dc, msg, len);
    }
    if (st) {
        if (nb != *bs)
            free(nb);
        if (nw != *rw)
            free(nw);
        if (nc != *cs)
            free(nc);
        free(dr), free(dc);
        return st;
    }
    if (!*bs)
        for (int64_t i = 0; i < n; i++)
            nb[i] = b[i], nw[i] = 1, nc[i] = 1;

    for (int64_t i = 0; i < n; i++) {
        nb[i] *= dr[i];
        nw[i] /= dr[i];
        nc[i] *= dc[i];
        x[i] /= dc[i];
    }
    *bs = nb, *rw = nw, *cs = nc;
    ls_csr_colperm_to(T, x);
    free(dr), free(dc);
    return 0;
}

/* One attempt with the options as given; *used_mc64 says whether the
 * weighted matching was applied. */
/* Where the iteration runs: the host (open NULL) or a backend's device. */
typedef struct engine {
    ls_kr_open_fn open;
    ls_kr_close_fn close;
    void *bctx;
    const char *device;
} engine;

/* One method on the prepared system: on the host in x itself, on a device
 * in a copy of x that comes back at the end. A device failure (recorded by
 * the ops) outranks what the method made of the NaNs it then saw. */
static int iterate(const ls_krylov_sys *sys, ls_iter_method m, double *x, ls_krylov_out *ko,
                   const engine *eng, char *msg, size_t len)
{
    ls_kr_ops ops;
    memset(ko, 0, sizeof *ko);
    if (!eng->open)
        ls_kr_host_ops(sys, &ops);
    else {
        int st = eng->open(eng->bctx, sys, &ops, msg, len);
        if (st)
            return st;
    }
    double *xv = eng->open ? ops.alloc(ops.ctx, 1) : x;
    int st = LS_ENOMEM;
    if (xv) {
        if (xv != x)
            ops.upload(ops.ctx, x, xv);
        st = m == LS_ITER_GMRES ? ls_csr_gmres_run(sys, &ops, xv, ko)
             : m == LS_ITER_CG  ? ls_csr_cg_run(sys, &ops, xv, ko)
                                : ls_csr_bicgstab_run(sys, &ops, xv, ko);
        if (xv != x) {
            ops.download(ops.ctx, xv, x);
            ops.release(ops.ctx, xv);
        }
    } else {
        snprintf(ko->msg, sizeof ko->msg, "cannot allocate x");
    }
    int dev = ops.status(ops.ctx, msg, len);
    if (eng->open) {
        if (!dev && ko->msg[0]) {
            size_t used = strlen(ko->msg);
            snprintf(ko->msg + used, sizeof ko->msg - used, " on %s", eng->device);
        }
        eng->close(ops.ctx);
    }
    return dev ? dev : st;
}

static int solve_once(const ls_csr *A, const double *b, double *x, ls_iter_options o,
                      ls_iter_report *rep, char *err, size_t errlen, int *used_mc64,
                      const engine *eng)
{
    memset(rep, 0, sizeof *rep);
    char msg[256] = "";
    int st = check_args(A, b, x, &o, msg, sizeof msg);
    if (st) {
        snprintf(rep->message, sizeof rep->message, "%s", msg);
        if (err && errlen)
            snprintf(err, errlen, "%s", msg);
        return st;
    }
    int64_t n = A->n_rows;
    rep->rtol = o.rtol > 0 ? o.rtol : 10.0 * sqrt((double)(n > 1 ? n : 1)) * ls_eps(LS_DOUBLE);
    double bnorm = ls_kr_nrm2(n, b, NULL);
    if (bnorm == 0) { /* the solution of A x = 0 */
        memset(x, 0, sizeof(double) * (size_t)n);
        rep->converged = 1;
        snprintf(rep->message, sizeof rep->message, "b = 0: x = 0");
        return 0;
    }
    ls_csr As = *A;
    double *bs = NULL, *rw = NULL, *cs = NULL, *r = NULL;
    ls_csr_precond P;
    memset(&P, 0, sizeof P);
    ls_csr_colperm T;
    memset(&T, 0, sizeof T);
    int permuted = 0;
    if (o.equilibrate) {
        st = equilibrate(A, b, x, &As, &bs, &rw, &cs, o.method == LS_ITER_CG);
        if (st) {
            snprintf(msg, sizeof msg, "cannot allocate the equilibrated copy of A");
            goto out; /* x is only rescaled once every allocation succeeded */
        }
    }
    /* The preconditioners need a usable diagonal. With one that is zero or
     * small, iterate on A Q after any equilibration, so x = C Q y: by
     * default Q and a further scaling from the maximum-product weighted
     * matching (|b_ii| = 1, |b_ij| <= 1), else (--permute maxtrans) Q a
     * structural maximum transversal when a diagonal entry is missing. CG
     * keeps the refusal, since A Q is not symmetric. ILUT could fill a
     * missing diagonal in, but its pivots are far better on A Q too. */
    const int pc = o.precond == LS_PRECOND_JACOBI || o.precond == LS_PRECOND_ILU0 ||
                   o.precond == LS_PRECOND_ILUT;
    int want = o.method != LS_ITER_CG && o.permute == LS_PERMUTE_MC64;
    if (o.method != LS_ITER_CG && o.permute == LS_PERMUTE_AUTO && pc) {
        want = ls_csr_diag_needs_matching(&As, LS_MC64_SMALL_DIAG);
        if (want < 0) {
            st = want;
            snprintf(msg, sizeof msg, "cannot allocate the diagonal check");
            goto unscale;
        }
    }
    if (want) {
        st = apply_mc64(&As, b, x, &T, &bs, &rw, &cs, msg, sizeof msg);
        if (st == LS_ENONFINITE) {
            st = 0; /* the scaling overflows: the structural transversal below */
        } else if (st) {
            goto unscale;
        } else {
            permuted = 2;
            *used_mc64 = 1;
        }
    }
    if (!permuted && pc && o.method != LS_ITER_CG &&
        (o.permute == LS_PERMUTE_AUTO || o.permute == LS_PERMUTE_MAXTRANS ||
         o.permute == LS_PERMUTE_MC64) &&
        ls_csr_needs_transversal(&As)) {
        st = ls_csr_colperm_build(&As, &T, msg, sizeof msg);
        if (st == LS_EUNSUPPORTED)
            st = 0; /* no BTF: the preconditioner refuses below */
        else if (st)
            goto unscale;
        else {
            ls_csr_colperm_to(&T, x);
            permuted = 1;
        }
    }
    if (o.precond == LS_PRECOND_ILUT) {
        P.kind = LS_PRECOND_ILUT;
        P.n = n;
        st = ls_csr_ilut_setup(&P, permuted ? &T.B : &As, o.ilut_tol, o.ilut_fill, msg,
                               sizeof msg);
    } else {
        st = ls_csr_precond_setup_ex(&P, o.precond, permuted ? &T.B : &As, permuted, msg,
                                     sizeof msg);
    }
    if (st)
        goto unscale;
    ls_krylov_sys sys = {permuted ? &T.B : &As, bs ? bs : b, n, &P, rw, rep->rtol * bnorm,
                         o.max_iter, o.restart};
    ls_krylov_out ko;
    st = iterate(&sys, o.method, x, &ko, eng, msg, sizeof msg);
    rep->iterations = ko.iterations;
    rep->breakdown = ko.breakdown;
    if (st != LS_EDEVMEM && st != LS_EDEVICE)
        snprintf(msg, sizeof msg, "%s", ko.msg);
unscale:
    if (permuted)
        ls_csr_colperm_from(&T, x);
    if (cs)
        for (int64_t j = 0; j < n; j++)
            x[j] *= cs[j];
    if (st == LS_ENOMEM || st < 0)
        goto out;
    /* The verdict is the caller's own residual. */
    r = ls_malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!r) {
        st = LS_ENOMEM;
        snprintf(msg, sizeof msg, "cannot allocate the residual check");
        goto out;
    }
    {
        ls_krylov_sys orig = {A, b, n, NULL, NULL, 0, 0, 0};
        rep->rel_residual = ls_kr_residual(&orig, x, r) / bnorm;
    }
    if (st == 0 && !(rep->rel_residual <= rep->rtol)) {
        st = LS_NOT_CONVERGED;
        snprintf(msg, sizeof msg, "%s: the method stopped but ||b - A x|| / ||b|| = %.3e > rtol",
                 method_name(&o), rep->rel_residual);
    }
    rep->converged = st == 0;
    {
        char full[256], pert[48] = "", perm[96] = "";
        if (permuted == 1)
            snprintf(perm, sizeof perm,
                     ", columns permuted to a zero-free diagonal (maximum transversal, %lld moved)",
                     (long long)T.moved);
        else if (permuted == 2)
            snprintf(perm, sizeof perm, ", MC64 weighted matching and scaling, %lld columns moved",
                     (long long)T.moved);
        if (P.perturbed)
            snprintf(pert, sizeof pert, ", %lld zero pivots perturbed", (long long)P.perturbed);
        snprintf(full, sizeof full, "%s (precond %s%s%s%s): relative residual %.3e, rtol %.2e",
                 msg, precond_name(o.precond), o.equilibrate ? ", equilibrated" : "", perm, pert, rep->rel_residual, rep->rtol);
        snprintf(msg, sizeof msg, "%s", full);
    }
out:
    snprintf(rep->message, sizeof rep->message, "%s", msg);
    if (st && err && errlen)
        snprintf(err, errlen, "%s", msg);
    free(r);
    free(bs), free(rw), free(cs);
    if (As.val != A->val)
        free(As.val);
    ls_csr_precond_free(&P);
    ls_csr_colperm_free(&T);
    return st;
}

/* Under --permute auto the weighted matching comes first; where the
 * iteration then fails (rajat19 with BiCGStab + ILUT, impcol_a stalling
 * above rtol with ILU(0)) and the structural transversal would have served,
 * the solve is run again that way from the caller's x, so that auto never
 * does worse than either. The report says so. */
int ls_csr_solve_iter(const ls_csr *A, const double *b, double *x, const ls_iter_options *opt,
                      ls_iter_report *rep, char *err, size_t errlen)
{
    return ls_csr_solve_iter_on(A, b, x, opt, rep, err, errlen, NULL, NULL, NULL, "cpu");
}

int ls_csr_solve_iter_on(const ls_csr *A, const double *b, double *x, const ls_iter_options *opt,
                         ls_iter_report *rep, char *err, size_t errlen, ls_kr_open_fn open,
                         ls_kr_close_fn close, void *bctx, const char *device)
{
    const engine eng = {open, close, bctx, device};
    ls_iter_options o;
    ls_iter_options_init(&o);
    if (opt)
        o = *opt;
    ls_iter_report local;
    if (!rep)
        rep = &local;
    int used = 0;
    int64_t n = A && A->n_rows > 0 ? A->n_rows : 0;
    double *x0 = NULL;
    if (o.permute == LS_PERMUTE_AUTO && x && n > 0) {
        x0 = ls_malloc(sizeof(double) * (size_t)n);
        if (x0)
            memcpy(x0, x, sizeof(double) * (size_t)n);
    }
    int st = solve_once(A, b, x, o, rep, err, errlen, &used, &eng);
    if (o.permute != LS_PERMUTE_AUTO || n == 0 || !used ||
        !(st == LS_NOT_CONVERGED || st == LS_BREAKDOWN || st == LS_ENONFINITE)) {
        free(x0);
        return st;
    }
    double *x1 = x0 ? ls_malloc(sizeof(double) * (size_t)n) : NULL;
    if (!x1) {
        free(x0);
        snprintf(rep->message, sizeof rep->message,
                 "cannot allocate the retry with the structural transversal");
        if (err && errlen)
            snprintf(err, errlen, "%s", rep->message);
        return LS_ENOMEM;
    }
    memcpy(x1, x, sizeof(double) * (size_t)n);
    ls_iter_report first = *rep;
    memcpy(x, x0, sizeof(double) * (size_t)n);
    o.permute = LS_PERMUTE_MAXTRANS;
    int used2 = 0;
    int st2 = solve_once(A, b, x, o, rep, err, errlen, &used2, &eng);
    char note[sizeof rep->message];
    if (st2 == 0) {
        snprintf(note, sizeof note, "MC64 matching: no convergence in %d iterations; "
                 "retried: %s", first.iterations, rep->message);
        snprintf(rep->message, sizeof rep->message, "%s", note);
    } else { /* both failed: the first answer, and the report of both */
        memcpy(x, x1, sizeof(double) * (size_t)n);
        /* the retry's verdict first: the first message may fill the rest */
        snprintf(note, sizeof note, "with the structural transversal instead: %s; before it: %s",
                 ls_status_name(st2), first.message);
        *rep = first;
        snprintf(rep->message, sizeof rep->message, "%s", note);
        if (err && errlen)
            snprintf(err, errlen, "%s", note);
        st2 = st;
    }
    free(x0);
    free(x1);
    return st2;
}
