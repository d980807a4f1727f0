/* The Matrix Market parser's pieces that both readers use: the dense
 * reader (mm_read.c) and the CSR reader (csr_read.c) share the banner, the
 * size line, the file-size check and the parsing of coordinate entries, so
 * that one file is judged by the same rules and messages by both. */
#ifndef LS_IO_MM_INTERNAL_H
#define LS_IO_MM_INTERNAL_H

#include <stddef.h>

#include "io_internal.h"

enum ls_mm_field { LS_MM_REAL, LS_MM_INTEGER, LS_MM_PATTERN };
enum ls_mm_symmetry { LS_MM_GENERAL, LS_MM_SYMMETRIC, LS_MM_SKEW };

typedef struct ls_mm_reader {
    ls_io_lines lines;
    const char *path;
    int sparse;     /* read for CSR: coordinate only, CSR's limits on the size line */
    int coordinate;
    enum ls_mm_field field;
    enum ls_mm_symmetry symmetry;
    long long rows, cols, entries; /* entries: lines of data the file must hold */
    char *err;
    size_t errlen;
} ls_mm_reader;

/* Start reading src: the line reader, the banner and the size line, with
 * every check that needs only the header (dimensions, caps, the entries the
 * file's size can hold). sparse = 1 refuses array files and caps rows and
 * cols each at ls_io_max_elements() instead of rows*cols. On failure the
 * reader is already released. */
int ls_mm_begin(ls_mm_reader *r, ls_io_src *src, int sparse, char *err, size_t errlen);
/* Release the line reader. */
void ls_mm_end(ls_mm_reader *r);
/* Entry k (0-based, for messages) of a coordinate file: 1-based indices
 * checked against the size line, the value (1.0 for pattern) parsed and
 * finite, no diagonal entry in skew-symmetric storage. */
int ls_mm_coord_entry(ls_mm_reader *r, long long k, long long *i, long long *j, double *v);
/* Value k (0-based) of an array file: one finite number on its line. */
int ls_mm_array_value(ls_mm_reader *r, long long k, double *v);
/* After the last entry only blank lines may follow. */
int ls_mm_expect_end(ls_mm_reader *r);

#endif
