/* Fuzz-style robustness: valid .mtx and .npy byte strings, cut at every
 * length and mutated a few thousand times (deterministically). Every read
 * must return a status; a success must hold a sane finite matrix, a failure
 * no matrix and a message naming the file. Crashes and leaks show up under
 * io_fuzz_asan (AddressSanitizer + LeakSanitizer + UBSan). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_suites.h"
#include "io_testlib.h"
#include "testutil.h"

#define MUTATIONS_PER_SEED 600
#define SLACK 64 /* room for inserted bytes */

typedef struct fuzz_stats {
    long reads, accepted, refused, violations;
} fuzz_stats;

static int allowed_status(int st)
{
    return st == 0 || st == LS_EFORMAT || st == LS_EUNSUPPORTED || st == LS_ENONFINITE ||
           st == LS_ESIZE;
}

static void dump(const unsigned char *b, size_t n)
{
    printf("    input (%zu bytes):", n);
    for (size_t i = 0; i < n && i < 160; i++)
        printf(" %02x", b[i]);
    printf("\n");
}

/* Read bytes through the file system and check the invariants. */
static void read_one(const unsigned char *b, size_t n, int which, const char *path,
                     fuzz_stats *s)
{
    if (io_write_bytes(path, b, n) != 0) {
        s->violations++;
        printf("    cannot write %s\n", path);
        return;
    }
    ls_matrix m;
    char err[1024] = "";
    int st = which == 1   ? ls_mm_read(path, &m, err, sizeof err)
             : which == 2 ? ls_npy_read(path, &m, err, sizeof err)
                          : ls_matrix_read(path, &m, err, sizeof err);
    const char *base = strrchr(path, '/') + 1;
    int ok = allowed_status(st);
    if (ok && st == 0) {
        ok = m.data && m.rows >= 1 && m.cols >= 1 && m.ld == m.rows;
        for (size_t k = 0; ok && k < (size_t)m.rows * (size_t)m.cols; k++)
            ok = isfinite(m.data[k]);
        s->accepted++;
    } else if (ok) {
        ok = m.data == NULL && err[0] && strstr(err, base);
        s->refused++;
    }
    s->reads++;
    if (!ok) {
        if (s->violations < 5) {
            printf("    violation: %s %s\n", ls_status_name(st), err);
            dump(b, n);
        }
        s->violations++;
    }
    ls_matrix_free(&m);
}

static const char interesting[] = "0123456789 -+.eE\n\r\t%,:()'\"{}[]xLnaifT\0\xff";

static size_t mutate(unsigned char *b, size_t n, size_t cap, unsigned long long *rng)
{
    int ops = 1 + (int)(io_rand(rng) % 3);
    for (int o = 0; o < ops; o++) {
        size_t at = n ? (size_t)(io_rand(rng) % n) : 0;
        unsigned char pick = (unsigned char)interesting[io_rand(rng) % (sizeof interesting - 1)];
        switch (io_rand(rng) % 6) {
        case 0: /* any byte */
            if (n)
                b[at] = (unsigned char)io_rand(rng);
            break;
        case 1: /* a byte that means something to one of the parsers */
            if (n)
                b[at] = pick;
            break;
        case 2: /* delete */
            if (n) {
                memmove(b + at, b + at + 1, n - at - 1);
                n--;
            }
            break;
        case 3: /* insert */
            if (n < cap) {
                memmove(b + at + 1, b + at, n - at);
                b[at] = pick;
                n++;
            }
            break;
        case 4: /* a long run of nines: huge sizes, indices, lengths */
            for (int k = 0; k < 12 && n < cap; k++) {
                memmove(b + at + 1, b + at, n - at);
                b[at] = '9';
                n++;
            }
            break;
        default: /* flip one bit */
            if (n)
                b[at] ^= (unsigned char)(1u << (io_rand(rng) % 8));
            break;
        }
    }
    return n;
}

static int fuzz_seed(const char *label, const unsigned char *seed, size_t len, int which,
                     unsigned long long rng)
{
    fuzz_stats s = {0, 0, 0, 0};
    unsigned char *b = malloc(len + SLACK);
    if (!b)
        return lt_check(0, "malloc");
    char name[64];
    snprintf(name, sizeof name, "fuzz_%s", label);
    const char *path = io_tmp_path(name);
    char path_copy[1024];
    snprintf(path_copy, sizeof path_copy, "%s", path);

    read_one(seed, len, 0, path_copy, &s);
    int seed_ok = s.accepted == 1;
    for (size_t cut = 0; cut < len; cut++)
        read_one(seed, cut, 0, path_copy, &s);
    for (int k = 0; k < MUTATIONS_PER_SEED; k++) {
        memcpy(b, seed, len);
        size_t n = mutate(b, len, len + SLACK, &rng);
        /* Mostly by content, sometimes forced through the seed's own reader. */
        read_one(b, n, k % 4 == 3 ? which : 0, path_copy, &s);
    }
    free(b);
    return lt_check(seed_ok && s.violations == 0,
                    "fuzz %-16s %zu cuts + %d mutations: %ld reads, %ld accepted, %ld refused, "
                    "%ld violations",
                    label, len, MUTATIONS_PER_SEED, s.reads, s.accepted, s.refused,
                    s.violations);
}

static const char *mm_seeds[][2] = {
    {"coord.mtx", "%%MatrixMarket matrix coordinate real general\n% comment\n3 3 4\n1 1 1.5\n"
                  "2 1 -2e-3\n3 3 7\n1 3 0.25\n"},
    {"sym_array.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n"},
    {"skew_pattern.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 2\n"
                         "2 1\n3 2\n"},
    {"int_sym.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 4\n"
                    "2 1 -1\n3 3 9\n"},
    {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1e300\n-0\n.5\n4\n"},
};

int io_fuzz_suite(void)
{
    int fails = 0;
    /* Keep accidental huge-but-plausible headers cheap to allocate. */
    setenv("LS_MAX_ELEMENTS", "1000000", 1);
    for (size_t i = 0; i < sizeof mm_seeds / sizeof mm_seeds[0]; i++)
        fails += fuzz_seed(mm_seeds[i][0], (const unsigned char *)mm_seeds[i][1],
                           strlen(mm_seeds[i][1]), 1, 42 + i);

    double f8[6] = {1.5, -2, 3e-300, 4, 5e10, -0.0};
    float f4[6] = {1.5f, -2, 3e-30f, 4, 5e10f, -0.0f};
    int16_t i2[4] = {1, -2, 300, -4};
    struct {
        const char *label;
        int major;
        const char *dict;
        const void *data;
        size_t bytes;
    } npy_seeds[] = {
        {"f8_fortran.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2), }", f8,
         sizeof f8},
        {"f4_c_v2.npy", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f4,
         sizeof f4},
        {"i2_1d_v3.npy", 3, "{'descr': '<i2', 'fortran_order': False, 'shape': (4,), }", i2,
         sizeof i2},
    };
    for (size_t i = 0; i < sizeof npy_seeds / sizeof npy_seeds[0]; i++) {
        size_t n = 0;
        unsigned char *b = io_npy_bytes(npy_seeds[i].major, npy_seeds[i].dict, npy_seeds[i].data,
                                        npy_seeds[i].bytes, &n);
        if (!b) {
            fails += lt_check(0, "io_npy_bytes");
            continue;
        }
        fails += fuzz_seed(npy_seeds[i].label, b, n, 2, 4242 + i);
        free(b);
    }
    unsetenv("LS_MAX_ELEMENTS");
    return fails;
}
