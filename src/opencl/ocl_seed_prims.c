/* The OpenCL primitives of the published methods (gpu/gpu_driver.h):
 * Li (2025)'s elimination kernels (ge_seed.cl: ge-naive, ge-blocked,
 * ge-coalesced), Quispe Ccapacca's Gauss-Jordan kernels (gj.cl), and the row-major [A | B]
 * pieces every row-major driver shares (rowops.cl, ocl_rowmajor.c). The
 * loops are the shared driver's; lu-seed is not run here (no slot). */
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

typedef struct ocl_seed {
    ocl_ctx *c;
    ocl_tick *ev; /* the dispatcher's marks, [OCL_EV_COUNT_] */
    const ls_job *job;
    ocl_system s;
    ocl_rm_buffers b;
    ocl_rowops r;
    cl_kernel step, back, result; /* the method's step; gj1's backward pass; gj's x = c / d */
    size_t wg_step, wg_back, wg_result;
    int chunk;  /* ge-blocked: pivot-row entries staged per pass */
    void *host; /* the packed [A | B] until it is uploaded */
} ocl_seed;

static int seed_begin(void *q, const ls_job *job, char *err, size_t errlen)
{
    ocl_seed *p = q;
    ocl_ctx *c = p->c;
    int st = 0;
    const int gj = job->method == LS_METHOD_GJ1 || job->method == LS_METHOD_GJ2;
    p->job = job;
    LS_CHECK(ocl_system_init(&p->s, job, err, errlen));
    LS_CHECK(ocl_rm_alloc(c, &p->s, &p->b, err, errlen));
    LS_CHECK(ocl_rowops_get(c, job->prec, &p->r, err, errlen));
    if (gj) {
        const char *name = job->method == LS_METHOD_GJ2 ? "gj2_step" : "gj1_forward";
        LS_CHECK(ocl_kernel_get(c, OCL_FAM_GJ, job->prec, name, &p->step, &p->wg_step, err,
                                errlen));
        if (job->method == LS_METHOD_GJ1)
            LS_CHECK(ocl_kernel_get(c, OCL_FAM_GJ, job->prec, "gj1_backward", &p->back,
                                    &p->wg_back, err, errlen));
        LS_CHECK(ocl_kernel_get(c, OCL_FAM_GJ, job->prec, "gj_result", &p->result,
                                &p->wg_result, err, errlen));
    } else {
        const char *name = "ge_coalesced";
        if (job->method == LS_METHOD_GE_NAIVE)
            name = "ge_naive";
        else if (job->method == LS_METHOD_GE_BLOCKED)
            name = "ge_blocked";
        LS_CHECK(ocl_kernel_get(c, OCL_FAM_GE_SEED, job->prec, name, &p->step, &p->wg_step, err,
                                errlen));
    }
    /* The pivot-row cache of ge-blocked, in chunks of 256 entries (2 KiB
     * in double): small enough for any device's local memory next to other
     * groups, and large n walks the row in several chunks. */
    int chunk = (int)(c->local_mem / 2 / p->s.es);
    if (chunk > 256)
        chunk = 256;
    if (chunk > p->s.w)
        chunk = p->s.w;
    if (chunk < 1)
        chunk = 1;
    p->chunk = chunk;
    /* The transpose into [A | B] is host work: the device clock cannot see
     * it, so it stays outside t_h2d on either timing method. */
    LS_CHECK(ocl_system_pack(&p->s, job, &p->host, err, errlen));
done:
    return st;
}

static void seed_end(void *q)
{
    ocl_seed *p = q;
    cl_kernel *all[] = {&p->step, &p->back, &p->result};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (*all[i]) {
            clReleaseKernel(*all[i]);
            *all[i] = NULL;
        }
    ocl_rowops_release(&p->r);
    ocl_rm_release(&p->b);
    free(p->host);
    p->host = NULL;
}

static int seed_mark(void *q, lsg_phase ph, char *err, size_t errlen)
{
    ocl_seed *p = q;
    return ocl_mark(p->c, &p->ev[ph], err, errlen);
}

static double seed_elapsed(void *q, lsg_phase a, lsg_phase b)
{
    const ocl_seed *p = q;
    return ocl_elapsed(&p->ev[a], &p->ev[b]);
}

static int seed_upload(void *q, char *err, size_t errlen)
{
    ocl_seed *p = q;
    int st = ocl_rm_write(p->c, &p->s, p->host, p->b.M, p->b.info, err, errlen);
    free(p->host);
    p->host = NULL;
    return st;
}

static int seed_pivot(void *q, int k, int search, char *err, size_t errlen)
{
    ocl_seed *p = q;
    return ocl_pivot_step(p->c, &p->r, &p->s, p->b.M, k, search, p->b.piv, p->b.info, 1, err,
                          errlen);
}

/* ge_seed.cl's kernels take (M, n, w, k) first. */
static int ge_args(ocl_seed *p, int k, char *err, size_t errlen)
{
    int st = 0;
    CL_ARG(p->step, 0, p->b.M);
    CL_ARG(p->step, 1, p->s.n);
    CL_ARG(p->step, 2, p->s.w);
    CL_ARG(p->step, 3, k);
done:
    return st;
}

static int ge_naive_step(void *q, int k, char *err, size_t errlen)
{
    ocl_seed *p = q;
    int st = 0;
    LS_CHECK(ge_args(p, k, err, errlen));
    LS_CHECK(ocl_launch1(p->c, p->step, (size_t)(p->s.n - k - 1), ocl_group_size(p->wg_step, 64),
                         err, errlen));
done:
    return st;
}

static int ge_blocked_step(void *q, int k, char *err, size_t errlen)
{
    ocl_seed *p = q;
    int st = 0;
    LS_CHECK(ge_args(p, k, err, errlen));
    CL_ARG(p->step, 4, p->chunk);
    CL_LOCAL_ARG(p->step, 5, (size_t)p->chunk * p->s.es);
    LS_CHECK(ocl_launch1(p->c, p->step, (size_t)(p->s.n - k - 1), ocl_group_size(p->wg_step, 64),
                         err, errlen));
done:
    return st;
}

static int ge_coalesced_step(void *q, int k, char *err, size_t errlen)
{
    ocl_seed *p = q;
    int st = 0;
    LS_CHECK(ge_args(p, k, err, errlen));
    LS_CHECK(ocl_launch1(p->c, p->step, (size_t)(p->s.n - k - 1) * (size_t)(p->s.w - k - 1),
                         ocl_group_size(p->wg_step, 256), err, errlen));
done:
    return st;
}

/* gj.cl's steps: (M, n, w, k) over a count0 x count1 range. */
static int gj_launch(ocl_seed *p, cl_kernel kern, int k, size_t count0, size_t count1, size_t wg,
                     char *err, size_t errlen)
{
    int st = 0;
    size_t l0 = 1, l1 = 1;
    CL_ARG(kern, 0, p->b.M);
    CL_ARG(kern, 1, p->s.n);
    CL_ARG(kern, 2, p->s.w);
    CL_ARG(kern, 3, k);
    ocl_local2(wg, count0, &l0, &l1);
    LS_CHECK(ocl_launch2(p->c, kern, count0, count1, l0, l1, err, errlen));
done:
    return st;
}

static int gj1_forward_step(void *q, int k, char *err, size_t errlen)
{
    ocl_seed *p = q;
    return gj_launch(p, p->step, k, (size_t)(p->s.w - k - 1), (size_t)(p->s.n - k - 1),
                     p->wg_step, err, errlen);
}

static int gj1_backward_step(void *q, int k, char *err, size_t errlen)
{
    ocl_seed *p = q;
    return gj_launch(p, p->back, k, (size_t)p->s.nrhs, (size_t)k, p->wg_back, err, errlen);
}

static int gj2_step(void *q, int k, char *err, size_t errlen)
{
    ocl_seed *p = q;
    return gj_launch(p, p->step, k, (size_t)(p->s.w - k - 1), (size_t)p->s.n, p->wg_step, err,
                     errlen);
}

static int seed_trsolve(void *q, char *err, size_t errlen)
{
    ocl_seed *p = q;
    return ocl_back_substitute(p->c, &p->r, &p->s, p->b.M, p->b.M, 0, p->b.X, err, errlen);
}

static int seed_gj_extract(void *q, char *err, size_t errlen)
{
    ocl_seed *p = q;
    int st = 0;
    size_t l0 = 1, l1 = 1;
    ocl_local2(p->wg_result, (size_t)p->s.n, &l0, &l1);
    CL_ARG(p->result, 0, p->b.M);
    CL_ARG(p->result, 1, p->s.n);
    CL_ARG(p->result, 2, p->s.w);
    CL_ARG(p->result, 3, p->b.X);
    LS_CHECK(ocl_launch2(p->c, p->result, (size_t)p->s.n, (size_t)p->s.nrhs, l0, l1, err,
                         errlen));
done:
    return st;
}

static int seed_read_info(void *q, int *info, char *err, size_t errlen)
{
    ocl_seed *p = q;
    return ocl_read_info(p->c, p->b.info, info, err, errlen);
}

static int seed_download(void *q, int info, char *err, size_t errlen)
{
    ocl_seed *p = q;
    int st = 0;
    if (info == 0)
        LS_CHECK(ocl_read_x(p->c, &p->s, p->b.X, p->job, err, errlen));
    LS_CHECK(ocl_read_ipiv(p->c, p->s.n, p->b.piv, p->job->ipiv, err, errlen));
done:
    return st;
}

static const lsg_seed_ops ocl_seed_ops = {
    .begin = seed_begin,
    .end = seed_end,
    .mark = seed_mark,
    .elapsed = seed_elapsed,
    .upload = seed_upload,
    .pivot = seed_pivot,
    .ge_naive_step = ge_naive_step,
    .ge_blocked_step = ge_blocked_step,
    .ge_coalesced_step = ge_coalesced_step,
    .gj1_forward_step = gj1_forward_step,
    .gj1_backward_step = gj1_backward_step,
    .gj2_step = gj2_step,
    .lu_seed_step = NULL, /* lu-seed is not in this backend's list */
    .trsolve = seed_trsolve,
    .gj_extract = seed_gj_extract,
    .read_info = seed_read_info,
    .download = seed_download,
    .finish = NULL, /* the reads are blocking */
};

int ocl_solve_seed(ocl_ctx *c, const ls_job *job, ocl_tick *ev, ls_report *rep, char *err,
                   size_t errlen)
{
    ocl_seed p;
    memset(&p, 0, sizeof p);
    p.c = c;
    p.ev = ev;
    return lsg_seed_solve(&ocl_seed_ops, &p, ocl_core(), job, rep, err, errlen);
}
