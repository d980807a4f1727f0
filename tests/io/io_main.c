/* Driver for the suites in io_suites.h. The build picks which suites run
 * (IO_RUN_ROUNDTRIP, IO_RUN_FUZZ), so io_fuzz_asan can run both under
 * AddressSanitizer + UBSan with the same code as io_roundtrip and io_fuzz. */
#include <stdio.h>

#include "io_suites.h"
#include "io_testlib.h"

int main(void)
{
    if (!io_tmpdir_create()) {
        perror("mkdtemp");
        return 1;
    }
    int fails = 0;
#ifdef IO_RUN_ROUNDTRIP
    fails += io_roundtrip_suite();
#endif
#ifdef IO_RUN_FUZZ
    fails += io_fuzz_suite();
#endif
    io_tmpdir_remove();
    printf("%d failure(s)\n", fails);
    return fails;
}
