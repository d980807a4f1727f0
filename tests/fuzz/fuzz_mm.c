/* libFuzzer target: the Matrix Market reader, as `linsolve solve -` with
 * --format mm reaches it. */
#include "fuzz_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ls_fuzz_read(data, size, LS_IO_MM);
}
