/*
 * The launch shape of the lu leaves (src/cuda/lu/leaf_shape.c): host
 * arithmetic, so it runs on every machine, GPU or not. Cases worked by hand
 * from the rule: about 32 rows a block, at most want blocks unless a slice
 * of max_smem bytes needs more, none when more than max_blocks would.
 */
#include <stddef.h>

#include "cuda/common/kernels.h"
#include "testutil.h"

static int expect(size_t es, int rows, int w, int want, int max, size_t smem, int G_want,
                  int R_want)
{
    int R = -1, G = lsk_leaf_shape(es, rows, w, want, max, smem, &R);
    return lt_check(G == G_want && (G == 0 || R == R_want),
                    "rows %d w %d es %zu want %d max %d smem %zu -> G %d R %d (want %d, %d)",
                    rows, w, es, want, max, smem, G, R, G_want, R_want);
}

int main(void)
{
    int f = 0;
    const size_t coop = 160 * 1024, cluster = 200 * 1024;
    /* cooperative leaf on 132 SMs, FP64, 32 columns (5120 B a row-slice of 640 rows) */
    f += expect(8, 1, 32, 132, 132, coop, 1, 1);
    f += expect(8, 33, 32, 132, 132, coop, 2, 17);
    f += expect(8, 1024, 32, 132, 132, coop, 32, 32);
    f += expect(8, 4097, 32, 132, 132, coop, 129, 32);
    f += expect(8, 16384, 32, 132, 132, coop, 132, 125);
    f += expect(8, 16384, 32, 16, 132, coop, 26, 631);   /* smem needs 26 > want 16 */
    f += expect(8, 100000, 32, 132, 132, coop, 0, 0);    /* needs 157 blocks > 132 */
    f += expect(4, 100000, 32, 132, 132, coop, 132, 758); /* FP32: needs 79 blocks, fits */
    /* cluster leaf: at most 8 blocks of 200 KiB (800 FP64 rows of 32) */
    f += expect(8, 1024, 32, 8, 8, cluster, 8, 128);
    f += expect(8, 6400, 32, 8, 8, cluster, 8, 800);
    f += expect(8, 6401, 32, 8, 8, cluster, 0, 0);
    f += expect(4, 12800, 32, 8, 8, cluster, 8, 1600);
    printf("%d failure(s)\n", f);
    return f;
}
