/* liblinsolve_dist's public entry points, instantiated for double and float. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/knobs.h"
#include "dist_internal.h"

#define LS_REAL_IMPL "pgetrf_impl.h"
#include "../common/instantiate_real.h"
#define LS_REAL_IMPL "pgetrs_impl.h"
#include "../common/instantiate_real.h"
#define LS_REAL_IMPL "scatter_impl.h"
#include "../common/instantiate_real.h"
#define LS_REAL_IMPL "api_impl.h"
#include "../common/instantiate_real.h"
