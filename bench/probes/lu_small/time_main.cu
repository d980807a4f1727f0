/* Times the small-n LU kernel alone (k_lu_small.cu, not instrumented), as
 * gesv (factor and solve of one right-hand side in the one launch: what
 * lsc_gesv_device runs) and as getrf (nrhs 0), so that two copies of the
 * kernel (a commit's and the working tree's) can be compared in one
 * session without building the library twice:
 *
 *   nvcc -arch=sm_90 -std=c++17 -O3 -I COPY -Isrc -Iinclude \
 *        bench/probes/lu_small/time_main.cu -o lustime
 *   lustime [N,N,...]          (default 32,64,128,256,384,512)
 *
 * COPY holds cuda/lu/k_lu_small.cu, k_lu_small_panel.cuh and lu_small.h of
 * the version to time (src itself for the tree's). For each n and
 * precision: the cluster the library's planner picks (lu_small.c: the
 * smallest power of two giving each block at most one 32-column panel,
 * grown until [A | b] fits shared memory; sizes it cannot take in shared
 * memory are skipped), 3 warm-ups, then 15 timed launches (device events
 * around the launch alone; A and b restored before each, off the clock),
 * the median and the minimum in microseconds, and the scaled residual
 * ||b - A x||inf / (n ||A||inf ||x||inf eps) of the last solve. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/lu/k_lu_small.cu"

static size_t head_elems() { return (size_t)32 * (33 + 36); }

/* The planner's dynamic shared memory for [A | B] over G blocks. */
static size_t smem_elems(int n, int nrhs, int G)
{
    int ncol = n + nrhs, nblk = (ncol + 31) / 32;
    size_t cols_max = 0;
    for (int b = 0; b < G; b++) {
        size_t c = 0;
        for (int jb = b; jb < nblk; jb += G)
            c += (size_t)std::min(32, ncol - jb * 32);
        cols_max = std::max(cols_max, c);
    }
    size_t e = cols_max * (size_t)n;
    if (nrhs > 0)
        e = std::max(e, (size_t)32 * 33 + (size_t)n);
    return head_elems() + e;
}

template <typename T>
static void one(int n, int nrhs, size_t limit, int gmax)
{
    const char *pn = sizeof(T) == 8 ? "double" : "single";
    int np = (n + 31) / 32, G = 1;
    while (G < gmax && G < np)
        G *= 2;
    while (G < gmax && smem_elems(n, nrhs, G) * sizeof(T) > limit)
        G *= 2;
    size_t smem = smem_elems(n, nrhs, G) * sizeof(T);
    if ((sizeof(T) == 8 && n > 512) || smem > limit) {
        printf("%5d %-6s %s  skipped: not in shared memory\n", n, pn, nrhs ? "gesv " : "getrf");
        return;
    }
    size_t nn = (size_t)n * n;
    std::vector<double> A(nn), b(n);
    srand(7);
    for (auto &x : A)
        x = rand() / (double)RAND_MAX - 0.5;
    for (auto &x : b)
        x = rand() / (double)RAND_MAX - 0.5;
    std::vector<T> hA(A.begin(), A.end()), hb(b.begin(), b.end());
    T *dA, *dB;
    int *ipiv, *info;
    cudaMalloc(&dA, nn * sizeof(T));
    cudaMalloc(&dB, n * sizeof(T));
    cudaMalloc(&ipiv, n * sizeof(int));
    cudaMalloc(&info, sizeof(int));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> t;
    for (int rep = 0; rep < 18; rep++) {
        cudaMemcpy(dA, hA.data(), nn * sizeof(T), cudaMemcpyHostToDevice);
        cudaMemcpy(dB, hb.data(), n * sizeof(T), cudaMemcpyHostToDevice);
        cudaDeviceSynchronize();
        cudaEventRecord(e0);
        cudaError_t e = sizeof(T) == 8
                            ? lsk_lu_small_d(n, nrhs, (double *)dA, n, (double *)dB, n, ipiv,
                                             info, G, smem, 1, 0)
                            : lsk_lu_small_s(n, nrhs, (float *)dA, n, (float *)dB, n, ipiv, info,
                                             G, smem, 1, 0);
        cudaEventRecord(e1);
        cudaError_t s = cudaDeviceSynchronize();
        if (e != cudaSuccess || s != cudaSuccess) {
            printf("%5d %-6s launch: %s\n", n, pn, cudaGetErrorString(e != cudaSuccess ? e : s));
            exit(1);
        }
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (rep >= 3)
            t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    double res = NAN;
    int hinfo = -1;
    cudaMemcpy(&hinfo, info, sizeof(int), cudaMemcpyDeviceToHost);
    if (nrhs) {
        std::vector<T> x(n);
        cudaMemcpy(x.data(), dB, n * sizeof(T), cudaMemcpyDeviceToHost);
        double an = 0, xn = 0, rn = 0;
        for (int i = 0; i < n; i++) {
            double r = b[i], s = 0;
            for (int k = 0; k < n; k++)
                r -= A[i + (size_t)k * n] * (double)x[k], s += fabs(A[i + (size_t)k * n]);
            an = std::max(an, s), rn = std::max(rn, fabs(r)), xn = std::max(xn, fabs((double)x[i]));
        }
        double eps = sizeof(T) == 8 ? 0x1p-53 : 0x1p-24;
        res = rn / (n * an * xn * eps);
    }
    printf("%5d %-6s %s G=%2d  median %8.1f us  min %8.1f us  info %d  residual %.3g\n", n, pn,
           nrhs ? "gesv " : "getrf", G, t[t.size() / 2], t[0], hinfo, res);
    cudaFree(dA), cudaFree(dB), cudaFree(ipiv), cudaFree(info);
    cudaEventDestroy(e0), cudaEventDestroy(e1);
}

int main(int argc, char **argv)
{
    const char *list = argc > 1 ? argv[1] : "32,64,128,256,384,512";
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    size_t limit = prop.sharedMemPerBlockOptin - 8192; /* lu_small.c's smem_limit */
    int gd = lsk_lu_small_max_blocks_d(limit), gs = lsk_lu_small_max_blocks_s(limit);
    printf("# %s, largest cluster FP64 %d, FP32 %d\n", prop.name, gd, gs);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int n = atoi(tok);
        one<double>(n, 1, limit, gd);
        one<float>(n, 1, limit, gs);
        one<double>(n, 0, limit, gd);
        one<float>(n, 0, limit, gs);
    }
    return 0;
}
