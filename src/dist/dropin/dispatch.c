/* One intercepted call: the choice of path, the call, ScaLAPACK's error
 * report and the trace line.
 *
 * Routing is decided from arguments every process of the grid shares (the
 * global scalars and the descriptors' global entries), so all processes
 * take the same path: a call liblinsolve_dist would refuse but ScaLAPACK
 * accepts (a sub-matrix off the block boundary, MB != NB, B laid out
 * differently from A) goes to the shadowed ScaLAPACK, as
 * do calls on processes outside the context's grid (ScaLAPACK answers them
 * with its own argument error). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../core/knobs.h"
#include "dropin.h"

/* Set while this thread is inside a call routed to the system ScaLAPACK:
 * its pdgesv_ calls pdgetrf_ and pdgetrs_ through the global scope, i.e.
 * through us; those inner calls belong to the outer one. */
static _Thread_local int depth;

enum { BACKEND_LINSOLVE, BACKEND_SYSTEM };
enum { TRACE_OFF, TRACE_ROOT, TRACE_ALL };

typedef struct lss_config {
    int backend; /* LS_SCALAPACK_BACKEND */
    int trace;   /* LS_SCALAPACK_TRACE */
} lss_config;

static lss_config read_config(void)
{
    lss_config c = {BACKEND_LINSOLVE, TRACE_OFF};
    if (ls_knob_is(LS_KNOB_SCALAPACK_BACKEND, "system") ||
        ls_knob_is(LS_KNOB_SCALAPACK_BACKEND, "scalapack"))
        c.backend = BACKEND_SYSTEM;
    else if (ls_knob_source_of(LS_KNOB_SCALAPACK_BACKEND) == LS_KNOB_REJECTED)
        fprintf(stderr, "liblinsolve_scalapack: LS_SCALAPACK_BACKEND=%s is not one of "
                        "linsolve, system: using linsolve\n",
                ls_knob_raw(LS_KNOB_SCALAPACK_BACKEND));
    if (ls_knob_is(LS_KNOB_SCALAPACK_TRACE, "all"))
        c.trace = TRACE_ALL;
    else if (ls_knob_is(LS_KNOB_SCALAPACK_TRACE, "1"))
        c.trace = TRACE_ROOT;
    return c;
}

static const lss_config *config(void)
{
    /* read on the first call; racing threads compute the same values */
    static lss_config cfg;
    static _Atomic int ready;
    if (!ready) {
        cfg = read_config();
        ready = 1;
    }
    return &cfg;
}

static const char *routine(const lss_args *x, int upper)
{
    static const char *const names[2][2][3] = {
        {{"pdgesv_", "pdgetrf_", "pdgetrs_"}, {"psgesv_", "psgetrf_", "psgetrs_"}},
        {{"PDGESV", "PDGETRF", "PDGETRS"}, {"PSGESV", "PSGETRF", "PSGETRS"}},
    };
    return names[upper][x->prec == LS_SINGLE][x->op];
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Why liblinsolve_dist cannot take this call though ScaLAPACK may, or NULL.
 * Only conditions that ScaLAPACK's own checks would not reject earlier are
 * relevant; a malformed call that passes here gets liblinsolve_dist's
 * checks, which number arguments as ScaLAPACK does. */
static const char *unsupported(const lss_args *x)
{
    const int *da = x->desca, *db = x->descb;
    if (x->op != LSS_GETRF && db[LS_DESC_CTXT] != da[LS_DESC_CTXT])
        return "contexts";
    const int mb = da[LS_DESC_MB], nb = da[LS_DESC_NB];
    if (mb < 1 || nb < 1 || x->ia < 1 || x->ja < 1)
        return NULL; /* illegal: reported by liblinsolve_dist's checks */
    if (mb != nb)
        return "mb!=nb";
    if ((x->ia - 1) % mb || (x->ja - 1) % nb)
        return "unaligned";
    if (x->op == LSS_GETRF)
        return NULL;
    const int mbb = db[LS_DESC_MB];
    if (mbb < 1 || x->ib < 1 || x->jb < 1)
        return NULL;
    if (mbb != mb || (x->ib - 1) % mbb)
        return "unaligned";
    /* the process row of row ia of A and of row ib of B */
    int P, Q, r, c;
    Cblacs_gridinfo(da[LS_DESC_CTXT], &P, &Q, &r, &c);
    if (P >= 1 && (da[LS_DESC_RSRC] + (x->ia - 1) / mb) % P != (db[LS_DESC_RSRC] + (x->ib - 1) / mbb) % P)
        return "unaligned";
    return NULL;
}

static void run_system(lss_args *x, void *f)
{
    ++depth;
    switch (x->op) {
    case LSS_GESV:
        ((void (*)(const int *, const int *, void *, const int *, const int *, const int *, int *,
                   void *, const int *, const int *, const int *, int *))f)(
            &x->n, &x->nrhs, x->a, &x->ia, &x->ja, x->desca, x->ipiv, x->b, &x->ib, &x->jb,
            x->descb, x->info);
        break;
    case LSS_GETRF:
        ((void (*)(const int *, const int *, void *, const int *, const int *, const int *,
                   int *, int *))f)(&x->m, &x->n, x->a, &x->ia, &x->ja, x->desca, x->ipiv,
                                    x->info);
        break;
    case LSS_GETRS:
        ((void (*)(const char *, const int *, const int *, const void *, const int *,
                   const int *, const int *, const int *, void *, const int *, const int *,
                   const int *, int *, size_t))f)(&x->trans, &x->n, &x->nrhs, x->a, &x->ia,
                                                  &x->ja, x->desca, x->ipiv, x->b, &x->ib,
                                                  &x->jb, x->descb, x->info, (size_t)1);
        break;
    }
    --depth;
}

/* ScaLAPACK's report of an illegal argument: the process's pxerbla_ (the
 * program's own where it has one), else one line on stderr. */
static void report_illegal(const lss_args *x, int ctxt, int position)
{
    typedef void (*pxerbla_fn)(const int *ictxt, const char *srname, const int *info, size_t len);
    pxerbla_fn f = (pxerbla_fn)dlsym(RTLD_DEFAULT, "pxerbla_");
    const char *name = routine(x, 1);
    if (f) {
        f(&ctxt, name, &position, strlen(name));
        return;
    }
    fprintf(stderr, "liblinsolve_scalapack: %s was called with an illegal value of argument %d\n",
            name, position);
}

/* The call through liblinsolve_dist: the descriptors are passed with the
 * grid's own context value in place of the BLACS one. */
static int run_linsolve(const lss_args *x, ls_grid *g)
{
    int da[LS_DESC_LEN], db[LS_DESC_LEN];
    memcpy(da, x->desca, sizeof da);
    da[LS_DESC_CTXT] = ls_grid_context(g);
    if (x->op != LSS_GETRF) {
        memcpy(db, x->descb, sizeof db);
        db[LS_DESC_CTXT] = ls_grid_context(g);
    }
    const int d = x->prec == LS_DOUBLE;
    switch (x->op) {
    case LSS_GESV:
        return d ? ls_pdgesv(x->n, x->nrhs, x->a, x->ia, x->ja, da, x->ipiv, x->b, x->ib, x->jb,
                             db, x->info, g)
                 : ls_psgesv(x->n, x->nrhs, x->a, x->ia, x->ja, da, x->ipiv, x->b, x->ib, x->jb,
                             db, x->info, g);
    case LSS_GETRF:
        return d ? ls_pdgetrf(x->m, x->n, x->a, x->ia, x->ja, da, x->ipiv, x->info, g)
                 : ls_psgetrf(x->m, x->n, x->a, x->ia, x->ja, da, x->ipiv, x->info, g);
    default:
        return d ? ls_pdgetrs(x->trans, x->n, x->nrhs, x->a, x->ia, x->ja, da, x->ipiv, x->b,
                              x->ib, x->jb, db, x->info, g)
                 : ls_psgetrs(x->trans, x->n, x->nrhs, x->a, x->ia, x->ja, da, x->ipiv, x->b,
                              x->ib, x->jb, db, x->info, g);
    }
}

static void trace(const lss_args *x, const char *path, const char *why, double t)
{
    int P = -1, Q = -1, r = -1, c = -1, me = -1;
    Cblacs_gridinfo(x->desca[LS_DESC_CTXT], &P, &Q, &r, &c);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    char line[400];
    int len = snprintf(line, sizeof line, "liblinsolve_scalapack: %s", routine(x, 0));
    if (x->op == LSS_GETRF)
        len += snprintf(line + len, sizeof line - (size_t)len, " m=%d", x->m);
    len += snprintf(line + len, sizeof line - (size_t)len, " n=%d", x->n);
    if (x->op != LSS_GETRF)
        len += snprintf(line + len, sizeof line - (size_t)len, " nrhs=%d", x->nrhs);
    if (x->op == LSS_GETRS)
        len += snprintf(line + len, sizeof line - (size_t)len, " trans=%c", x->trans);
    len += snprintf(line + len, sizeof line - (size_t)len,
                    " ia=%d ja=%d nb=%d grid=%dx%d rank=%d path=%s%s%s time=%.1e info=%d\n", x->ia,
                    x->ja, x->desca[LS_DESC_NB], P, Q, me, path, why ? " reason=" : "",
                    why ? why : "", t, *x->info);
    if (len > (int)sizeof line - 1)
        len = (int)sizeof line - 1;
    /* one write: lines from several ranks never interleave */
    ssize_t w = write(STDERR_FILENO, line, (size_t)len);
    (void)w;
}

void lss_dispatch(lss_args *x)
{
    void *sys = lss_system_routine(x->op, x->prec);
    if (depth > 0 && sys) {
        run_system(x, sys);
        return;
    }
    const lss_config *cfg = config();
    const double t0 = now();
    const int ctxt = x->desca[LS_DESC_CTXT];
    int P = -1, Q = -1, myr = -1, myc = -1;
    Cblacs_gridinfo(ctxt, &P, &Q, &myr, &myc);
    const int inside = P >= 1 && Q >= 1 && myr >= 0 && myc >= 0 && myr < P && myc < Q;
    const char *why = NULL, *path = "linsolve";
    if (cfg->backend == BACKEND_SYSTEM)
        why = "backend";
    else if (!inside)
        why = "outside";
    else
        why = unsupported(x);
    ls_grid *g = why ? NULL : lss_grid_of(ctxt, &why);
    if (g) {
        int st = run_linsolve(x, g);
        /* both are agreed by every process before A or B is touched */
        if (st == LS_ENOMEM || st == LS_EUNSUPPORTED) {
            why = st == LS_ENOMEM ? "out-of-memory" : "unsupported";
            g = NULL;
        } else if (st < 0 && st > -1001) {
            path = "illegal";
            report_illegal(x, ctxt, -st);
        } else if (st <= -1001) {
            path = "failed";
            fprintf(stderr, "liblinsolve_scalapack: %s failed: %s (%s)\n", routine(x, 0),
                    ls_strerror(st), ls_grid_error(g));
        }
    }
    if (!g) {
        if (sys) {
            path = "scalapack";
            run_system(x, sys);
        } else {
            path = "none";
            *x->info = LS_EUNSUPPORTED;
            fprintf(stderr, "liblinsolve_scalapack: %s: no ScaLAPACK after this library to run "
                            "a call liblinsolve_dist cannot take (%s)\n", routine(x, 0), why);
        }
    }
    if (cfg->trace == TRACE_ALL || (cfg->trace == TRACE_ROOT && myr == 0 && myc == 0))
        trace(x, path, why, now() - t0);
}
