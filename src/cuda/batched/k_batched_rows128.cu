/* The rows-in-registers batched LU (k_batched_rows.cuh) for n <= 128, FP32
 * only: an FP64 row of 128 is 256 registers, more than a thread has.
 * Defines: lsk_brows128_lu_d, lsk_brows128_lu_s */
#include "cuda/batched/k_batched_rows.cuh"

template <typename T>
static cudaError_t brows128_lu(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    if (st->n < 1 || st->n > 128)
        return cudaErrorInvalidValue;
    if constexpr (sizeof(T) == sizeof(double))
        return cudaErrorInvalidValue;
    else
        return lsk_brows_launch<T, 128, 8>(st, nrhs, s);
}
LSK_DEFINE(LSK_BROWS128_LU_SIG, brows128_lu, (st, nrhs, s))
