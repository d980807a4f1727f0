/* Matrix Market writer of the tool: array or coordinate, to a file or stdout.
 * The library's ls_mm_write only writes arrays to a path; gen needs both the
 * sparse (nonzeros only) form and stdout. */
#ifndef LS_TOOLS_MM_WRITER_H
#define LS_TOOLS_MM_WRITER_H

#include <stddef.h>
#include "linsolve.h"

/**
 * Write m as Matrix Market "%.17g" text.
 * @param[in]  path    output file, or NULL for stdout
 * @param[in]  m       the matrix (column-major)
 * @param[in]  sparse  nonzero: "coordinate real general" with only the nonzeros
 *                     (1-based, column by column); zero: "array real general"
 * @param[in]  comment one comment line (may be NULL)
 * @param[out] err     message naming the file when writing fails
 * @return 0 or LS_EIO
 */
int ls_cli_mm_write(const char *path, const ls_matrix *m, int sparse, const char *comment,
                    char *err, size_t errlen);

#endif
