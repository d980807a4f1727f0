/* Small internal helpers shared by the core, io, gen and backends. */
#ifndef LS_CORE_UTIL_H
#define LS_CORE_UTIL_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include "linsolve.h"

#define LS_ERRTEXT_MAX 448

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic wall clock in seconds. */
double ls_now(void);

/* Format a message into err (if non-NULL): "text [file.c:line]". Returns
 * status so call sites can write `return LS_FAIL(err, len, LS_EIO, "...", ...)`.
 * ls_message_split (tool_api.h) takes the location off again for users. */
int ls_fail_at(char *err, size_t errlen, int status, const char *file, int line, const char *fmt,
               ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
#define LS_FAIL(err, errlen, status, ...) \
    ls_fail_at((err), (errlen), (status), __FILE__, __LINE__, __VA_ARGS__)

/* The library's host allocations go through these (free() releases them).
 * Test hook: with LS_FAULT_ALLOC=N in the environment when the first of them
 * runs, the N-th call in the process fails (returns NULL) once, so a test can
 * walk N over a whole solve or read and check each failure path
 * (tests/fault). Unset, the cost is one relaxed atomic load per allocation.
 * The counter is the library's only process-wide mutable state, and it is
 * test-only. */
void *ls_malloc(size_t bytes);
void *ls_calloc(size_t count, size_t size);
void *ls_realloc(void *p, size_t bytes);
/* Allocations counted so far under LS_FAULT_ALLOC, negated once the injected
 * failure has happened; 0 when the hook is off. For tests only. */
LS_API long long ls_fault_alloc_state(void);

/* Overflow-checked size arithmetic: 0 on success. */
int ls_mul_size(size_t a, size_t b, size_t *out);

/* Counter-based PRNG (splitmix64): deterministic across platforms. */
uint64_t ls_rand_u64(uint64_t *state);
double ls_rand_uniform(uint64_t *state); /* [-1, 1) */

/* Physical memory of this machine in bytes (0 if unknown). */
double ls_host_memory_bytes(void);

/* Infinity norms of column-major blocks. */
double ls_norm_inf(int m, int n, const double *A, int lda);

#ifdef __cplusplus
}
#endif
#endif
