/* Core: status table, enum names, flop counts, scaled residual, contexts,
 * ls_solve argument handling. */
#include <math.h>
#include <string.h>

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

int main(void)
{
    int f = test_status() + test_names() + test_flops() + test_residual() + test_solve_args();
    printf("core: %d failure(s)\n", f);
    return f;
}
