/*
 * The occupancy formula of Panchatcharam, Sundar & Klar (2013)
 * (tools/bench/occupancy.c) against cases worked by hand with the CUDA
 * occupancy calculator's rules. cc 9.0 (H100):
 * 64 warps/SM, 32 blocks/SM, 65536 registers/SM (4 sub-partitions of
 * 16384), register unit 256 per warp, 233472 B shared memory/SM, unit 128 B,
 * 1 KB reserved per block. Exit status: number of failures.
 */
#include <stdio.h>

#include "occupancy.h"
#include "testutil.h"

typedef struct occ_case {
    int ccmaj, ccmin, threads, regs;
    size_t smem, dyn, maxdyn;
    int blocks;      /* expected blocks per SM */
    double occ;      /* expected occupancy */
    const char *why; /* the hand working */
} occ_case;

static const occ_case CASES[] = {
    {9, 0, 256, 32, 0, 0, 0, 8, 1.0,
     "8 warps/block; warps: 64/8 = 8; regs: 32*32 = 1024/warp, 16384/1024 = 16 warps per "
     "sub-partition = 64 -> 8; smem: 1 KB reserved -> 228; min 8 -> 64 warps = 1.0"},
    {9, 0, 1024, 64, 0, 0, 0, 1, 0.5,
     "32 warps; warps: 2; regs: 2048/warp, 8 per sub-partition = 32 warps -> 1 block; 0.5"},
    {9, 0, 128, 32, 49152, 0, 0, 4, 0.25,
     "smem: floor(233472 / (49152 + 1024)) = 4 blocks (warps allow 16, regs 16) -> 16 warps"},
    {9, 0, 64, 255, 0, 0, 0, 4, 0.125,
     "regs: 255*32 = 8160 -> 8192/warp, 16384/8192 = 2 per sub-partition = 8 warps -> 4 blocks"},
    {9, 0, 32, 16, 0, 0, 0, 32, 0.5, "1 warp/block: the 32-block cap binds -> 32 warps = 0.5"},
    {9, 0, 96, 40, 0, 0, 0, 16, 0.75,
     "3 warps; regs: 40*32 = 1280/warp, 16384/1280 = 12 per sub-partition = 48 warps -> 16 "
     "blocks (whole-SM count 65536/3840 = 17 would be wrong); warps allow 21"},
    {9, 0, 1025, 16, 0, 0, 0, 0, 0.0, "over 1024 threads per block: cannot launch"},
    {9, 0, 256, 32, 0, 100000, 200000, 2, 0.25,
     "100000 + 1024 = 101024 -> 101120 (128 B units); 233472 / 101120 = 2 blocks"},
    {9, 0, 256, 32, 0, 100000, 0, 0, 0.0,
     "100000 B dynamic without the opt-in attribute exceeds the 48 KB default: 0 blocks"},
    {8, 0, 256, 32, 49152, 0, 0, 3, 0.375,
     "A100: 167936 / (49152 + 1024) = 3 blocks -> 24 warps of 64"},
    {8, 6, 256, 32, 0, 0, 0, 6, 1.0, "cc 8.6: 48 warps/SM, 6 blocks of 8 warps = 1.0"},
    {7, 0, 256, 64, 0, 0, 0, 4, 0.5,
     "V100: regs 2048/warp, 8 per sub-partition = 32 warps -> 4 blocks; no reserved smem"},
};

int main(void)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const occ_case *c = &CASES[i];
        ls_occ_gpu g;
        if (ls_occ_gpu_preset(c->ccmaj, c->ccmin, &g) != 0) {
            bad += lt_check(0, "preset cc %d.%d", c->ccmaj, c->ccmin);
            continue;
        }
        ls_occ_kernel k = {c->threads, c->regs, c->smem, c->dyn, c->maxdyn};
        ls_occ_result r;
        ls_occ_compute(&g, &k, &r);
        int ok = r.blocks_per_sm == c->blocks && r.occupancy > c->occ - 1e-12 &&
                 r.occupancy < c->occ + 1e-12;
        bad += lt_check(ok, "cc %d.%d %4d thr %3d regs %6zu+%6zu B smem: %d blocks, occ %.3f "
                            "(want %d, %.3f; %s) [%s]",
                        c->ccmaj, c->ccmin, c->threads, c->regs, c->smem, c->dyn, r.blocks_per_sm,
                        r.occupancy, c->blocks, c->occ, r.limiter, c->why);
    }
    /* Proposition 2.2: 0 <= lambda <= 1 over a sweep of configurations. */
    ls_occ_gpu g;
    ls_occ_gpu_preset(9, 0, &g);
    int in_range = 1;
    for (int t = 32; t <= 1024; t += 32)
        for (int regs = 8; regs <= 255; regs += 13)
            for (size_t s = 0; s <= 48000; s += 6000) {
                ls_occ_kernel k = {t, regs, s, 0, 0};
                ls_occ_result r;
                ls_occ_compute(&g, &k, &r);
                in_range &= r.occupancy >= 0.0 && r.occupancy <= 1.0;
            }
    bad += lt_check(in_range, "0 <= occupancy <= 1 over 32..1024 threads, 8..255 regs, 0..48 KB");
    printf("%d failure(s)\n", bad);
    return bad;
}
