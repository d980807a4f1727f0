/* LU without interchanges on the device, blocked right-looking: diagonal
 * blocks in LSK_GENP_MAX-wide pieces, each factored in one CUDA block
 * (k_rbt.cu), cuBLAS trsm and gemm for everything else. No pivot search,
 * so no chain of per-column reductions over the tall panel: the time is
 * the GEMMs' and the diagonal pieces', and step k+1's panel runs on a
 * second stream beside step k's trailing GEMM (LS_CUDA_GENP_LOOKAHEAD).
 * Used on the butterfly-transformed
 * matrix of the mixed solver (LS_PIVOT_RBT), where interchanges are not
 * needed with high probability and refinement catches the rest. */
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/mixed/genp.h"
#include "cuda/mixed/k_rbt.h"
#include "cuda/common/typed.h"

#define LS_REAL_IMPL "cuda/mixed/genp_impl.h"
#include "common/instantiate_real.h"
