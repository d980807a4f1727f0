/* The Krylov methods' vector operations on the device: being written. */
#include <stdio.h>
#include "sparse_cuda.h"

int lsc_csr_krylov_open(void *bctx, const struct ls_krylov_sys *s, struct ls_kr_ops *ops,
                        char *err, size_t errlen)
{
    (void)bctx, (void)s, (void)ops;
    snprintf(err, errlen, "unsupported: not yet");
    return LS_EUNSUPPORTED;
}

void lsc_csr_krylov_close(void *ops_ctx)
{
    (void)ops_ctx;
}
