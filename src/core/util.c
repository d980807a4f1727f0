#include "core/util.h"
#include "core/tool_api.h"
#include "core/knobs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
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

/* Length of a location as ls_fail_at appends it, " [name.ext:123]", at s;
 * 0 if s does not start with one. The name must hold a dot and the line be
 * digits, so bracketed text such as "[-1,1]" is never taken for one. */
static size_t where_len(const char *s)
{
    if (s[0] != ' ' || s[1] != '[')
        return 0;
    size_t i = 2, dot = 0;
    while (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.') {
        if (s[i] == '.')
            dot = i;
        i++;
    }
    if (dot <= 2 || dot + 1 == i || s[i] != ':' || !isdigit((unsigned char)s[i + 1]))
        return 0;
    for (i++; isdigit((unsigned char)s[i]); i++)
        ;
    return s[i] == ']' ? i + 1 : 0;
}

void ls_message_split(const char *msg, char *text, size_t textlen, char *where, size_t wherelen)
{
    size_t o = 0, w = 0;
    if (!msg)
        msg = "";
    if (where && wherelen)
        where[0] = '\0';
    /* Copied forward one byte at a time, so text may be msg itself. */
    for (size_t i = 0; msg[i];) {
        size_t n = where_len(msg + i);
        if (!n) {
            if (text && o + 1 < textlen)
                text[o++] = msg[i];
            i++;
            continue;
        }
        /* nested failures carry one location each: keep them all, innermost first */
        for (size_t k = i + 2; k < i + n - 1 && where && w + 2 < wherelen; k++) {
            if (k == i + 2 && w > 0)
                where[w++] = ' ';
            where[w++] = msg[k];
        }
        if (where && wherelen)
            where[w] = '\0';
        i += n;
    }
    if (text && textlen)
        text[o] = '\0';
}

/* LS_FAULT_ALLOC: -1 not read yet, 0 off, else the allocation to fail. */
static atomic_llong fault_target = -1;
static atomic_llong fault_count;
static atomic_int fault_fired;

static long long fault_read_env(void)
{
    long long n = ls_knob_int(LS_KNOB_FAULT_ALLOC); /* 0 when unset or not a count */
    atomic_store(&fault_target, n);
    return n;
}

/* 1 when this allocation is the one LS_FAULT_ALLOC names. */
static int fault_now(void)
{
    long long target = atomic_load_explicit(&fault_target, memory_order_relaxed);
    if (target == 0)
        return 0;
    if (target < 0 && (target = fault_read_env()) == 0)
        return 0;
    if (atomic_fetch_add(&fault_count, 1) + 1 != target)
        return 0;
    atomic_store(&fault_fired, 1);
    return 1;
}

void *ls_malloc(size_t bytes)
{
    return fault_now() ? NULL : malloc(bytes);
}

void *ls_calloc(size_t count, size_t size)
{
    return fault_now() ? NULL : calloc(count, size);
}

void *ls_realloc(void *p, size_t bytes)
{
    return fault_now() ? NULL : realloc(p, bytes);
}

long long ls_fault_alloc_state(void)
{
    long long n = atomic_load(&fault_count);
    return atomic_load(&fault_fired) ? -n : n;
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
