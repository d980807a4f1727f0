/* The CUDA primitives of the seed methods (gpu/gpu_driver.h): ge-naive,
 * ge-blocked, ge-coalesced, gj1, gj2 on the row-major augmented [A | B]
 * (built on the device from A and B), lu-seed on the column-major A and B.
 * The loops are the shared driver's (gpu/seed_driver.c); the slots that
 * touch elements are written once in seed_prims_impl.h, per precision. */
#include "cuda/common/cuda_backend.h"
#include "algo/gpu/gpu_driver.h"
#include "cuda/steps/k_steps.h"

#include <stdio.h>
#include <string.h>

/* Where the 2-D grids of one-thread-per-element kernels stop fitting. */
#define LSC_SEED_MAX_N (65535 * LSK_ELEM_Y)

_Static_assert(LSC_EV_START == (int)LSG_START && LSC_EV_H2D == (int)LSG_H2D &&
                   LSC_EV_FACTOR == (int)LSG_FACTOR && LSC_EV_SOLVE == (int)LSG_SOLVE &&
                   LSC_EV_D2H == (int)LSG_D2H,
               "the context's events are the drivers' phases");

/* One solve's device system. */
typedef struct lsc_seed {
    ls_cuda_ctx *c;
    const ls_job *job;
    int augmented; /* [A | B] row-major in dM; else lu-seed on dA, dB */
    void *dA, *dB, *dM;
    int *d_ipiv, *d_info;
} lsc_seed;

static void seed_end(void *q)
{
    lsc_seed *p = q;
    cudaFree(p->dA);
    cudaFree(p->dB);
    cudaFree(p->dM);
    cudaFree(p->d_ipiv);
    cudaFree(p->d_info);
    p->dA = p->dB = p->dM = NULL;
    p->d_ipiv = p->d_info = NULL;
}

static int seed_mark(void *q, lsg_phase ph, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0;
    LSC_CUDA(cudaEventRecord(p->c->ev[ph], p->c->stream));
done:
    return st;
}

static double seed_elapsed(void *q, lsg_phase a, lsg_phase b)
{
    const lsc_seed *p = q;
    return lsc_elapsed(p->c->ev[a], p->c->ev[b]);
}

static int seed_read_info(void *q, int *info, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0;
    LSC_CUDA(cudaMemcpyAsync(info, p->d_info, sizeof(int), cudaMemcpyDeviceToHost, p->c->stream));
    LSC_CUDA(cudaStreamSynchronize(p->c->stream));
done:
    return st;
}

static int seed_finish(void *q, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0;
    LSC_CUDA(cudaStreamSynchronize(p->c->stream));
    LSC_CUDA(cudaGetLastError());
done:
    return st;
}

#define LS_REAL_IMPL "cuda/steps/seed_prims_impl.h"
#include "common/instantiate_real.h"

int lsc_solve_seed(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    lsc_seed p;
    memset(&p, 0, sizeof p);
    p.c = c;
    const lsg_seed_ops *ops = job->prec == LS_DOUBLE ? &lsc_seed_ops_d : &lsc_seed_ops_s;
    int st = lsg_seed_solve(ops, &p, c->core, job, rep, err, errlen);
    if (st >= 0 && rep) {
        rep->info = st;
        snprintf(rep->message, sizeof rep->message, "%s%s on %s", ls_method_name(job->method),
                 job->pivot == LS_PIVOT_NONE ? " (no pivoting)" : "", c->name);
    }
    return st;
}
