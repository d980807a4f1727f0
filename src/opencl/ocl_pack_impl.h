/* [A | B] packed row-major (n rows of w = n + nrhs) from column-major A and
 * B, for one precision (REAL, SFX: see common/real_macros.h); instantiated
 * twice by ocl_rowmajor.c.
 * Defines: none (every function and object here is static) */
#include "common/real_macros.h"

static void FN(ocl_pack)(size_t n, size_t nrhs, const REAL *A, size_t lda, const REAL *B,
                         size_t ldb, REAL *M)
{
    size_t w = n + nrhs;
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j)
            M[i * w + j] = A[i + j * lda];
        for (size_t c = 0; c < nrhs; ++c)
            M[i * w + n + c] = B[i + c * ldb];
    }
}
