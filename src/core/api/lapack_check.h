/* LAPACK's argument checks of getrf / getrs / gesv, shared by the host-array
 * drivers (lapack_api.c) and the device-resident ones (device_api.c):
 * 0, or -i for the first illegal argument i (LAPACK numbering). Only
 * NULL-ness of the arrays is checked, never where they live. */
#ifndef LS_CORE_LAPACK_CHECK_H
#define LS_CORE_LAPACK_CHECK_H

int ls_check_getrf(int m, int n, const void *A, int lda, const int *ipiv);
int ls_check_getrs(char trans, int n, int nrhs, const void *A, int lda, const int *ipiv,
                   const void *B, int ldb);
int ls_check_gesv(int n, int nrhs, const void *A, int lda, const int *ipiv, const void *B,
                  int ldb);

#endif
