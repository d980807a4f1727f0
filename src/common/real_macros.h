/* Name mangling for the precision-generic *_impl.h files: an includer
 * defines REAL (double or float) and SFX (d or s) before each inclusion. */
#ifndef LS_COMMON_REAL_MACROS_H
#define LS_COMMON_REAL_MACROS_H
#define LS_CAT2_(a, b) a##_##b
#define LS_CAT2(a, b) LS_CAT2_(a, b)
/* FN(ls_cpu_getrf) -> ls_cpu_getrf_d when SFX is d. */
#define FN(name) LS_CAT2(name, SFX)
#endif
