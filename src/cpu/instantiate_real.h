/* Instantiates a precision-generic *_impl.h file (written for REAL and SFX,
 * see real_macros.h) for double (suffix d) and float (suffix s):
 *     #define LS_REAL_IMPL "getrf_impl.h"
 *     #include "instantiate_real.h"
 * No include guard: each inclusion instantiates the file it is given. */
#define REAL double
#define SFX d
#include LS_REAL_IMPL
#undef REAL
#undef SFX

#define REAL float
#define SFX s
#include LS_REAL_IMPL
#undef REAL
#undef SFX
#undef LS_REAL_IMPL
