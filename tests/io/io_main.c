/* Driver for the suites in io_suites.h. The build picks which suites run
 * (IO_RUN_ROUNDTRIP, IO_RUN_FUZZ, IO_RUN_CSR_FUZZ), so io_fuzz_asan can run
 * them all under AddressSanitizer + UBSan with the same code as
 * io_roundtrip, io_fuzz and io_csr_fuzz. The argument is the matrices
 * folder. */
#include <stdio.h>

#include "io_suites.h"
#include "io_testlib.h"

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/matrices";
    (void)dir;
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
#ifdef IO_RUN_CSR_FUZZ
    fails += io_csr_fuzz_suite(dir);
#endif
    io_tmpdir_remove();
    printf("%d failure(s)\n", fails);
    return fails;
}
