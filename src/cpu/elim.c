/* ge, gj1 and gj2 kernels (elim_impl.h), instantiated for double and float. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include "cpu_internal.h"

#define REAL double
#define SFX d
#include "elim_impl.h"
#undef REAL
#undef SFX

#define REAL float
#define SFX s
#include "elim_impl.h"
#undef REAL
#undef SFX
