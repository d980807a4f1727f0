/* The rows-in-registers batched LU (k_batched_rows.cuh) for n <= 64,
 * both precisions.
 * Defines: lsk_brows64_lu_d, lsk_brows64_lu_s, lsk_brows_bytes_d,
 *   lsk_brows_bytes_s */
#include "cuda/batched/k_batched_rows.cuh"

template <typename T>
static cudaError_t brows64_lu(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    if (st->n < 1 || st->n > 64)
        return cudaErrorInvalidValue;
    return lsk_brows_launch<T, 64, 8>(st, nrhs, s);
}
LSK_DEFINE(LSK_BROWS64_LU_SIG, brows64_lu, (st, nrhs, s))

template <typename T>
static size_t brows_bytes(int n, int nrhs)
{
    if (n <= 64)
        return nrhs <= 1 ? br_shape<T, 64, 1, 8>::bytes : br_shape<T, 64, LSK_BROWS_MAXRHS, 8>::bytes;
    return nrhs <= 1 ? br_shape<T, 128, 1, 8>::bytes : br_shape<T, 128, LSK_BROWS_MAXRHS, 8>::bytes;
}
LSK_DEFINE(LSK_BROWS_BYTES_SIG, brows_bytes, (n, nrhs))
