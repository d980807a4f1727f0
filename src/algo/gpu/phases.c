/* What every GPU driver shares beyond its primitives: the phase times from
 * the marks (one rule for all backends) and the progress callback. */
#include "gpu_driver.h"

void lsg_phases_report(lsg_elapsed_fn elapsed, void *q, unsigned marked, ls_report *rep)
{
    double *phase[LSG_PHASES] = {NULL, &rep->t_h2d, &rep->t_factor, &rep->t_solve, &rep->t_d2h};
    int last = (marked & (1u << LSG_START)) ? LSG_START : -1;
    for (int i = LSG_START + 1; i < LSG_PHASES; ++i) {
        *phase[i] = 0.0;
        if (!(marked & (1u << i)))
            continue;
        if (last >= 0)
            *phase[i] = elapsed(q, (lsg_phase)last, (lsg_phase)i);
        last = i;
    }
}

void lsg_progress(const ls_job *job, int k, int n)
{
    /* About 32 calls per solve: enough for a progress bar, no sync needed. */
    if (job->progress && n > 0 && (k % (n / 32 + 1)) == 0)
        job->progress(job->progress_arg, (double)k / (double)n, "eliminating");
}
