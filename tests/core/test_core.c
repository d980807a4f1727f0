/* Core: status table, enum names, flop counts, scaled residual, contexts,
 * ls_solve argument handling, the backend table's role check. */
#include <math.h>
#include <string.h>

#include "core/backend.h"
#include "testutil.h"

static int test_status(void)
{
    int f = 0;
    f += lt_check(!strcmp(ls_strerror(LS_OK), "success"), "strerror(OK)");
    f += lt_check(!strcmp(ls_status_name(LS_EIO), "LS_EIO"), "status_name(EIO)");
    f += lt_check(!strcmp(ls_status_name(-3), "LS_ILLEGAL_ARG"), "status_name(-3)");
    f += lt_check(!strcmp(ls_status_name(7), "LS_SINGULAR"), "status_name(7)");
    f += lt_check(strstr(ls_strerror(LS_EDEVMEM), "device memory") != NULL, "strerror(EDEVMEM)");
    return f;
}

static int test_names(void)
{
    int f = 0;
    for (int m = 0; m < LS_METHOD_COUNT_; m++) {
        ls_method back;
        f += lt_check(ls_method_parse(ls_method_name((ls_method)m), &back) == 0 && (int)back == m,
                      "method name round trip %s", ls_method_name((ls_method)m));
    }
    ls_method dummy;
    f += lt_check(ls_method_parse("nonsense", &dummy) == LS_EINVAL, "unknown method refused");
    ls_backend_kind b;
    f += lt_check(ls_backend_parse("opencl", &b) == 0 && b == LS_BACKEND_OPENCL, "backend parse");
    ls_precision p;
    f += lt_check(ls_precision_parse("single", &p) == 0 && p == LS_SINGLE, "precision parse");
    return f;
}

static int test_flops(void)
{
    int f = 0;
    /* 2n^3/3 - n^2/2 + 5n/6 by hand: n=1 -> 1; n=2 -> 16/3-2+5/3 = 5; n=3 -> 18-4.5+2.5 = 16 */
    f += lt_check(fabs(ls_flops_getrf(1, 1) - 1.0) < 1e-12, "getrf(1,1) = 1");
    f += lt_check(fabs(ls_flops_getrf(2, 2) - 5.0) < 1e-12, "getrf(2,2) = 5");
    f += lt_check(fabs(ls_flops_getrf(3, 3) - 16.0) < 1e-12, "getrf(3,3) = 16");
    f += lt_check(fabs(ls_flops_getrs(3, 2) - 2 * (18 - 3)) < 1e-12, "getrs(3,2) = 30");
    f += lt_check(fabs(ls_flops_gesv(1000, 1) - (2e9 / 3 - 5e5 + 5000.0 / 6 + 2e6 - 1000)) < 1e-3,
                  "gesv(1000,1)");
    return f;
}

static int test_residual(void)
{
    int f = 0;
    double A[4] = {2, 0, 0, 4}, X[2] = {1, 1}, B[2] = {2, 4};
    f += lt_check(ls_scaled_residual(2, 1, A, 2, X, 2, B, 2, ls_eps(LS_DOUBLE)) == 0.0,
                  "exact solution has zero residual");
    double Xbad[2] = {1, 1.5};
    double r = ls_scaled_residual(2, 1, A, 2, Xbad, 2, B, 2, ls_eps(LS_DOUBLE));
    /* ||B-AX|| = 2, n=2, ||A|| = 4, ||X|| = 1.5, eps = 2^-53 */
    f += lt_check(fabs(r - 2.0 / (2 * 4 * 1.5 * ldexp(1.0, -53))) < 1e-3 * r, "residual value");
    double Xnan[2] = {NAN, 1};
    f += lt_check(isnan(ls_scaled_residual(2, 1, A, 2, Xnan, 2, B, 2, 1e-16)), "NaN detected");
    return f;
}

static int test_solve_args(void)
{
    int f = 0;
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, LS_BACKEND_CPU, 0);
    f += lt_check(st == 0 && ls_context_backend(ctx) == LS_BACKEND_CPU, "cpu context");
    ls_context *bad = NULL;
    st = ls_context_create(&bad, LS_BACKEND_CPU, -2);
    f += lt_check(st == LS_EINVAL && bad && ls_context_error(bad)[0], "negative device refused");
    ls_context_destroy(bad);
    ls_context *autoc = NULL;
    st = ls_context_create(&autoc, LS_BACKEND_AUTO, 0);
    f += lt_check(st == 0 && ls_context_backend(autoc) != LS_BACKEND_AUTO && ls_context_note(autoc)[0],
                  "auto never fails and says what it picked (%s)", ls_context_note(autoc));
    ls_context_destroy(autoc);

    double A[4] = {1, 2, 3, 4}, B[2] = {1, 1};
    ls_options opt;
    ls_options_init(&opt);
    ls_report rep;
    f += lt_check(ls_solve(ctx, &opt, -1, 1, A, 2, B, 2, &rep) == LS_EINVAL, "n<0 refused");
    f += lt_check(ls_solve(ctx, &opt, 2, 1, A, 1, B, 2, &rep) == LS_EINVAL, "lda<n refused");
    double Ainf[4] = {1, INFINITY, 3, 4};
    f += lt_check(ls_solve(ctx, &opt, 2, 1, Ainf, 2, B, 2, &rep) == LS_ENONFINITE,
                  "non-finite A refused: %s", rep.message);
    /* plain words in the message, the source location in its own field, both
     * still together in the context's error */
    f += lt_check(rep.message[0] && !strchr(rep.message, '[') && strstr(rep.where, "solve.c:") &&
                      strstr(ls_context_error(ctx), "[solve.c:"),
                  "message '%s' without its location '%s'", rep.message, rep.where);
    ls_report_clear(&rep);
    double S[4] = {1, 2, 2, 4}, Bs[2] = {1, 1};
    opt.method = LS_METHOD_LU;
    st = ls_solve(ctx, &opt, 2, 1, S, 2, Bs, 2, &rep);
    f += lt_check(st == 2 && rep.info == 2 && strstr(rep.message, "U(2,2)"),
                  "singular 2x2 gives info 2 (%s)", rep.message);
    ls_report_clear(&rep);
    ls_context_destroy(ctx);
    return f;
}

/* Stand-ins for the slots of a backend table: never called, only present. */
static void fake_destroy(void *b) { (void)b; }
static void fake_name(void *b, char *buf, size_t len) { (void)b, (void)buf, (void)len; }
static int fake_supports(void *b, ls_method m, ls_precision p, char *e, size_t l)
{
    (void)b, (void)m, (void)p, (void)e, (void)l;
    return 0;
}
static ls_method fake_auto(void *b, ls_precision p)
{
    (void)b, (void)p;
    return LS_METHOD_LU;
}
static int fake_solve(void *b, const ls_job *j, ls_report *r, char *e, size_t l)
{
    (void)b, (void)j, (void)r, (void)e, (void)l;
    return 0;
}
static int fake_status(void *b, char *e, size_t l)
{
    (void)b, (void)e, (void)l;
    return 0;
}
static int fake_mixed_open(void *b, struct ls_mixed_problem *pb, const struct ls_mixed_ops **o,
                           void **ws, char *e, size_t l)
{
    (void)b, (void)pb, (void)o, (void)ws, (void)e, (void)l;
    return 0;
}
static int fake_krylov_open(void *b, const struct ls_krylov_sys *s, struct ls_kr_ops *o, char *e,
                            size_t l)
{
    (void)b, (void)s, (void)o, (void)e, (void)l;
    return 0;
}

/* ls_backend_roles_check: a table is refused, naming what it lacks, when
 * its core or a role it fills misses a required slot; optional slots and
 * absent roles pass. The real backends' tables pass when they open. */
static int test_roles_check(void)
{
    int f = 0;
    char err[LS_ERRLEN];
    ls_backend_iface t = {.name = "fake", .abi = LS_PLUGIN_ABI, .destroy = fake_destroy,
                          .device_name = fake_name, .supports = fake_supports,
                          .auto_method = fake_auto, .solve = fake_solve};
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == 0, "the core alone passes");
    t.solve = NULL;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == LS_EUNAVAIL &&
                   strstr(err, "fake backend") && strstr(err, "core slot"),
               "a core without solve is refused, naming the backend");
    t.solve = fake_solve;

    /* the device role: every slot but check_gpu required (a stand-in of
     * the wrong type is never called, so one cast pointer stands for all) */
    void (*any)(void) = (void (*)(void))fake_status;
    ls_device_role d = {0};
    d.set_stream = (int (*)(void *, void *, char *, size_t))any;
    t.device = &d;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == LS_EUNAVAIL &&
                   strstr(err, "device role"),
               "a device role with only set_stream is refused");
    d.get_stream = (void *(*)(void *))any;
    d.dev_malloc = (int (*)(void *, void **, size_t, char *, size_t))any;
    d.dev_free = (int (*)(void *, void *, char *, size_t))any;
    d.dev_copy = (int (*)(void *, void *, const void *, size_t, char *, size_t))any;
    d.dev_sync = fake_status;
    d.getrf_gpu = (int (*)(void *, ls_precision, int, int, void *, int, int *, int *, char *,
                           size_t))any;
    d.getrs_gpu = (int (*)(void *, ls_precision, char, int, int, const void *, int, const int *,
                           void *, int, int *, char *, size_t))any;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == LS_EUNAVAIL,
               "a device role without gesv_gpu is refused");
    d.gesv_gpu = (int (*)(void *, ls_precision, int, int, void *, int, int *, void *, int, int *,
                          char *, size_t))any;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == 0,
               "a device role without the optional check_gpu passes");

    /* mixed needs the device role */
    ls_mixed_role mx = {.open = fake_mixed_open};
    t.mixed = &mx;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == 0, "mixed with device passes");
    t.device = NULL;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == LS_EUNAVAIL &&
                   strstr(err, "mixed"),
               "mixed without the device role is refused");
    t.mixed = NULL;

    ls_batched_role bt = {0};
    t.batched = &bt;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == LS_EUNAVAIL,
               "a batched role without run is refused");
    t.batched = NULL;

    /* sparse: the Krylov pair both or neither, direct optional */
    ls_sparse_role sp = {.krylov_open = fake_krylov_open};
    t.sparse = &sp;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == LS_EUNAVAIL &&
                   strstr(err, "krylov"),
               "krylov_open without krylov_close is refused");
    sp.krylov_open = NULL;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == 0,
               "an empty sparse role passes (each part optional)");

    ls_dense_role dn = {0};
    t.sparse = NULL;
    t.dense = &dn;
    f += lt_check(ls_backend_roles_check(&t, err, sizeof err) == 0,
               "an empty dense role passes (each slot optional)");
    return f;
}

int main(void)
{
    int f = test_status() + test_names() + test_flops() + test_residual() + test_solve_args() +
            test_roles_check();
    printf("core: %d failure(s)\n", f);
    return f;
}
