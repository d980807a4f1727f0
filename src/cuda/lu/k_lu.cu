/* Panel kernels of the blocked LU (method "lu"): the panel is factored one
 * column at a time with two launches per column, pivots kept on the device.
 * The trailing matrix is left to cuBLAS (trsm + gemm) by the host code.
 * Defines: lsk_panel_column_d, lsk_panel_column_s, lsk_panel_update_d,
 *   lsk_panel_update_s, lsk_reg_lu_d, lsk_reg_lu_s */
#include "cuda/common/k_common.cuh"
#include "cuda/lu/k_lu.h"

/* One block does the whole column: the argmax over rows [j, m), the swap of
 * rows j and p inside the panel's columns, and the scaling of the column
 * below the pivot. Fusing the three saves two launches per column, and the
 * pivot search is one block anyway (it needs a global maximum). */
template <typename T>
__global__ void lsk_panel_column_kernel(int m, int j, int j0, int jb, T *A, int lda, int *ipiv,
                                        int *info)
{
    __shared__ T best_val[LSK_PANEL_THREADS];
    __shared__ int best_row[LSK_PANEL_THREADS];
    T *col = A + (long long)j * lda;
    T v = (T)-1;
    int row = j;
    for (int i = j + threadIdx.x; i < m; i += blockDim.x) {
        T a = lsk_abs(col[i]);
        if (a > v) {
            v = a;
            row = i;
        }
    }
    best_val[threadIdx.x] = v;
    best_row[threadIdx.x] = row;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            T ov = best_val[threadIdx.x + half];
            int orow = best_row[threadIdx.x + half];
            if (ov > best_val[threadIdx.x] ||
                (ov == best_val[threadIdx.x] && orow < best_row[threadIdx.x])) {
                best_val[threadIdx.x] = ov;
                best_row[threadIdx.x] = orow;
            }
        }
        __syncthreads();
    }
    int p = best_row[0];
    T maxabs = best_val[0];
    if (threadIdx.x == 0) {
        ipiv[j] = p + 1;
        if (maxabs == (T)0 && *info == 0)
            *info = j + 1;
    }
    if (maxabs == (T)0)
        return; /* LAPACK: zero column, nothing to swap or scale */
    if (p != j)
        for (int c = threadIdx.x; c < jb; c += blockDim.x) {
            T *pc = A + (long long)(j0 + c) * lda;
            T t = pc[j];
            pc[j] = pc[p];
            pc[p] = t;
        }
    __syncthreads();
    T inv = (T)1 / col[j];
    for (int i = j + 1 + threadIdx.x; i < m; i += blockDim.x)
        col[i] *= inv;
}

template <typename T>
__global__ void lsk_panel_update_kernel(int m, int j, int j0, int jb, T *A, int lda)
{
    int i = j + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    int c = j + 1 + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || c >= j0 + jb)
        return;
    A[i + (long long)c * lda] -= A[i + (long long)j * lda] * A[j + (long long)c * lda];
}

template <typename T>
static cudaError_t panel_column(int m, int j, int j0, int jb, T *dA, int lda, int *d_ipiv,
                                int *d_info, cudaStream_t s)
{
    lsk_panel_column_kernel<T><<<1, LSK_PANEL_THREADS, 0, s>>>(m, j, j0, jb, dA, lda, d_ipiv,
                                                                d_info);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_PANEL_COLUMN_SIG, panel_column, (m, j, j0, jb, dA, lda, d_ipiv, d_info, s))

template <typename T>
static cudaError_t panel_update(int m, int j, int j0, int jb, T *dA, int lda, cudaStream_t s)
{
    int rows = m - j - 1, cols = j0 + jb - j - 1;
    if (rows <= 0 || cols <= 0)
        return cudaSuccess;
    dim3 block(LSK_PUPD_X, LSK_PUPD_Y);
    dim3 grid(lsk_blocks(rows, LSK_PUPD_X), lsk_blocks(cols, LSK_PUPD_Y));
    lsk_panel_update_kernel<T><<<grid, block, 0, s>>>(m, j, j0, jb, dA, lda);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_PANEL_UPDATE_SIG, panel_update, (m, j, j0, jb, dA, lda, s))

template <typename T>
static int reg_lu(ls_cuda_kernel_desc *out)
{
    int count = 0;
    LSK_REG("panel_column", "lu", lsk_panel_column_kernel<T>, LSK_PANEL_THREADS,
            LSK_PANEL_THREADS * (sizeof(T) + sizeof(int)));
    LSK_REG("panel_update", "lu", lsk_panel_update_kernel<T>, LSK_PUPD_X * LSK_PUPD_Y, 0);
    return count;
}
LSK_DEFINE(LSK_REG_LU_SIG, reg_lu, (out))
