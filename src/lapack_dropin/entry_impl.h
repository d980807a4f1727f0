/* The exported LAPACK symbols for one precision (REAL, SFX: see
 * common/real_macros.h), instantiated twice by entry.c: xgesv_, xgetrf_ and
 * xgetrs_ with LAPACK's Fortran interfaces, each packing its arguments for
 * lsl_dispatch.
 * Defines: dgesv_, sgesv_, dgetrf_, sgetrf_, dgetrs_, sgetrs_ */
#include "common/real_macros.h"

#define LSL_CAT_(a, b) a##b
#define LSL_CAT(a, b) LSL_CAT_(a, b)
/* LSL_SYM(gesv_) -> dgesv_ when SFX is d */
#define LSL_SYM(name) LSL_CAT(SFX, name)
#define LSL_PREC (sizeof(REAL) == sizeof(float) ? LS_SINGLE : LS_DOUBLE)

LSL_EXPORT void LSL_SYM(gesv_)(const int *n, const int *nrhs, REAL *a, const int *lda, int *ipiv,
                               REAL *b, const int *ldb, int *info)
{
    lsl_args x = {.op = LSL_GESV, .prec = LSL_PREC, .n = *n, .nrhs = *nrhs, .lda = *lda,
                  .ldb = *ldb, .a = a, .ipiv = ipiv, .b = b, .info = info};
    lsl_dispatch(&x);
}

LSL_EXPORT void LSL_SYM(getrf_)(const int *m, const int *n, REAL *a, const int *lda, int *ipiv,
                                int *info)
{
    lsl_args x = {.op = LSL_GETRF, .prec = LSL_PREC, .m = *m, .n = *n, .lda = *lda, .a = a,
                  .ipiv = ipiv, .info = info};
    lsl_dispatch(&x);
}

/* trans_len: gfortran's hidden length of TRANS. Callers written in C often
 * leave it out, so it is never read; only trans[0] is, as LAPACK does. */
LSL_EXPORT void LSL_SYM(getrs_)(const char *trans, const int *n, const int *nrhs, const REAL *a,
                                const int *lda, const int *ipiv, REAL *b, const int *ldb,
                                int *info, size_t trans_len)
{
    (void)trans_len;
    lsl_args x = {.op = LSL_GETRS, .prec = LSL_PREC, .trans = trans[0], .n = *n, .nrhs = *nrhs,
                  .lda = *lda, .ldb = *ldb, .a = (void *)a, .ipiv = (int *)ipiv, .b = b,
                  .info = info};
    lsl_dispatch(&x);
}

#undef LSL_PREC
