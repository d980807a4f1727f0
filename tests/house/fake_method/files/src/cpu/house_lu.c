/* house-lu: the new method of the recipe check (tests/house/new_method.sh).
 * It factors with the CPU's blocked LU and solves with its getrs, so its
 * answers are those of method lu; what it tests is the number of existing
 * files a new CPU method has to touch, not an algorithm. */
#include "cpu_internal.h"

#define HOUSE_LU_DEFINE_(REAL, SFX)                                                          \
    int ls_cpu_house_lu_##SFX(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb,           \
                              int *ipiv, int pivot)                                          \
    {                                                                                        \
        int info = ls_cpu_getrf_##SFX(n, n, A, lda, ipiv, pivot);                            \
        if (!info)                                                                           \
            ls_cpu_getrs_##SFX('N', n, nrhs, A, lda, ipiv, B, ldb);                          \
        return info;                                                                         \
    }

HOUSE_LU_DEFINE_(double, d)
HOUSE_LU_DEFINE_(float, s)
