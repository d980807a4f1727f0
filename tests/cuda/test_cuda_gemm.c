/*
 * The tiled GEMM of Panchatcharam, Sundar & Klar (2013) against cuBLAS
 * (any m, n, k; tiles 8/16/32; FP64/FP32), and the kernel registry (every
 * entry's function is a real kernel whose limits admit the launch shape it
 * lists).
 * Exit status: number of failures; 77 without a CUDA device.
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/common/cuda_backend.h"
#include "cuda/common/kernel_registry.h"
#include "linsolve.h"
#include "testutil.h"

#define CHECK_CUDA(call)                                                              \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static int gemm_case(cublasHandle_t h, int prec, int tile, int m, int n, int k)
{
    size_t es = prec == LS_DOUBLE ? sizeof(double) : sizeof(float);
    int lda = m + 3, ldb = k + 1, ldc = m + 2; /* leading dims > rows on purpose */
    size_t na = (size_t)lda * k, nb = (size_t)ldb * n, nc = (size_t)ldc * n;
    double *hA = calloc(na + 1, sizeof *hA), *hB = calloc(nb + 1, sizeof *hB);
    void *a = calloc(na + 1, es), *b = calloc(nb + 1, es), *c1 = calloc(nc + 1, es),
         *c2 = calloc(nc + 1, es);
    void *dA = NULL, *dB = NULL, *dC1 = NULL, *dC2 = NULL;
    if (!hA || !hB || !a || !b || !c1 || !c2) {
        printf("out of host memory\n");
        exit(2);
    }
    ls_fill_random(lda, k, hA, lda, 11u + (unsigned)m);
    ls_fill_random(ldb, n, hB, ldb, 12u + (unsigned)n);
    for (size_t i = 0; i < na; i++) {
        if (prec == LS_DOUBLE) ((double *)a)[i] = hA[i];
        else ((float *)a)[i] = (float)hA[i];
    }
    for (size_t i = 0; i < nb; i++) {
        if (prec == LS_DOUBLE) ((double *)b)[i] = hB[i];
        else ((float *)b)[i] = (float)hB[i];
    }
    CHECK_CUDA(cudaMalloc(&dA, (na + 1) * es));
    CHECK_CUDA(cudaMalloc(&dB, (nb + 1) * es));
    CHECK_CUDA(cudaMalloc(&dC1, (nc + 1) * es));
    CHECK_CUDA(cudaMalloc(&dC2, (nc + 1) * es));
    CHECK_CUDA(cudaMemcpy(dA, a, na * es, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, b, nb * es, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(dC1, 0, nc * es));
    CHECK_CUDA(cudaMemset(dC2, 0, nc * es));
    int st = ls_cuda_gemm_tiled(prec, tile, m, n, k, dA, lda, dB, ldb, dC1, ldc, 0);
    cublasStatus_t bs;
    if (prec == LS_DOUBLE) {
        double one = 1.0, zero = 0.0;
        bs = cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA, lda, dB, ldb, &zero, dC2,
                         ldc);
    } else {
        float one = 1.0f, zero = 0.0f;
        bs = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA, lda, dB, ldb, &zero, dC2,
                         ldc);
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(c1, dC1, nc * es, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(c2, dC2, nc * es, cudaMemcpyDeviceToHost));
    double maxdiff = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            size_t x = i + (size_t)j * ldc;
            double v1 = prec == LS_DOUBLE ? ((double *)c1)[x] : ((float *)c1)[x];
            double v2 = prec == LS_DOUBLE ? ((double *)c2)[x] : ((float *)c2)[x];
            maxdiff = fmax(maxdiff, fabs(v1 - v2));
        }
    /* entries of A and B lie in [-1, 1]: |error| <= ~2 k eps per entry */
    double scaled = maxdiff / ((k > 0 ? k : 1) * ls_eps((ls_precision)prec));
    int ok = st == 0 && bs == CUBLAS_STATUS_SUCCESS && scaled <= 4.0 && !isnan(maxdiff);
    char label[32];
    snprintf(label, sizeof label, "gemm-p%d k=%d", tile, k);
    int fail = lt_row(m, n, label, "cuda", ls_precision_name((ls_precision)prec), 0.0, 0.0, scaled,
                      ok);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC1);
    cudaFree(dC2);
    free(hA);
    free(hB);
    free(a);
    free(b);
    free(c1);
    free(c2);
    return fail;
}

static int test_registry(void)
{
    int fails = 0;
    for (int prec = 0; prec < 2; prec++) {
        const ls_cuda_kernel_desc *d = NULL;
        int count = ls_cuda_kernel_registry(prec, &d);
        fails += lt_check(count >= 20, "registry %s lists %d kernels",
                          ls_precision_name((ls_precision)prec), count);
        for (int i = 0; i < count; i++) {
            struct cudaFuncAttributes attr;
            int blocks = 0;
            cudaError_t e = cudaFuncGetAttributes(&attr, d[i].func);
            if (e == cudaSuccess)
                e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, d[i].func,
                                                                  d[i].block_threads, 0);
            int ok = e == cudaSuccess && attr.maxThreadsPerBlock >= d[i].block_threads &&
                     blocks > 0 && attr.sharedSizeBytes == d[i].static_smem_hint;
            fails += lt_check(ok, "  %-18s %-14.14s %4d threads, smem %zu (hint %zu), regs %d, "
                                  "%d blocks/SM (%s)",
                              d[i].name, d[i].method, d[i].block_threads,
                              e == cudaSuccess ? attr.sharedSizeBytes : 0, d[i].static_smem_hint,
                              e == cudaSuccess ? attr.numRegs : 0, blocks, cudaGetErrorString(e));
        }
    }
    return fails;
}

int main(int argc, char **argv)
{
    /* --sanitize: small shapes only, for compute-sanitizer's slow runs */
    int small = argc > 1 && !strcmp(argv[1], "--sanitize");
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("skipped: no CUDA device (%s)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 77;
    }
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("cublasCreate failed\n");
        return 1;
    }
    int fails = 0;
    lt_header();
    const int shapes[][3] = {{1, 1, 1},     {7, 5, 3},       {16, 16, 16},  {33, 31, 17},
                             {100, 64, 257}, {257, 129, 100}, {512, 512, 512}};
    const int tiles[] = {8, 16, 32};
    for (int prec = 0; prec < 2; prec++)
        for (int t = 0; t < 3; t++)
            for (size_t s = 0; s < (small ? 4 : sizeof shapes / sizeof shapes[0]); s++)
                fails += gemm_case(h, prec, tiles[t], shapes[s][0], shapes[s][1], shapes[s][2]);
    fails += lt_check(ls_cuda_gemm_tiled(LS_DOUBLE, 12, 4, 4, 4, NULL, 4, NULL, 4, NULL, 4, 0) ==
                          LS_EINVAL,
                      "tile 12 refused");
    fails += test_registry();
    cublasDestroy(h);
    printf("%d failure(s)\n", fails);
    return fails > 76 ? 76 : fails;
}
