/* Helpers shared by the io tests: a scratch folder, byte-level file
 * writing, and "read this, expect that status and message" checks. */
#ifndef LS_IO_TESTLIB_H
#define LS_IO_TESTLIB_H

#include <stddef.h>

#include "linsolve.h"

/* Create a fresh scratch folder (under $TMPDIR or /tmp); NULL on failure. */
const char *io_tmpdir_create(void);
/* Remove the scratch folder and every file in it. */
void io_tmpdir_remove(void);
/* Path of name inside the scratch folder (a static buffer, reused per call). */
const char *io_tmp_path(const char *name);

/* Write n bytes to path; 0 on success. */
int io_write_bytes(const char *path, const void *bytes, size_t n);
/* Write a NUL-terminated text to the scratch file name; returns its path. */
const char *io_write_text(const char *name, const char *text);
/* Read a whole file into a malloc'd buffer; 0 on success. */
int io_read_all(const char *path, unsigned char **bytes, size_t *n);

/*
 * Read path with ls_matrix_read and check the status. When a failure is
 * expected, the message must also contain the file's base name and `where`
 * (e.g. ":3:" for a Matrix Market line, "byte " for npy) and, if not NULL,
 * `word`. Prints one check line; returns 1 on failure.
 */
int io_expect_status(const char *path, int want, const char *where, const char *word);

/* Build an .npy file in memory: version major (1..3), header dict text,
 * then data. Returns a malloc'd buffer of *n bytes, header padded to 64. */
unsigned char *io_npy_bytes(int major, const char *dict, const void *data, size_t data_bytes,
                            size_t *n);

/* Monotonic seconds (the library keeps its own clock private). */
double io_now(void);
/* Deterministic splitmix64 stream for test data. */
unsigned long long io_rand(unsigned long long *state);

/* Bitwise equality of two double arrays (so -0.0 != 0.0, NaN payloads kept). */
int io_same_bits(const double *a, const double *b, size_t n);

#endif
