/* Shared body of the reader fuzz targets: feed the bytes to the reader the
 * way the linsolve tool feeds it a pipe (ls_io_read_from on a stream, here an
 * fmemopen stream, which the io layer reads into memory first), then check
 * what came back. A broken invariant calls abort(), which libFuzzer and the
 * replay test both report as a failure.
 *
 * The element cap is lowered (LS_MAX_ELEMENTS) so that a legal header that
 * asks for a big matrix ("50000 50000 0") is refused instead of making the
 * fuzzer allocate gigabytes: every allocation stays within the cap. */
#ifndef LS_FUZZ_READ_H
#define LS_FUZZ_READ_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tool_api.h"
#include "linsolve.h"

/* 2^18 doubles = 2 MiB: the seed matrices up to 494 x 494 still fit. */
#define LS_FUZZ_MAX_ELEMENTS "262144"
#define LS_FUZZ_NAME "fuzz-input"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("LS_MAX_ELEMENTS", LS_FUZZ_MAX_ELEMENTS, 1);
    return 0;
}

static void ls_fuzz_violation(const char *what, int st, const char *err)
{
    fprintf(stderr, "fuzz: invariant broken: %s (status %s, message \"%s\")\n", what,
            ls_status_name(st), err);
    abort();
}

static int ls_fuzz_read(const uint8_t *data, size_t size, ls_io_format format)
{
    /* glibc's fmemopen accepts size 0 (an empty stream); read-only mode never
     * writes through the pointer. */
    static const uint8_t empty[1];
    FILE *f = fmemopen((void *)(size ? data : empty), size, "r");
    if (!f)
        return 0;
    ls_matrix m;
    ls_io_info info;
    char err[1024] = "";
    int st = ls_io_read_from(f, LS_FUZZ_NAME, format, &m, &info, NULL, NULL, err, sizeof err);
    fclose(f);
    if (st == 0) {
        long long cap = strtoll(LS_FUZZ_MAX_ELEMENTS, NULL, 10);
        if (!m.data || m.rows < 1 || m.cols < 1 || m.ld != m.rows ||
            (long long)m.rows * m.cols > cap)
            ls_fuzz_violation("success with a malformed matrix", st, err);
        for (size_t k = 0; k < (size_t)m.rows * (size_t)m.cols; k++)
            if (!isfinite(m.data[k]))
                ls_fuzz_violation("success with a non-finite value", st, err);
        if (info.format != format)
            ls_fuzz_violation("info names another format", st, err);
    } else if (st == LS_EFORMAT || st == LS_EUNSUPPORTED || st == LS_ENONFINITE ||
               st == LS_ESIZE) {
        if (m.data)
            ls_fuzz_violation("failure left a matrix behind", st, err);
        if (!strstr(err, LS_FUZZ_NAME))
            ls_fuzz_violation("message does not name the input", st, err);
    } else {
        /* LS_EIO, LS_ENOMEM, ...: nothing in memory-backed, capped input calls for them */
        ls_fuzz_violation("unexpected status", st, err);
    }
    ls_matrix_free(&m);
    return 0;
}

#endif
