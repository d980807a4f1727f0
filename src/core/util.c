#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double ls_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ls_fail_at(char *err, size_t errlen, int status, const char *file, int line, const char *fmt,
               ...)
{
    if (err && errlen) {
        /* Keep only the file's base name: messages are for users, not builds. */
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        char text[LS_ERRTEXT_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        snprintf(err, errlen, "%s [%s:%d]", text, base, line);
    }
    return status;
}

int ls_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

uint64_t ls_rand_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double ls_rand_uniform(uint64_t *state)
{
    /* 53 random bits -> [0,1) -> [-1,1) */
    double u = (double)(ls_rand_u64(state) >> 11) * 0x1.0p-53;
    return 2.0 * u - 1.0;
}

double ls_norm_inf(int m, int n, const double *A, int lda)
{
    double best = 0.0;
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += fabs(A[i + (size_t)j * lda]);
        if (s > best || isnan(s))
            best = s;
    }
    return best;
}

double ls_host_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}
