/* For the fuzz targets whose reader takes a path (ls_csr_read_mm,
 * ls_io_read_stack): each input is written to one temporary regular file,
 * made once per process (mkstemp in /dev/shm, else $TMPDIR or /tmp) and
 * rewritten in place for every input, then removed at exit. The readers get
 * a real file, with the size they check headers against, as from a user.
 *
 * The element cap is lowered as in fuzz_read.h, so that no legal but large
 * header makes the fuzzer allocate gigabytes. */
#ifndef LS_FUZZ_FILE_H
#define LS_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linsolve.h"

#define LS_FUZZ_FILE_MAX_ELEMENTS "262144"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char ls_fuzz_path[256];
static int ls_fuzz_fd = -1;

static void ls_fuzz_file_remove(void)
{
    if (ls_fuzz_fd >= 0) {
        close(ls_fuzz_fd);
        unlink(ls_fuzz_path);
        ls_fuzz_fd = -1;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("LS_MAX_ELEMENTS", LS_FUZZ_FILE_MAX_ELEMENTS, 1);
    const char *tmp = getenv("TMPDIR");
    const char *dirs[] = {"/dev/shm", tmp && *tmp ? tmp : "/tmp", "/tmp"};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0] && ls_fuzz_fd < 0; d++) {
        snprintf(ls_fuzz_path, sizeof ls_fuzz_path, "%s/ls-fuzz-XXXXXX", dirs[d]);
        ls_fuzz_fd = mkstemp(ls_fuzz_path);
    }
    if (ls_fuzz_fd < 0) {
        fprintf(stderr, "fuzz: cannot make a temporary file\n");
        abort();
    }
    atexit(ls_fuzz_file_remove);
    return 0;
}

/* The input as the file's whole content; its path. */
static const char *ls_fuzz_file_put(const uint8_t *data, size_t size)
{
    if (ftruncate(ls_fuzz_fd, 0) != 0 ||
        (size && pwrite(ls_fuzz_fd, data, size, 0) != (ssize_t)size)) {
        fprintf(stderr, "fuzz: cannot write %s\n", ls_fuzz_path);
        abort();
    }
    return ls_fuzz_path;
}

static long long ls_fuzz_cap(void)
{
    return strtoll(LS_FUZZ_FILE_MAX_ELEMENTS, NULL, 10);
}

static void ls_fuzz_file_violation(const char *what, int st, const char *err)
{
    fprintf(stderr, "fuzz: invariant broken: %s (status %s, message \"%s\")\n", what,
            ls_status_name(st), err);
    abort();
}

/* A refusal must be one of the statuses a file can earn (no LS_EIO or
 * LS_ENOMEM for a small file under a low cap) and name the file. */
static void ls_fuzz_check_refusal(int st, const char *err, const char *path)
{
    if (st != LS_EFORMAT && st != LS_EUNSUPPORTED && st != LS_ENONFINITE && st != LS_ESIZE)
        ls_fuzz_file_violation("unexpected status", st, err);
    if (!strstr(err, path))
        ls_fuzz_file_violation("message does not name the file", st, err);
}

#endif
