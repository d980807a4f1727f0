/* The batched getrf by panels (k_batched_blocked.cu) with cuBLAS's
 * strided-batched GEMM for the trailing updates: for orders from about 128,
 * where a block per whole matrix leaves the SMs short of warps (or the
 * matrix does not fit shared memory) and cuBLAS's getrfBatched runs at
 * about 1 TFLOP/s. */
#include "core/knobs.h"
#include "cuda/batched/batched_cuda.h"

#include <stdlib.h>
#include <string.h>

#include "cuda/batched/k_batched_blocked.h"

#define LS_REAL_IMPL "cuda/batched/batched_blocked_impl.h"
#include "common/instantiate_real.h"
