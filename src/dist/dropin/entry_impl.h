/* The exported ScaLAPACK symbols for one precision (REAL, SFX: see
 * common/real_macros.h), instantiated twice by entry.c: pxgesv_, pxgetrf_ and
 * pxgetrs_ with ScaLAPACK's Fortran interfaces (every argument by
 * reference, descriptors of 9 integers).
 * Defines: pdgesv_, psgesv_, pdgetrf_, psgetrf_, pdgetrs_, psgetrs_ */
#include "../../common/real_macros.h"

#define LSS_CAT_(a, b) a##b
#define LSS_CAT(a, b) LSS_CAT_(a, b)
#define LSS_CAT3(a, b, c) LSS_CAT(LSS_CAT(a, b), c)
/* LSS_SYM(gesv_) -> pdgesv_ when SFX is d */
#define LSS_SYM(name) LSS_CAT3(p, SFX, name)
#define LSS_PREC (sizeof(REAL) == sizeof(float) ? LS_SINGLE : LS_DOUBLE)

LSS_EXPORT void LSS_SYM(gesv_)(const int *n, const int *nrhs, REAL *a, const int *ia,
                               const int *ja, const int *desca, int *ipiv, REAL *b,
                               const int *ib, const int *jb, const int *descb, int *info)
{
    lss_args x = {.op = LSS_GESV, .prec = LSS_PREC, .n = *n, .nrhs = *nrhs, .a = a, .ia = *ia,
                  .ja = *ja, .desca = desca, .ipiv = ipiv, .b = b, .ib = *ib, .jb = *jb,
                  .descb = descb, .info = info};
    lss_dispatch(&x);
}

LSS_EXPORT void LSS_SYM(getrf_)(const int *m, const int *n, REAL *a, const int *ia,
                                const int *ja, const int *desca, int *ipiv, int *info)
{
    lss_args x = {.op = LSS_GETRF, .prec = LSS_PREC, .m = *m, .n = *n, .a = a, .ia = *ia,
                  .ja = *ja, .desca = desca, .ipiv = ipiv, .info = info};
    lss_dispatch(&x);
}

/* trans_len: gfortran's hidden length of TRANS; C callers leave it out, so
 * it is never read (only trans[0] is, as ScaLAPACK does). */
LSS_EXPORT void LSS_SYM(getrs_)(const char *trans, const int *n, const int *nrhs, const REAL *a,
                                const int *ia, const int *ja, const int *desca, const int *ipiv,
                                REAL *b, const int *ib, const int *jb, const int *descb,
                                int *info, size_t trans_len)
{
    (void)trans_len;
    lss_args x = {.op = LSS_GETRS, .prec = LSS_PREC, .trans = trans[0], .n = *n, .nrhs = *nrhs,
                  .a = (void *)a, .ia = *ia, .ja = *ja, .desca = desca, .ipiv = (int *)ipiv,
                  .b = b, .ib = *ib, .jb = *jb, .descb = descb, .info = info};
    lss_dispatch(&x);
}

#undef LSS_PREC
