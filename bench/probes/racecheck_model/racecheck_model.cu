/* Does compute-sanitizer's racecheck model the synchronization the small-n
 * LU (src/cuda/lu/k_lu_small.cu) relies on? Each case below is a correct
 * program: a shared-memory value written by one thread and read by
 * another, with the synchronization the case names between them. A hazard
 * racecheck reports on a case is the tool's, not the program's; the
 * control case (a plain __syncthreads) must report none.
 *
 *   nvcc -arch=sm_90 -std=c++17 -O3 -lineinfo racecheck_model.cu -o rcm
 *   for c in 0 1 2 3 4 5; do compute-sanitizer --tool racecheck rcm $c; done
 *
 * Cases (one block of 256 threads unless said):
 *   0  control: write, __syncthreads, read
 *   1  the first 64 threads meet at named barrier 1 (bar.sync 1, 64)
 *      between the write and the read, as the panel's column loop does
 *   2  case 1 first, then case 0 on other data: does a named barrier of a
 *      subset disturb racecheck's view of the later __syncthreads?
 *   3  a cluster of one block: write, barrier.cluster.arrive.release +
 *      wait.acquire, read
 *   4  a cluster of one block: the write goes through the cluster's window
 *      (map_shared_rank to the block's own rank), __syncthreads, local read
 *   5  a cluster of two blocks: block 1 writes into block 0's shared memory
 *      through the window, split cluster barrier, block 0 reads locally
 *   6 F the small-n LU's step (a cluster of one block of 512 threads): a
 *      struct published in shared memory is copied, a word a thread in turn,
 *      into a second one, __syncthreads, every thread reads a field of the
 *      copy. F's bits add what the kernel does before it: 1 the first 64
 *      threads meet at named barrier 1, then __syncthreads; 2 the split
 *      cluster barrier (arrive, wait) just before the copy; 4 the copy
 *      reads the published struct through the cluster's window (own rank)
 * Each prints the value read and whether it is the one written. */
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

__device__ __forceinline__ void named_bar(int id, int nt)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nt) : "memory");
}
__device__ __forceinline__ void cl_arrive(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cl_wait(void)
{
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__global__ void k_plain(int mode, int *out)
{
    __shared__ int a[256], b[256];
    const int t = threadIdx.x, nt = blockDim.x;
    if (mode == 1 || mode == 2) {
        if (t < 64) {
            a[t] = t + 1;
            named_bar(1, 64);
            out[t] = a[63 - t] == 64 - t;
        }
    }
    if (mode == 0 || mode == 2) {
        b[t] = 2 * t;
        __syncthreads();
        out[nt + t] = b[nt - 1 - t] == 2 * (nt - 1 - t);
    }
}

__global__ void __cluster_dims__(1, 1, 1) k_cluster1(int mode, int *out)
{
    cg::cluster_group cl = cg::this_cluster();
    __shared__ int a[256];
    const int t = threadIdx.x, nt = blockDim.x;
    if (mode == 3) {
        a[t] = 3 * t;
        cl_arrive();
        cl_wait();
    } else { /* 4 */
        int *mine = cl.map_shared_rank(a, 0);
        mine[t] = 3 * t;
        __syncthreads();
    }
    out[t] = a[nt - 1 - t] == 3 * (nt - 1 - t);
}

__global__ void __cluster_dims__(2, 1, 1) k_cluster2(int *out)
{
    cg::cluster_group cl = cg::this_cluster();
    __shared__ int a[256];
    const int t = threadIdx.x, nt = blockDim.x, b = (int)cl.block_rank();
    cl.sync(); /* both blocks running */
    if (b == 1)
        cl.map_shared_rank(a, 0)[t] = 5 * t;
    cl_arrive();
    cl_wait();
    if (b == 0)
        out[t] = a[nt - 1 - t] == 5 * (nt - 1 - t);
    cl.sync(); /* block 0 done reading before block 1 may exit */
}

struct pub_t {
    int cnt, zero, src[2048], dst[2048];
};

__global__ void __cluster_dims__(1, 1, 1) k_step(int flags, int *out)
{
    cg::cluster_group cl = cg::this_cluster();
    __shared__ pub_t pub, loc;
    const int t = threadIdx.x, nt = blockDim.x, words = (int)(sizeof(pub_t) / sizeof(int));
    for (int e = t; e < words; e += nt)
        ((int *)&pub)[e] = e == 1 ? 7 : e;
    __syncthreads();
    if (flags & 1) {
        if (t < 64)
            named_bar(1, 64);
        __syncthreads();
    }
    if (flags & 2) {
        cl_arrive();
        cl_wait();
    }
    const int *rp = (flags & 4) ? (const int *)cl.map_shared_rank(&pub, 0) : (const int *)&pub;
    for (int e = t; e < words; e += nt)
        ((int *)&loc)[e] = rp[e];
    __syncthreads();
    out[t] = loc.zero == 7 && loc.src[(t * 7) % 2048] == 2 + (t * 7) % 2048;
}

int main(int argc, char **argv)
{
    const int mode = argc > 1 ? atoi(argv[1]) : 0, nt = mode == 6 ? 512 : 256;
    const int flags = argc > 2 ? atoi(argv[2]) : 0;
    int *out, h[2 * 512], ok = 1, used = 0;
    cudaMalloc(&out, sizeof h);
    cudaMemset(out, 0, sizeof h);
    if (mode <= 2)
        k_plain<<<1, nt>>>(mode, out);
    else if (mode <= 4)
        k_cluster1<<<1, nt>>>(mode, out);
    else if (mode == 5)
        k_cluster2<<<2, nt>>>(out);
    else
        k_step<<<1, nt>>>(flags, out);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    /* which entries of out the case wrote: [nt, 2 nt) for the
     * __syncthreads part, [0, 64) for the named barrier's, [0, nt) for the
     * cluster cases */
    for (int i = 0; i < 2 * nt; i++) {
        const bool wrote = mode >= 3 ? i < nt
                                     : (mode != 0 && i < 64) || (mode != 1 && i >= nt);
        if (wrote) {
            ok &= h[i] == 1;
            used++;
        }
    }
    if (mode == 6)
        printf("flags %d: ", flags);
    printf("case %d: %s, %d values read, %s\n", mode, cudaGetErrorString(e), used,
           ok ? "all as written" : "SOME WRONG");
    cudaFree(out);
    return e != cudaSuccess || !ok;
}
