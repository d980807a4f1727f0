/* Prepended to every kernel family. The host builds each program with
 * -D REAL=float|double -D REAL_IS_DOUBLE=0|1, so one source serves both
 * precisions. */
#if REAL_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Multiplier for row elimination. A zero pivot only reaches here when the
 * whole column below it is zero (partial pivoting) or in no-pivot mode; the
 * zero multiplier lets the elimination run to the end as LAPACK's does,
 * while the pivot kernels record info. */
#define LS_MULTIPLIER(a, pivot) ((pivot) != (REAL)0 ? (a) / (pivot) : (REAL)0)
