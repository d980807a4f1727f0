/*
 * Stacks of matrices in .npy files for the tool's batched solve (not public
 * API, exported for the tool as tool_api.h's symbols are): a 3-D array of
 * shape (batch, rows, cols), or 2-D (batch, rows) read as cols = 1.
 */
#ifndef LS_CORE_TOOL_STACK_H
#define LS_CORE_TOOL_STACK_H

#include <stddef.h>

#include "linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ls_io_stack {
    int batch, rows, cols;
    int ndim;         /* 2 or 3, as in the file */
    ls_layout layout; /* LS_ROW_MAJOR: C order kept (each matrix row-major, rows*cols apart);
                         LS_COL_MAJOR: a Fortran-order file, rearranged to column-major
                         matrices rows*cols apart */
    double *data;     /* batch*rows*cols values (library-owned) */
    char dtype[4];    /* "f8", "f4", "i4", ... */
} ls_io_stack;

/**
 * ndim of the .npy array in a file: 0 and *ndim when the file is a .npy
 * whose header parses, else a status (LS_EFORMAT for anything else).
 */
LS_API int ls_io_npy_ndim(const char *path, int *ndim);
/**
 * Read a 2-D or 3-D .npy stack. The header is untrusted: the element count
 * is checked against ls_io_max_elements() and the file's size before
 * anything is allocated; every error names the file and the byte offset.
 * @return 0, LS_EIO, LS_EFORMAT, LS_EUNSUPPORTED, LS_ENONFINITE, LS_ESIZE, LS_ENOMEM
 */
LS_API int ls_io_read_stack(const char *path, ls_io_stack *s, char *err, size_t errlen);
LS_API void ls_io_stack_free(ls_io_stack *s);
/**
 * Write values (batch x rows x cols, in `layout` as ls_io_stack holds
 * them) as a C-order .npy of shape (batch, rows) when ndim is 2, else
 * (batch, rows, cols); '<f4' when single, else '<f8'. NaN is written as is.
 * @return 0, LS_EINVAL, LS_EIO (the file is removed)
 */
LS_API int ls_io_write_stack(const char *path, const ls_io_stack *s, int single, char *err,
                             size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
