/*
 * Every kernel of the CUDA backend with the launch configuration it really
 * uses, for the metrics tool (occupancy, cudaFuncGetAttributes). `func` is
 * the kernel's host-side handle for the chosen precision.
 */
#ifndef LS_CUDA_KERNEL_REGISTRY_H
#define LS_CUDA_KERNEL_REGISTRY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ls_cuda_kernel_desc {
    const char *name;        /* kernel name as in the source */
    const char *method;      /* method(s) that launch it, e.g. "ge-naive" */
    const void *func;        /* usable with cudaFuncGetAttributes / occupancy */
    int block_threads;       /* threads per block at launch */
    size_t static_smem_hint; /* static shared memory per block, bytes */
    size_t (*dynamic_smem)(int n, int nrhs); /* NULL: none */
} ls_cuda_kernel_desc;

/**
 * @param[in]  prec LS_DOUBLE (0) or LS_SINGLE (1)
 * @param[out] out  static table of descriptors
 * @return number of entries
 */
int ls_cuda_kernel_registry(int prec, const ls_cuda_kernel_desc **out);

/* Each kernel file appends its kernels for one precision to out (room for
 * LSK_REG_MAX) and returns how many it wrote: lsk_reg_<file>_d / _s, declared
 * by the family headers (LSK_REG_<FILE>_SIG) and gathered by
 * kernel_registry.cu. */
#define LSK_REG_MAX 16
#define LSK_REG_SIG_(file, S) int lsk_reg_##file##_##S(ls_cuda_kernel_desc *out)

#ifdef __cplusplus
}
#endif
#endif
