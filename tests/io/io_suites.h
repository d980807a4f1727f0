/* Test suites that run both in the plain build and in the sanitizer build
 * (io_fuzz_asan). Each returns its number of failures and expects the
 * scratch folder (io_tmpdir_create) to exist. */
#ifndef LS_IO_SUITES_H
#define LS_IO_SUITES_H

int io_roundtrip_suite(void);
int io_fuzz_suite(void);
/* The CSR reader, cut and mutated against the dense reader; dir holds real/. */
int io_csr_fuzz_suite(const char *dir);

#endif
