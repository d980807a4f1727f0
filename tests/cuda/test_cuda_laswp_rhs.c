/*
 * The getrs row-interchange kernel (k_laswp_rhs.cu) against a host laswp:
 * both of its paths (the column staged in shared memory, and in place in
 * global memory, forced with a zero shared-memory limit), forward and
 * reverse, sub-ranges [k0, k1), pivot runs across the kernel's pivot
 * chunks, repeated and self pivots, ldb > n. Values are distinct, so any
 * misplaced row shows. Exit status: number of failures; 77 without a GPU.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/common/kernels.h"
#include "testutil.h"

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* LAPACK's laswp on the host, in doubles. */
static void host_laswp(int n, int nrhs, double *B, int ldb, int k0, int k1, const int *ipiv,
                       int reverse)
{
    for (int c = 0; c < nrhs; c++) {
        double *x = B + (size_t)c * ldb;
        for (int t = 0; t < k1 - k0; t++) {
            int k = reverse ? k1 - 1 - t : k0 + t, p = ipiv[k] - 1;
            double a = x[k];
            x[k] = x[p];
            x[p] = a;
        }
    }
    (void)n;
}

static int one_case(int dbl, int n, int nrhs, int k0, int k1, int reverse, int staged,
                    uint64_t seed)
{
    int ldb = n + 3;
    size_t es = dbl ? sizeof(double) : sizeof(float), cnt = (size_t)ldb * nrhs;
    double *ref = calloc(cnt, sizeof *ref);
    unsigned char *h = calloc(cnt, es);
    int *ipiv = calloc((size_t)n, sizeof(int));
    void *dB = NULL;
    int *d_ipiv = NULL, fail = 0;
    if (!ref || !h || !ipiv) {
        printf("out of host memory\n");
        exit(2);
    }
    uint64_t s = seed;
    for (int k = 0; k < n; k++) { /* LAPACK's shape: p >= k; some p == k, some repeats */
        uint64_t r = next_u64(&s);
        ipiv[k] = r % 7 == 0 ? k + 1 : r % 11 == 0 && k + 1 < n ? k + 2
                                        : k + 1 + (int)(next_u64(&s) % (uint64_t)(n - k));
    }
    for (size_t i = 0; i < cnt; i++) { /* distinct, exact in float: a misplaced row shows */
        ref[i] = (double)i;
        if (dbl) ((double *)h)[i] = ref[i];
        else ((float *)h)[i] = (float)ref[i];
    }
    host_laswp(n, nrhs, ref, ldb, k0, k1, ipiv, reverse);
    if (cudaMalloc(&dB, cnt * es) != cudaSuccess ||
        cudaMalloc((void **)&d_ipiv, sizeof(int) * (size_t)n) != cudaSuccess ||
        cudaMemcpy(dB, h, cnt * es, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(d_ipiv, ipiv, sizeof(int) * (size_t)n, cudaMemcpyHostToDevice) != cudaSuccess) {
        printf("device setup failed\n");
        exit(2);
    }
    int dev = 0, optin = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    size_t smem = staged ? (size_t)optin : 0;
    cudaError_t e =
        dbl ? lsk_laswp_rhs_d(n, nrhs, (double *)dB, ldb, k0, k1, d_ipiv, reverse, smem, 0)
            : lsk_laswp_rhs_s(n, nrhs, (float *)dB, ldb, k0, k1, d_ipiv, reverse, smem, 0);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaMemcpy(h, dB, cnt * es, cudaMemcpyDeviceToHost);
    size_t bad = 0;
    for (size_t i = 0; i < cnt && e == cudaSuccess; i++)
        bad += (dbl ? ((double *)h)[i] : (double)((float *)h)[i]) != ref[i];
    int path = dbl ? lsk_laswp_rhs_staged_d(n, smem) : lsk_laswp_rhs_staged_s(n, smem);
    fail = lt_check(e == cudaSuccess && bad == 0 && path == staged,
                    "laswp_rhs %s n=%d nrhs=%d k=[%d,%d) %s %s: %zu wrong (%s)",
                    dbl ? "double" : "float", n, nrhs, k0, k1, reverse ? "reverse" : "forward",
                    path ? "shared" : "global", bad, cudaGetErrorString(e));
    cudaFree(dB);
    cudaFree(d_ipiv);
    free(ref);
    free(h);
    free(ipiv);
    return fail;
}

int main(void)
{
    int count = 0, fails = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    /* 1..3: the pipeline's edges; 1024/1025/2100: the pivot chunks */
    static const int sizes[] = {1, 2, 3, 8, 9, 33, 1024, 1025, 2100};
    for (int dbl = 0; dbl < 2; dbl++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int rev = 0; rev < 2; rev++)
                for (int staged = 0; staged < 2; staged++) {
                    int n = sizes[si];
                    uint64_t seed = 77u * (uint64_t)n + 5u * (uint64_t)rev + (uint64_t)dbl;
                    fails += one_case(dbl, n, 3, 0, n, rev, staged, seed);
                    if (n > 4) /* a sub-range, as a recursive getrf would ask */
                        fails += one_case(dbl, n, 1, n / 3, n - 1, rev, staged, seed + 1);
                }
    printf("%d failure(s)\n", fails);
    return fails > 76 ? 76 : fails;
}
