/* LAPACK-shaped drivers: argument checks with LAPACK's -i numbering, then
 * the backend's getrf / getrs where it has them, else the CPU reference.
 * The drivers are written once (lapack_api_impl.h) and instantiated for
 * double and float as the CPU backend's kernels are. */
#include <stdlib.h>

#include "core/backend.h"
#include "core/reference.h"
#include "core/api/lapack_check.h"

#define LS_MAX1(x) ((x) > 1 ? (x) : 1)

int ls_check_getrf(int m, int n, const void *A, int lda, const int *ipiv)
{
    if (m < 0) return -1;
    if (n < 0) return -2;
    if (!A && m > 0 && n > 0) return -3;
    if (lda < LS_MAX1(m)) return -4;
    if (!ipiv && m > 0 && n > 0) return -5;
    return 0;
}

int ls_check_getrs(char trans, int n, int nrhs, const void *A, int lda, const int *ipiv,
                       const void *B, int ldb)
{
    if (trans != 'N' && trans != 'n' && trans != 'T' && trans != 't' && trans != 'C' &&
        trans != 'c')
        return -1;
    if (n < 0) return -2;
    if (nrhs < 0) return -3;
    if (!A && n > 0) return -4;
    if (lda < LS_MAX1(n)) return -5;
    if (!ipiv && n > 0) return -6;
    if (!B && n > 0 && nrhs > 0) return -7;
    if (ldb < LS_MAX1(n)) return -8;
    return 0;
}

int ls_check_gesv(int n, int nrhs, const void *A, int lda, const int *ipiv, const void *B,
                      int ldb)
{
    if (n < 0) return -1;
    if (nrhs < 0) return -2;
    if (!A && n > 0) return -3;
    if (lda < LS_MAX1(n)) return -4;
    if (!ipiv && n > 0) return -5;
    if (!B && n > 0 && nrhs > 0) return -6;
    if (ldb < LS_MAX1(n)) return -7;
    return 0;
}

static char upper_trans(char t)
{
    return (t == 'n' || t == 'N') ? 'N' : 'T'; /* real: 'C' == 'T' */
}

#define LS_REAL_IMPL "core/api/lapack_api_impl.h"
#include "common/instantiate_real.h"
