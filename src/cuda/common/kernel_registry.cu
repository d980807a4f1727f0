/* The kernel registry: each kernel file lists its own kernels (it alone
 * sees their template instantiations); this file gathers them per
 * precision once, in a function-local static (thread-safe initialisation,
 * read-only afterwards). */
#include "cuda/common/kernels.h"

#define LSK_REG_FILES 10

struct lsk_registry_table {
    ls_cuda_kernel_desc desc[2][LSK_REG_FILES * LSK_REG_MAX];
    int count[2];
};

static lsk_registry_table lsk_registry_build()
{
    typedef int (*fill_fn)(ls_cuda_kernel_desc *);
    /* [0]: LS_DOUBLE = 0, [1]: LS_SINGLE = 1 */
    static const fill_fn files[2][LSK_REG_FILES] = {
        {lsk_reg_layout_d, lsk_reg_pivot_d, lsk_reg_ge_d, lsk_reg_trisolve_d, lsk_reg_luseed_d,
         lsk_reg_lu_d, lsk_reg_bicgstab_d, lsk_reg_gemm_d, lsk_reg_coop_d, lsk_reg_cluster_d},
        {lsk_reg_layout_s, lsk_reg_pivot_s, lsk_reg_ge_s, lsk_reg_trisolve_s, lsk_reg_luseed_s,
         lsk_reg_lu_s, lsk_reg_bicgstab_s, lsk_reg_gemm_s, lsk_reg_coop_s, lsk_reg_cluster_s}};
    lsk_registry_table t;
    for (int prec = 0; prec < 2; prec++) {
        t.count[prec] = 0;
        for (int f = 0; f < LSK_REG_FILES; f++)
            t.count[prec] += files[prec][f](t.desc[prec] + t.count[prec]);
    }
    return t;
}

extern "C" int ls_cuda_kernel_registry(int prec, const ls_cuda_kernel_desc **out)
{
    static const lsk_registry_table table = lsk_registry_build();
    int p = prec == 1 ? 1 : 0;
    if (out)
        *out = table.desc[p];
    return table.count[p];
}
