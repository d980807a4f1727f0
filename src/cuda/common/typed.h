/*
 * Precision chosen once: every precision-typed launcher and driver of the
 * CUDA plugin exists as a _d (double) and an _s (float) function, written
 * once for both.
 *
 * Launchers (kernels.h, k_batched.h): a header writes a launcher's
 * signature once as a macro of (T, S), the element type and the suffix,
 * and declares both with LSK_DECLARE; the .cu file writes the launch once as
 * a template and LSK_DEFINE (k_common.cuh) emits the two C functions.
 *
 * Host drivers: the CPU backend's include-twice pattern. foo_impl.h is
 * written for REAL and FN(name) (common/real_macros.h) and foo.c instantiates
 * it with
 *     #define LS_REAL_IMPL "foo_impl.h"
 *     #include "common/instantiate_real.h"
 * Only the entry point that takes an ls_precision picks FN's _d or _s.
 */
#ifndef LS_CUDA_TYPED_H
#define LS_CUDA_TYPED_H

#include "common/real_macros.h"

/* Both declarations of a signature macro SIG(T, S). */
#define LSK_DECLARE(SIG) \
    SIG(double, d);      \
    SIG(float, s)

/* Inside an instantiation (REAL, SFX defined): */
#define LSC_PASTE_(a, b) a##b
#define LSC_PASTE(a, b) LSC_PASTE_(a, b)
#define LSC_CAT3_(a, b, c) a##b##c
#define LSC_CAT3(a, b, c) LSC_CAT3_(a, b, c)
#define LSC_LETTER_d D
#define LSC_LETTER_s S
/* LSC_T(cublas, gemm): cublasDgemm or cublasSgemm. */
#define LSC_T(lib, op) LSC_CAT3(lib, LSC_PASTE(LSC_LETTER_, SFX), op)
#define LSC_IS_DOUBLE (sizeof(REAL) == sizeof(double))
/* The per-precision slot of the context's [double, single] caches. */
#define LSC_PREC_SLOT (LSC_IS_DOUBLE ? 0 : 1)
#define LSC_CUDA_R (LSC_IS_DOUBLE ? CUDA_R_64F : CUDA_R_32F)

#endif
