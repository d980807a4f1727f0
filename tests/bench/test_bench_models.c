/*
 * Counting formulas checked against hand-worked values and against the
 * numbers the sources publish: LAPACK's flop counts (computed by hand from
 * 2n^3/3 - n^2/2 + 5n/6 and nrhs(2n^2 - n)), the GEMM transaction count and
 * volume for p = 16 of Panchatcharam, Sundar & Klar (2013), Pattam's
 * thread-invocation table.
 * Exit status: number of failures.
 */
#include <math.h>
#include <stdio.h>

#include "linsolve.h"
#include "models.h"
#include "testutil.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }

int main(void)
{
    int bad = 0;
    /* getrf(n,n) = 2n^3/3 - n^2/2 + 5n/6:
     * n=1: 2/3 - 1/2 + 5/6 = 1;  n=2: 16/3 - 2 + 5/3 = 5;
     * n=3: 18 - 9/2 + 5/2 = 16;  n=10: 2000/3 - 50 + 25/3 = 625;
     * n=100: 2e6/3 - 5000 + 250/3 = 661750. */
    const double n_[] = {1, 2, 3, 10, 100}, want[] = {1, 5, 16, 625, 661750};
    for (int i = 0; i < 5; i++)
        bad += lt_check(near(ls_flops_getrf(n_[i], n_[i]), want[i]), "getrf(%g,%g) = %g (want %g)",
                        n_[i], n_[i], ls_flops_getrf(n_[i], n_[i]), want[i]);
    /* getrs = nrhs (2n^2 - n): n=3, nrhs=2: 2 * 15 = 30; n=1, nrhs=1: 1. */
    bad += lt_check(near(ls_flops_getrs(3, 2), 30), "getrs(3,2) = %g (want 30)", ls_flops_getrs(3, 2));
    bad += lt_check(near(ls_flops_getrs(1, 1), 1), "getrs(1,1) = %g (want 1)", ls_flops_getrs(1, 1));
    bad += lt_check(near(ls_flops_gesv(10, 3), 625 + 3 * 190), "gesv(10,3) = getrf + getrs = %g",
                    ls_flops_gesv(10, 3));
    /* The bench's per-method flops are LAPACK's gesv for dense methods. */
    bad += lt_check(near(ls_model_flops(LS_METHOD_GJ1, 10, 3, 0), 1195), "model flops gj1 = gesv");

    /* Panchatcharam, Sundar & Klar (2013), p = 16, float: m^3/128 + m^2/16
     * transactions, V = m^3/2 + 4m^2. */
    for (int m = 256; m <= 4096; m *= 4) {
        ls_model_xfer x;
        ls_model_gemm(m, 16, 4, &x);
        double dm = m;
        bad += lt_check(near(x.transactions, dm * dm * dm / 128 + dm * dm / 16) &&
                            near(x.volume, dm * dm * dm / 2 + 4 * dm * dm) && x.beta == 1.0,
                        "gemm model m=%d p=16: N=%g V=%g beta=%g (Panchatcharam et al.)", m,
                        x.transactions, x.volume, x.beta);
    }
    /* Pattam's table: total threads and peak threads with Pattam's
     * assumption of a row exchange at half of the n-1 steps. */
    const int sn[] = {50, 80, 100, 200, 500};
    const double total[] = {44249, 177199, 343499, 2706999, 41917499};
    const double peak[] = {2401, 6241, 9801, 39601, 249001};
    for (int i = 0; i < 5; i++) {
        double t = ls_model_luseed_threads(sn[i], 0.5 * (sn[i] - 1));
        double p = ls_model_luseed_peak_threads(sn[i]);
        bad += lt_check(near(t, total[i]) && near(p, peak[i]),
                        "lu-seed threads n=%d: total %.0f (Pattam %.0f), peak %.0f (Pattam %.0f)",
                        sn[i], t, total[i], p, peak[i]);
    }
    /* CGMA grows ~linearly in n under the ideal count (flops / 2n^2 ~ n/3). */
    double c1 = ls_model_luseed_cgma(500, 1, 1), c2 = ls_model_luseed_cgma(1000, 1, 1);
    bad += lt_check(c2 > 1.9 * c1 && c2 < 2.1 * c1, "ideal CGMA doubles with n: %g -> %g", c1, c2);
    /* Byte models: positive, GE family O(n^3), LU blocked smaller than GE. */
    double bge = ls_model_bytes(LS_METHOD_GE, 1024, 1, 8, 0);
    double blu = ls_model_bytes(LS_METHOD_LU, 1024, 1, 8, 0);
    bad += lt_check(bge > 8 * 2.0 / 3 * 1024.0 * 1024 * 1024 * 0.9 && blu > 0 && blu < bge,
                    "byte models: ge %.3g B, lu %.3g B", bge, blu);
    bad += lt_check(near(ls_model_bytes(LS_METHOD_GE, 100, 1, 4, 0) * 2,
                         ls_model_bytes(LS_METHOD_GE, 100, 1, 8, 0)),
                    "bytes scale with the element size");
    printf("%d failure(s)\n", bad);
    return bad;
}
