/* Private plumbing shared by the Matrix Market and NumPy readers/writers. */
#ifndef LS_IO_INTERNAL_H
#define LS_IO_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "linsolve.h"

/* Files at least this large get progress callbacks; smaller ones are read
 * without the bookkeeping so the common case stays cheap. */
#define LS_IO_PROGRESS_MIN_BYTES (100LL * 1000 * 1000)
/* Progress is reported each time this fraction of the file has gone by. */
#define LS_IO_PROGRESS_STEP 0.02
/* Longest Matrix Market line accepted; real lines are < 100 bytes, so this
 * only stops a file without newlines from growing the buffer without end. */
#define LS_IO_MAX_LINE (1 << 20)

/* An open input file plus what the readers need to report on it. */
typedef struct ls_io_src {
    FILE *f;
    const char *path; /* what messages call it: the file name, or "<stdin>" */
    int borrowed;     /* f is the caller's stream: not closed here */
    char dtype[4];    /* set by the .npy reader: "f8", "f4", "i4", ... */
    long long size;   /* bytes, or -1 when not a regular file (read as it comes) */
    long long stream_cap; /* ls_io_stream_max_bytes() once a stream is read, else 0 */
    int for_solve;    /* refuse a structurally singular coordinate file early */
    long long offset; /* bytes consumed so far */
    ls_progress_fn progress; /* NULL unless the file is large */
    void *progress_arg;
    double next_report; /* fraction at which to call progress next */
    unsigned char peek[8]; /* bytes read to sniff the format, served first */
    size_t npeek, peek_pos;
} ls_io_src;

/* Line reader over an ls_io_src: yields NUL-terminated lines with the line
 * terminator (\n or \r\n) removed. */
typedef struct ls_io_lines {
    ls_io_src *src;
    char *buf;
    size_t cap, len, pos;
    int eof;
    long long line_no; /* 1-based number of the line last returned */
} ls_io_lines;

/* Open path for reading and find its size. On failure returns LS_EIO. */
int ls_io_open(ls_io_src *src, const char *path, ls_progress_fn progress, void *arg, char *err,
               size_t errlen);
/* Take the caller's stream, named name in messages: a regular file is read
 * in place with its size known; anything else (a pipe, FIFO, device) is
 * read once as it comes (size -1), at most ls_io_stream_max_bytes(). */
int ls_io_open_stream(ls_io_src *src, FILE *f, const char *name, ls_progress_fn progress,
                      void *arg, char *err, size_t errlen);
void ls_io_close(ls_io_src *src);
/* Read exactly n bytes (fewer only at end of file: *got says how many). */
int ls_io_read_bytes(ls_io_src *src, void *dst, size_t n, size_t *got, char *err, size_t errlen);
/* Read up to n <= 8 bytes and push them back so the next read sees them. */
int ls_io_peek(ls_io_src *src, size_t n, const unsigned char **bytes, size_t *got, char *err,
               size_t errlen);
/* Call the progress callback if another step of the file has gone by. */
void ls_io_report(ls_io_src *src);

int ls_io_lines_init(ls_io_lines *lr, ls_io_src *src, char *err, size_t errlen);
void ls_io_lines_free(ls_io_lines *lr);
/* Next line into *line (length *len). Returns 0 and *line == NULL at end of
 * file, or an error status (LS_EIO, LS_EFORMAT, LS_ENOMEM). */
int ls_io_lines_next(ls_io_lines *lr, char **line, size_t *len, char *err, size_t errlen);

/* 1 on a little-endian host (.npy files name their byte order). */
int ls_io_host_is_little(void);

/* Printable, length-limited copy of untrusted text for error messages. */
void ls_io_snippet(const char *text, size_t len, char *out, size_t outlen);

/* Readers on an already opened source (the file's first bytes unread). */
int ls_mm_read_src(ls_io_src *src, ls_matrix *m, char *err, size_t errlen);
int ls_npy_read_src(ls_io_src *src, ls_matrix *m, char *err, size_t errlen);

/* The .npy header as the stack reader (npy_stack.c) needs it: the parsed
 * dict of a file opened at its start, the data's first byte at src->offset. */
typedef struct ls_npy_desc {
    char kind;    /* 'f', 'i' or 'u' */
    int itemsize; /* bytes */
    int little, fortran;
    int ndim;     /* dims holds the first 3 */
    long long dims[3];
} ls_npy_desc;
int ls_npy_read_desc(ls_io_src *src, ls_npy_desc *d, char *err, size_t errlen);
/* One element of the file as a double. */
double ls_npy_element(const unsigned char *p, const ls_npy_desc *d);

/* npy_stream.c: the total elements of a .npy file whose size is unknown
 * (src->size < 0), in file order, in a buffer that grows only as they
 * arrive; a short stream or trailing bytes are errors. *out is the
 * caller's to free. */
int ls_npy_stream_values(ls_io_src *src, const ls_npy_desc *d, long long data_at, size_t total,
                         double **out, char *err, size_t errlen);
/* Move a[k] to a[dest(k)] for every k < n, in place (dest a permutation).
 * Returns 0 or LS_ENOMEM (n/8 bytes of bookkeeping). */
int ls_io_permute(double *a, size_t n, size_t (*dest)(size_t k, const void *ctx),
                  const void *ctx);

#endif
