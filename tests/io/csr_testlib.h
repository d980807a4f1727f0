/* Helpers for the CSR tests: structure checks, densifying for comparison
 * with the dense reader, and "read this, expect that" for ls_csr_read_mm. */
#ifndef LS_CSR_TESTLIB_H
#define LS_CSR_TESTLIB_H

#include <stddef.h>

#include "linsolve.h"

/* A well-formed library CSR: dimensions >= 1, row_ptr from 0 to nnz and
 * non-decreasing, columns strictly increasing within a row and in range,
 * values finite. Returns 1 if so; otherwise 0 and why in `why`. */
int csr_well_formed(const ls_csr *A, char *why, size_t len);
/* A as a calloc'd column-major rows x cols array (NULL if too large). */
double *csr_densify(const ls_csr *A);
/* Read path with ls_csr_read_mm and check the status. A failure's message
 * must name the file's base name, `where` and `word` (either may be NULL)
 * and leave *out zeroed; a success must be well formed. One check line;
 * returns 1 on failure. */
int csr_expect_status(const char *path, int want, const char *where, const char *word);
/* Bitwise equality of two CSR matrices (structure and value bits). */
int csr_same_bits(const ls_csr *a, const ls_csr *b);

#endif
