/* Instantiates a precision-generic *_impl.h file (written for REAL and SFX,
 * see real_macros.h) for double (suffix d) and float (suffix s):
 *     #define LS_REAL_IMPL "cpu/getrf_impl.h"
 *     #include "common/instantiate_real.h"
 * LS_REAL_IMPL is looked up from this folder, then on the target's include
 * path, so it names the file from src/ or from a folder on that path.
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
