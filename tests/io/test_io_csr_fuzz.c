/* CSR reader robustness, differentially against the dense reader: real
 * files and small hand-written ones, cut short and mutated (deterministic).
 * Every read must return an allowed status; a success must be a well-formed
 * CSR, a failure leave *out zeroed with a message naming the file. Where
 * neither reader hit a size cap (the two cap different things), both must
 * agree: the same status, the same message for format errors, and on
 * success the same matrix, entry for entry. Runs in io_csr_fuzz and, under
 * AddressSanitizer + UBSan, in io_fuzz_asan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr_testlib.h"
#include "io_suites.h"
#include "io_testlib.h"
#include "testutil.h"

#define CUTS 150
#define MUTATIONS 300
#define SLACK 64

typedef struct csr_fuzz_stats {
    long reads, accepted, refused, compared, violations;
} csr_fuzz_stats;

static int allowed(int st)
{
    return st == 0 || st == LS_EFORMAT || st == LS_EUNSUPPORTED || st == LS_ENONFINITE ||
           st == LS_ESIZE;
}

static void violation(csr_fuzz_stats *s, const unsigned char *b, size_t n, const char *what,
                      const char *err)
{
    if (s->violations++ < 5) {
        printf("    violation: %s: %s\n    input (%zu bytes):", what, err, n);
        for (size_t i = 0; i < n && i < 160; i++)
            printf(" %02x", b[i]);
        printf("\n");
    }
}

static void read_both(const unsigned char *b, size_t n, const char *path, csr_fuzz_stats *s)
{
    if (io_write_bytes(path, b, n) != 0) {
        violation(s, b, 0, "cannot write", path);
        return;
    }
    ls_csr A;
    ls_matrix D;
    char err[1024] = "", derr[1024] = "", why[160] = "";
    int st = ls_csr_read_mm(path, &A, err, sizeof err);
    int dst = ls_mm_read(path, &D, derr, sizeof derr);
    const char *base = strrchr(path, '/') + 1;
    s->reads++;
    if (!allowed(st)) {
        violation(s, b, n, ls_status_name(st), err);
    } else if (st == 0) {
        s->accepted++;
        if (!csr_well_formed(&A, why, sizeof why))
            violation(s, b, n, "malformed CSR", why);
    } else {
        s->refused++;
        if (A.row_ptr || A.col_idx || A.val || A.nnz || !strstr(err, base))
            violation(s, b, n, "refusal without a zeroed matrix or the file's name", err);
    }
    if (allowed(st) && st != LS_ESIZE && dst != LS_ESIZE) {
        s->compared++;
        if (dst == 0 && !D.sparse_input) {
            if (st != LS_EUNSUPPORTED)
                violation(s, b, n, "array file not refused by the CSR reader", err);
        } else if (st != dst) {
            char both[2200];
            snprintf(both, sizeof both, "csr %s (%s), dense %s (%s)", ls_status_name(st), err,
                     ls_status_name(dst), derr);
            violation(s, b, n, "readers disagree", both);
        } else if ((st == LS_EFORMAT || st == LS_EUNSUPPORTED) && strcmp(err, derr) != 0) {
            char both[2200];
            snprintf(both, sizeof both, "csr \"%s\", dense \"%s\"", err, derr);
            violation(s, b, n, "messages differ", both);
        } else if (st == 0) {
            double *SD = csr_densify(&A);
            size_t total = (size_t)D.rows * (size_t)D.cols, same = 0;
            for (size_t k = 0; SD && k < total; k++)
                same += SD[k] == D.data[k];
            if (!SD || same != total || A.n_rows != D.rows || A.n_cols != D.cols)
                violation(s, b, n, "matrices differ", "");
            free(SD);
        }
    }
    ls_csr_free(&A);
    ls_matrix_free(&D);
}

static const char interesting[] = "0123456789 -+.eE\n\r\t%xnaif\0\xff";

static size_t mutate(unsigned char *b, size_t n, size_t cap, unsigned long long *rng)
{
    int ops = 1 + (int)(io_rand(rng) % 3);
    for (int o = 0; o < ops; o++) {
        /* half the time near the start, where the banner and size line are */
        size_t span = (io_rand(rng) & 1) && n > 200 ? 200 : n;
        size_t at = span ? (size_t)(io_rand(rng) % span) : 0;
        unsigned char pick = (unsigned char)interesting[io_rand(rng) % (sizeof interesting - 1)];
        switch (io_rand(rng) % 6) {
        case 0:
            if (n)
                b[at] = (unsigned char)io_rand(rng);
            break;
        case 1:
            if (n)
                b[at] = pick;
            break;
        case 2:
            if (n) {
                memmove(b + at, b + at + 1, n - at - 1);
                n--;
            }
            break;
        case 3:
            if (n < cap) {
                memmove(b + at + 1, b + at, n - at);
                b[at] = pick;
                n++;
            }
            break;
        case 4: /* a run of nines: huge sizes and indices */
            for (int k = 0; k < 12 && n < cap; k++) {
                memmove(b + at + 1, b + at, n - at);
                b[at] = '9';
                n++;
            }
            break;
        default:
            if (n)
                b[at] ^= (unsigned char)(1u << (io_rand(rng) % 8));
            break;
        }
    }
    return n;
}

static int fuzz_one(const char *label, const unsigned char *seed, size_t len,
                    unsigned long long rng, int all_cuts)
{
    csr_fuzz_stats s = {0, 0, 0, 0, 0};
    unsigned char *b = malloc(len + SLACK);
    if (!b)
        return lt_check(0, "malloc");
    char name[80], path[1024];
    snprintf(name, sizeof name, "csrfuzz_%s", label);
    snprintf(path, sizeof path, "%s", io_tmp_path(name));
    read_both(seed, len, path, &s);
    int seed_ok = s.accepted == 1;
    size_t cuts = all_cuts ? len : CUTS;
    for (size_t c = 0; c < cuts; c++)
        read_both(seed, all_cuts ? c : (size_t)(io_rand(&rng) % len), path, &s);
    for (int k = 0; k < MUTATIONS; k++) {
        memcpy(b, seed, len);
        read_both(b, mutate(b, len, len + SLACK, &rng), path, &s);
    }
    free(b);
    return lt_check(seed_ok && s.violations == 0,
                    "csr fuzz %-16s %zu cuts + %d mutations: %ld reads, %ld accepted, %ld "
                    "refused, %ld compared with the dense reader, %ld violations",
                    label, cuts, MUTATIONS, s.reads, s.accepted, s.refused, s.compared,
                    s.violations);
}

static const char *small_seeds[][2] = {
    {"dups.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n3 4 5\n1 4 1.5\n"
                 "2 1 -2e-3\n1 4 7\n3 3 0\n1 1 .25\n"},
    {"skew_pattern.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 2\n"
                         "2 1\n3 2\n"},
    {"int_sym.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 4\n1 1 4\n"
                    "2 1 -1\n3 3 9\n1 2 5\n"},
};

int io_csr_fuzz_suite(const char *dir)
{
    int fails = 0;
    /* keeps accidental huge-but-plausible headers cheap for both readers */
    setenv("LS_MAX_ELEMENTS", "1000000", 1);
    const char *real[] = {"impcol_a.mtx", "494_bus.mtx"};
    for (int f = 0; f < 2; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/real/%s", dir, real[f]);
        unsigned char *bytes = NULL;
        size_t n = 0;
        if (io_read_all(path, &bytes, &n) != 0) {
            fails += lt_check(0, "read %s", path);
            continue;
        }
        fails += fuzz_one(real[f], bytes, n, 1234 + (unsigned long long)f, 0);
        free(bytes);
    }
    for (size_t i = 0; i < sizeof small_seeds / sizeof small_seeds[0]; i++)
        fails += fuzz_one(small_seeds[i][0], (const unsigned char *)small_seeds[i][1],
                          strlen(small_seeds[i][1]), 77 + i, 1);
    unsetenv("LS_MAX_ELEMENTS");
    return fails;
}
