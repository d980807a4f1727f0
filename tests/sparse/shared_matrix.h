/* The sparse tests' reader of a shared matrix: DIR/real/NAME.mtx into CSR,
 * a line on stdout when it cannot be read. */
#ifndef LS_TESTS_SPARSE_SHARED_MATRIX_H
#define LS_TESTS_SPARSE_SHARED_MATRIX_H

#include <stdio.h>

#include "linsolve.h"

static inline int read_csr(const char *dir, const char *name, ls_csr *A)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/real/%s.mtx", dir, name);
    int st = ls_csr_read_mm(path, A, err, sizeof err);
    if (st)
        printf("cannot read %s: %s\n", path, err);
    return st;
}

#endif
