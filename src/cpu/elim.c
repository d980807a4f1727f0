/* ge, gj1 and gj2 kernels (elim_impl.h), instantiated for double and float. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include "cpu_internal.h"

#define LS_REAL_IMPL "cpu/elim_impl.h"
#include "common/instantiate_real.h"
