/*
 * On a CUDA GPU: for every kernel the CUDA backend registers (and the
 * measurement kernels), the occupancy formula of Panchatcharam, Sundar &
 * Klar (2013) must give the same blocks per SM as
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor, in both precisions and at
 * a small and a large n. Exits 77 (skip) without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/perf/perf.h"
#include "linsolve.h"
#include "metrics_parts.h"
#include "occupancy.h"
#include "testutil.h"

int main(void)
{
    char why[256];
    if (!lt_backend_available(LS_BACKEND_CUDA, why, sizeof why)) {
        printf("skip: %s\n", why);
        return 77;
    }
    ls_context *ctx = NULL;
    if (ls_context_create(&ctx, LS_BACKEND_CUDA, 0) != 0) {
        printf("skip: %s\n", ctx ? ls_context_error(ctx) : "no CUDA context");
        ls_context_destroy(ctx);
        return 77;
    }
    int bad = 0;
    char err[LS_ERRLEN] = "";
    ls_perf_device d;
    const ls_perf_iface *perf = ls_perf_table(ctx);
    void *bctx = ls_perf_backend_ctx(ctx);
    if (!perf || !perf->device || perf->device(bctx, &d, err, sizeof err) != 0) {
        bad += lt_check(0, "perf table answers device: %s", err);
        ls_context_destroy(ctx);
        return bad;
    }
    ls_occ_gpu g;
    ls_metrics_gpu_from_device(&d, &g);
    ls_perf_kernels_out *ks = malloc(sizeof *ks);
    for (int prec = 0; prec < 2 && ks; prec++)
        for (int n = 64; n <= 4096; n *= 64) {
            ls_perf_kernels_in in = {(ls_precision)prec, n, 1};
            if (!perf->kernels || perf->kernels(bctx, &in, ks, err, sizeof err) != 0) {
                bad += lt_check(0, "perf kernels: %s", err);
                continue;
            }
            bad += lt_check(ks->count > 4, "%d kernels listed (%s, n=%d)", ks->count,
                            prec ? "single" : "double", n);
            for (int i = 0; i < ks->count; i++) {
                const ls_perf_kernel *k = &ks->k[i];
                ls_occ_kernel kk = {k->block_threads, k->num_regs, k->static_smem, k->dynamic_smem,
                                    k->max_dynamic_smem};
                ls_occ_result r;
                ls_occ_compute(&g, &kk, &r);
                bad += lt_check(r.blocks_per_sm == k->cuda_active_blocks,
                                "%-32s %4d thr %3d regs %6zu+%zu B: formula %d blocks, CUDA %d",
                                k->name, k->block_threads, k->num_regs, k->static_smem,
                                k->dynamic_smem, r.blocks_per_sm, k->cuda_active_blocks);
            }
        }
    free(ks);
    ls_context_destroy(ctx);
    printf("%d failure(s)\n", bad);
    return bad;
}
