/* The shape of an LU leaf launch (host arithmetic, shared by the
 * cooperative and the cluster leaf; see kernels.h). */
#include "cuda/lu/k_lu.h"

int lsk_leaf_shape(size_t es, int rows, int w, int want_blocks, int max_blocks, size_t max_smem,
                   int *R)
{
    int fit = (int)(max_smem / ((size_t)w * es)); /* rows a block can hold */
    int G = (rows + 31) / 32, need = (rows + fit - 1) / fit;
    if (G > want_blocks)
        G = want_blocks;
    if (G < need)
        G = need;
    if (G < 1)
        G = 1;
    *R = (rows + G - 1) / G;
    if (G > max_blocks || (size_t)(*R) * w * es > max_smem)
        return 0;
    return G;
}
