/* The kernel registry: each kernel file lists its own kernels (it alone
 * sees their template instantiations); this file gathers them per
 * precision once, in a function-local static (thread-safe initialisation,
 * read-only afterwards). */
#include "kernels.h"

#define LSK_REG_FILES 10

struct lsk_registry_table {
    ls_cuda_kernel_desc desc[2][LSK_REG_FILES * LSK_REG_MAX];
    int count[2];
};

static lsk_registry_table lsk_registry_build()
{
    typedef int (*fill_fn)(int, ls_cuda_kernel_desc *);
    static const fill_fn files[LSK_REG_FILES] = {lsk_reg_layout,   lsk_reg_pivot, lsk_reg_ge,
                                                 lsk_reg_trisolve, lsk_reg_luseed, lsk_reg_lu,
                                                 lsk_reg_bicgstab, lsk_reg_gemm, lsk_reg_coop,
                                                 lsk_reg_cluster};
    lsk_registry_table t;
    for (int prec = 0; prec < 2; prec++) {
        int dbl = prec == 0; /* LS_DOUBLE = 0, LS_SINGLE = 1 */
        t.count[prec] = 0;
        for (int f = 0; f < LSK_REG_FILES; f++)
            t.count[prec] += files[f](dbl, t.desc[prec] + t.count[prec]);
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
