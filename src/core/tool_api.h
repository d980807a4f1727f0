/*
 * What the linsolve tool (tools/) needs beyond linsolve.h: matrices read from
 * and written to streams (standard input and output) with their dtype, and
 * messages without their source location.
 *
 * Not public API: linsolve.h stays the only installed header. These symbols
 * are exported for the tool alone, as the backend plugins' entry points are,
 * and may change with it.
 */
#ifndef LS_CORE_TOOL_API_H
#define LS_CORE_TOOL_API_H

#include <stddef.h>
#include <stdio.h>

#include "linsolve.h"
#include "core/errlen.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ls_io_format { LS_IO_AUTO = 0, LS_IO_MM, LS_IO_NPY } ls_io_format;

/* What a reader found besides the values. */
typedef struct ls_io_info {
    ls_io_format format; /* LS_IO_MM or LS_IO_NPY */
    char dtype[4];       /* .npy element type without byte order ("f8", "f4", "i2",
                            ...); "" for Matrix Market */
} ls_io_info;

/**
 * Read a matrix from an open stream, or from the file `name` when stream is
 * NULL. A stream is never seeked and is read once, as it comes: a regular
 * file behind it has its size checked against the header first; anything
 * else (a pipe, a FIFO, a device) gets memory only as its data arrives
 * (a header promising more data than there is ends in an error naming the
 * bytes that came), and at most ls_io_stream_max_bytes() bytes.
 * @param[in]  stream  the source, left open; NULL: open the file `name`
 * @param[in]  name    file name, or what messages call the stream ("<stdin>")
 * @param[in]  format  LS_IO_AUTO: .npy when the data starts with its magic,
 *                     Matrix Market otherwise; else that format only
 * @param[out] m, err  as ls_matrix_read_ex
 * @param[out] info    may be NULL
 * @return as ls_matrix_read; LS_ESIZE for a stream over the cap
 */
LS_API int ls_io_read_from(FILE *stream, const char *name, ls_io_format format, ls_matrix *m,
                           ls_io_info *info, ls_progress_fn progress, void *arg, char *err,
                           size_t errlen);

/** Bytes a stream (not a regular file) may hold before it is refused: 64 per
 *  element of ls_io_max_elements() plus 1 MiB for headers and comments, and
 *  at most half the host memory. No valid matrix under the element cap is
 *  longer; a stream without end (/dev/zero) stops there at the latest. */
LS_API long long ls_io_stream_max_bytes(void);

typedef struct ls_io_write_opts {
    ls_io_format format; /* LS_IO_AUTO: .npy by the name's extension, else Matrix Market */
    int single;          /* float32 values: .npy '<f4', Matrix Market "%.9g" (exact for
                            float32); 0: '<f8' and "%.17g" */
    int sparse;          /* Matrix Market coordinate with only the nonzeros */
    const char *comment; /* Matrix Market: one comment line after the banner, or NULL */
} ls_io_write_opts;

/**
 * Write m to an open stream (flushed, left open) or, with stream NULL, to the
 * file `name` through ls_outfile (the old file stays when the write fails).
 * Non-finite values, and
 * values beyond float32's range when o->single, are refused.
 * @return 0, LS_EINVAL, LS_ENONFINITE, LS_EIO
 */
LS_API int ls_io_write_to(FILE *stream, const char *name, const ls_matrix *m,
                          const ls_io_write_opts *o, char *err, size_t errlen);

/**
 * Split a library message into its plain words and the source locations
 * that LS_FAIL appended (" [mm_read.c:228]"). text may be msg itself.
 * @param[out] where  the locations without brackets, innermost first,
 *                    separated by spaces ("" if none); may be NULL
 */
LS_API void ls_message_split(const char *msg, char *text, size_t textlen, char *where,
                             size_t wherelen);

/* ---- Output files that never lose the old content (src/io/outfile.c) ----
 * A regular file (or a path that does not exist yet) is written to a
 * temporary file in the same directory and renamed over the target only
 * after every write, the flush and (for large data) fsync succeeded; any
 * failure removes the temporary file and leaves the target as it was. A
 * target that exists and is not a regular file (a device, a FIFO) is
 * written directly and never unlinked. "-" is standard output (written
 * directly; errors still checked). Every function returns 0 or an LS_E*
 * status with a message naming the path in err. */
typedef struct ls_outfile ls_outfile;
/** Check that path can be written (its directory exists and is writable, or
 *  the non-regular target opens for writing) without creating anything. */
LS_API int ls_outfile_check(const char *path, char *err, size_t errlen);
LS_API int ls_outfile_open(const char *path, ls_outfile **out, char *err, size_t errlen);
/** The stream to write to; valid until commit or abort. */
LS_API FILE *ls_outfile_stream(ls_outfile *f);
/** Flush, check every write, fsync, rename into place; frees f (also on failure). */
LS_API int ls_outfile_commit(ls_outfile *f, char *err, size_t errlen);
/** Drop what was written (remove the temporary file); frees f; NULL is a no-op. */
LS_API void ls_outfile_abort(ls_outfile *f);

/* ---- Reading a matrix that is to be solved (src/io/mm_dense.c, csr_read.c) ----
 * As ls_io_read_from and ls_csr_read_mm, and besides: a square Matrix
 * Market coordinate file whose stored entries leave a column or a row
 * empty (every file with fewer entries than rows does) is singular whatever
 * its values (structurally singular), and is refused as such once its
 * entries were read and checked, before the dense matrix or the CSR rows
 * are allocated: a size line of 20000 x 20000 over one entry costs
 * nothing. The return value is then positive (a numerical outcome, not an
 * error): the 1-based index of the first empty column, or, with none, of
 * the first empty row; err says which ("A.mtx: the matrix is singular:
 * column 2 holds no entry (...)"). Array and .npy files, and rectangular
 * matrices, read exactly as with the plain readers. */
LS_API int ls_io_read_for_solve(FILE *stream, const char *name, ls_io_format format,
                                ls_matrix *m, ls_io_info *info, ls_progress_fn progress,
                                void *arg, char *err, size_t errlen);
LS_API int ls_csr_read_for_solve(const char *path, ls_csr *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
