/* The knob registry (src/core/knobs.h): the parsing rules on chosen values,
 * ONCE against LIVE reading, the table's own consistency; and, for
 * knobs_docs.sh, the table as docs/tuning.md prints it (--markdown) and
 * each CHOICE row's names (--choices).
 *
 * The environment is set before the first knob is read: ONCE rows are read
 * all together at that moment. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "testutil.h"

static const char *const set_before[][2] = {
    {"LS_CUDA_LU_NB", "64"},              /* INT, in range */
    {"LS_CUDA_LU_SMW", "12abc"},          /* INT, not whole: rejected */
    {"LS_LAPACK_MIN_N", "99999999999"},   /* INT, above the range: rejected */
    {"LS_CUDA_MIXED_RBT_MIN_N", "0"},     /* INT, 0 accepted (never) */
    {"LS_CUDA_BATCHED_JB", "12"},         /* POW2, not a power of two */
    {"LS_CUDA_LU_SMALL_BLOCKS", "16"},    /* POW2, accepted */
    {"LS_CUDA_GRAPH", "off"},             /* BOOL, a word */
    {"LS_CUDA_STAGE", "maybe"},           /* BOOL, rejected */
    {"LS_DIST_LOOKAHEAD", "0"},           /* BOOL, a digit */
    {"LS_CUDA_LU_LEAF", "column"},        /* CHOICE, the last of six */
    {"LS_CUDA_LU_DRIVER", "Recursive"},   /* CHOICE, case matters */
    {"LS_PLUGIN_DIR", "/plugins/here"},   /* STRING */
    {"LS_CUDA_LU_COOP_BLOCKS", ""},       /* empty: unset */
};

static int check_value(ls_knob_id id, long long want, ls_knob_source want_src, const char *what)
{
    long long v = 0;
    const char *raw = NULL;
    ls_knob_source src = ls_knob_read(id, &v, &raw);
    const ls_knob_def *d = ls_knob_describe(id);
    return lt_check(v == want && src == want_src, "%-26s %-22s -> %lld, source %d (want %lld, %d)",
                    d->name, what, v, (int)src, want, (int)want_src);
}

static int parsing(void)
{
    int f = 0;
    f += check_value(LS_KNOB_CUDA_LU_NB, 64, LS_KNOB_FROM_ENV, "64");
    f += check_value(LS_KNOB_CUDA_LU_SMW, 0, LS_KNOB_REJECTED, "12abc");
    f += check_value(LS_KNOB_LAPACK_MIN_N, LS_KNOB_DEFAULT_LAPACK_MIN_N, LS_KNOB_REJECTED,
                     "99999999999");
    f += lt_check(ls_knob_raw(LS_KNOB_LAPACK_MIN_N) &&
                      !strcmp(ls_knob_raw(LS_KNOB_LAPACK_MIN_N), "99999999999"),
                  "a rejected value's text is kept for messages");
    f += check_value(LS_KNOB_CUDA_MIXED_RBT_MIN_N, 0, LS_KNOB_FROM_ENV, "0");
    f += check_value(LS_KNOB_CUDA_BATCHED_JB, 0, LS_KNOB_REJECTED, "12");
    f += check_value(LS_KNOB_CUDA_LU_SMALL_BLOCKS, 16, LS_KNOB_FROM_ENV, "16");
    f += check_value(LS_KNOB_CUDA_GRAPH, 0, LS_KNOB_FROM_ENV, "off");
    f += check_value(LS_KNOB_CUDA_STAGE, 1, LS_KNOB_REJECTED, "maybe");
    f += check_value(LS_KNOB_DIST_LOOKAHEAD, 0, LS_KNOB_FROM_ENV, "0");
    f += check_value(LS_KNOB_CUDA_LU_LEAF, 5, LS_KNOB_FROM_ENV, "column");
    f += lt_check(ls_knob_is(LS_KNOB_CUDA_LU_LEAF, "column") &&
                      !ls_knob_is(LS_KNOB_CUDA_LU_LEAF, "auto"),
                  "ls_knob_is names the choice");
    f += check_value(LS_KNOB_CUDA_LU_DRIVER, 0, LS_KNOB_REJECTED, "Recursive");
    f += lt_check(!strcmp(ls_knob_str(LS_KNOB_CUDA_LU_DRIVER), "auto"),
                  "a rejected choice is the first name (%s)", ls_knob_str(LS_KNOB_CUDA_LU_DRIVER));
    f += lt_check(ls_knob_str(LS_KNOB_PLUGIN_DIR) &&
                      !strcmp(ls_knob_str(LS_KNOB_PLUGIN_DIR), "/plugins/here"),
                  "STRING: the text");
    f += check_value(LS_KNOB_CUDA_LU_COOP_BLOCKS, 0, LS_KNOB_UNSET, "(empty)");
    f += check_value(LS_KNOB_OPENCL_DEVICE, -1, LS_KNOB_UNSET, "(unset)");
    f += lt_check(ls_knob_int(LS_KNOB_COUNT_) == 0 && !ls_knob_describe(LS_KNOB_COUNT_),
                  "an id outside the table reads as nothing");
    return f;
}

/* ONCE rows keep the first reading; LIVE rows follow the environment. */
static int once_and_live(void)
{
    int f = 0;
    setenv("LS_CUDA_LU_NB", "128", 1);
    f += check_value(LS_KNOB_CUDA_LU_NB, 64, LS_KNOB_FROM_ENV, "64, then 128 (ONCE)");
    setenv("LS_FAULT_WRITE", "3", 1);
    f += check_value(LS_KNOB_FAULT_WRITE, 3, LS_KNOB_FROM_ENV, "3 (LIVE)");
    setenv("LS_FAULT_WRITE", "-1", 1);
    f += check_value(LS_KNOB_FAULT_WRITE, 0, LS_KNOB_REJECTED, "then -1");
    unsetenv("LS_FAULT_WRITE");
    f += check_value(LS_KNOB_FAULT_WRITE, 0, LS_KNOB_UNSET, "then unset");
    setenv("LS_DEBUG", "1", 1);
    f += check_value(LS_KNOB_DEBUG, 1, LS_KNOB_FROM_ENV, "1 (LIVE)");
    unsetenv("LS_DEBUG");
    return f;
}

/* Every row: named LS_*, sorted, documented; choices that fit the split. */
static int table(void)
{
    int f = 0;
    for (int id = 0; id < LS_KNOB_COUNT_; id++) {
        const ls_knob_def *d = ls_knob_describe((ls_knob_id)id);
        const ls_knob_def *prev = id ? ls_knob_describe((ls_knob_id)(id - 1)) : NULL;
        int bars = 0;
        for (const char *c = d->choices; *c; c++)
            bars += *c == '|';
        int choice_ok = d->type == LS_KNOB_T_CHOICE
                            ? bars >= 1 && bars < LS_KNOB_CHOICES_MAX && strlen(d->choices) < 128
                            : !*d->choices;
        int range_ok = d->type == LS_KNOB_T_INT || d->type == LS_KNOB_T_POW2 ? d->min <= d->max
                                                                             : 1;
        int ok = !strncmp(d->name, "LS_", 3) && (!prev || strcmp(prev->name, d->name) < 0) &&
                 strlen(d->doc) > 20 && *d->part && choice_ok && range_ok &&
                 !(d->when == LS_KNOB_W_LIVE && d->type == LS_KNOB_T_STRING);
        if (!ok)
            f += lt_check(0, "row %s: name, order, doc, part, choices or range", d->name);
    }
    f += lt_check(LS_KNOB_COUNT_ > 30, "%d rows", (int)LS_KNOB_COUNT_);
    return f;
}

static void cell(const char *s)
{
    for (; *s; s++)
        fputs(*s == '|' ? "\\|" : (char[2]){*s, 0}, stdout);
}

/* The table of docs/tuning.md, row for row. */
static void markdown(void)
{
    printf("| variable | category | type | accepted | default | read | part | what it does |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int id = 0; id < LS_KNOB_COUNT_; id++) {
        const ls_knob_def *d = ls_knob_describe((ls_knob_id)id);
        char range[160], def[64];
        ls_knob_range_text((ls_knob_id)id, range, sizeof range);
        ls_knob_default_text((ls_knob_id)id, def, sizeof def);
        printf("| `%s` | %s | %s | ", d->name, ls_knob_category_name(d->category),
               ls_knob_type_name(d->type));
        cell(range);
        printf(" | %s | %s | ", def, ls_knob_when_name(d->when));
        cell(d->part);
        printf(" | ");
        cell(d->doc);
        printf(" |\n");
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--markdown")) {
        markdown();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--choices")) {
        for (int id = 0; id < LS_KNOB_COUNT_; id++) {
            const ls_knob_def *d = ls_knob_describe((ls_knob_id)id);
            if (d->type == LS_KNOB_T_CHOICE)
                printf("%s %s\n", d->name, d->choices);
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof set_before / sizeof set_before[0]; i++)
        setenv(set_before[i][0], set_before[i][1], 1);
    unsetenv("LS_OPENCL_DEVICE");
    int failures = parsing() + once_and_live() + table();
    printf("%s: %d failure(s)\n", argv[0], failures);
    return failures;
}
