/* libFuzzer target: the .npy reader, as `linsolve solve -` with --format npy
 * reaches it. */
#include "fuzz_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ls_fuzz_read(data, size, LS_IO_NPY);
}
