/* The reference getrf/getrs (cpu.h), instantiated for double and float. */
#include <float.h>
#include <stdlib.h>

#include "core/util.h"
#include "core/reference.h"
#include "cpu_internal.h"

#define LS_REAL_IMPL "cpu/getrf_impl.h"
#include "common/instantiate_real.h"

int ls_ref_dgetrf(int m, int n, double *A, int lda, int *ipiv)
{
    return ls_cpu_getrf_d(m, n, A, lda, ipiv, 1);
}

int ls_ref_sgetrf(int m, int n, float *A, int lda, int *ipiv)
{
    return ls_cpu_getrf_s(m, n, A, lda, ipiv, 1);
}

void ls_ref_dgetrs(char trans, int n, int nrhs, const double *A, int lda, const int *ipiv,
                   double *B, int ldb)
{
    ls_cpu_getrs_d(trans, n, nrhs, A, lda, ipiv, B, ldb);
}

void ls_ref_sgetrs(char trans, int n, int nrhs, const float *A, int lda, const int *ipiv,
                   float *B, int ldb)
{
    ls_cpu_getrs_s(trans, n, nrhs, A, lda, ipiv, B, ldb);
}
