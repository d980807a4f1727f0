/* The CUDA backend's tuning table (src/cuda/common/tuning.c), which is
 * plain C and so runs in every build, with or without the toolkit: the row
 * each compute capability gets, the rows' consistency, the knob default
 * that repeats a field, and what `linsolve info` prints of a row. That the
 * sm_90 row holds the values docs/tuning.md lists is test core_knobs_docs's
 * part 4. Exit status: the number of failures. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "cuda/common/tuning.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("  %-66s %s\n", what, ok ? "ok" : "failed");
    if (!ok)
        failures++;
}

static const lsc_tuning *default_row(void)
{
    int n = 0;
    const lsc_tuning *rows = lsc_tuning_rows(&n);
    return &rows[n - 1];
}

static void check_lookup(void)
{
    const lsc_tuning *h100 = lsc_tuning_for(9, 0), *dflt = default_row();
    check(!strcmp(h100->name, "sm_90") && h100->cc_major == 9 && h100->cc_minor == 0,
          "cc 9.0 (H100, H200) gets the sm_90 row");
    check(!strcmp(dflt->name, "default") && dflt->cc_major == -1 && dflt->cc_minor == -1,
          "the last row is the default row, for any architecture");
    check(dflt != h100, "the default row is not the sm_90 row");
    static const int others[][2] = {{8, 6}, {8, 0}, {7, 5}, {9, 1}, {10, 0}, {12, 0}, {-1, -1}};
    int all = 1;
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        all &= lsc_tuning_for(others[i][0], others[i][1]) == dflt;
    check(all, "cc 8.6, 8.0, 7.5, 9.1, 10.0, 12.0 and -1.-1 get the default row");
}

static void check_rows(void)
{
    int n = 0, nf = 0, named = 1, unique = 1, ordered = 1, positive = 1, ints = 1;
    const lsc_tuning *rows = lsc_tuning_rows(&n);
    const lsc_tuning_field *f = lsc_tuning_fields(&nf);
    check(n >= 2, "the table has the sm_90 row and the default row");
    check(nf > 0, "lsc_tuning_fields lists the fields");
    for (int i = 0; i < n; i++) {
        const lsc_tuning *r = &rows[i];
        named &= r->name && r->name[0] && r->measured && r->measured[0];
        for (int j = 0; j < i; j++)
            unique &= rows[j].cc_major != r->cc_major || rows[j].cc_minor != r->cc_minor;
        if (i < n - 1)
            ordered &= r->cc_major >= 0 && lsc_tuning_for(r->cc_major, r->cc_minor) == r;
        ordered &= r->bthread_min_n <= r->bthread_max_n;
        for (int k = 0; k < nf; k++) {
            double v = lsc_tuning_value(r, &f[k]);
            positive &= f[k].is_double ? v > 0 : v >= 0;
            ints &= f[k].is_double || v == (double)(int)v;
        }
    }
    check(named, "every row has a name and says where it was measured");
    check(unique, "no two rows share a compute capability");
    check(ordered, "each architecture row is found by its own cc; thread min <= max");
    check(positive, "every int field >= 0, every double field > 0");
    check(ints, "lsc_tuning_value reads the int fields exactly");
    int fields_unique = 1;
    for (int k = 0; k < nf; k++)
        for (int j = 0; j < k; j++)
            fields_unique &= strcmp(f[j].name, f[k].name) != 0 && f[j].offset != f[k].offset;
    check(fields_unique, "no field is listed twice");
}

/* LS_CUDA_MIXED_RBT_MIN_N replaces rbt_min_n when set: the registry's
 * documented default must be the value that runs on the measured GPU. */
static void check_knob_default(void)
{
    check(lsc_tuning_for(9, 0)->rbt_min_n == LS_KNOB_DEFAULT_CUDA_MIXED_RBT_MIN_N,
          "LS_CUDA_MIXED_RBT_MIN_N's default is the sm_90 row's rbt_min_n");
}

/* What `linsolve info` prints under each CUDA device. */
static void check_print(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        check(0, "open_memstream for lsc_tuning_print");
        return;
    }
    const lsc_tuning *r = lsc_tuning_for(9, 0);
    lsc_tuning_print(r, mem, "    ");
    fclose(mem);
    int nf = 0, lines = 0, found = 1;
    const lsc_tuning_field *f = lsc_tuning_fields(&nf);
    for (const char *p = text; p && *p; p++)
        lines += *p == '\n';
    check(text && strstr(text, "tuning row sm_90 (measured on an H100") != NULL,
          "the printed row starts with its name and where it was measured");
    for (int k = 0; k < nf; k++) {
        char want[96];
        snprintf(want, sizeof want, "      %-14s %g\n", f[k].name, lsc_tuning_value(r, &f[k]));
        found &= text && strstr(text, want) != NULL;
    }
    check(found, "every field is printed with its value");
    check(lines == 1 + nf, "one line for the row, one a field");
    if (failures)
        fputs(text ? text : "", stdout);
    free(text);
}

int main(void)
{
    printf("CUDA tuning table (src/cuda/common/tuning.c)\n");
    check_lookup();
    check_rows();
    check_knob_default();
    check_print();
    printf("%d failure(s)\n", failures);
    return failures;
}
