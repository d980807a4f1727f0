/* The CUDA backend's tuning table (tuning.h says what each field decides
 * and how it was measured): one row per compute capability measured, and
 * a default row for every other architecture.
 *
 * Only sm_90 has been measured (on an H100; graph_max_n on an H200, also
 * sm_90). The default row holds the
 * same values, since no other architecture's crossovers have been timed;
 * a new architecture gets its own row, with its measurements beside it,
 * rather than a change to the default. docs/tuning.md lists the sm_90
 * row's values and test core_knobs_docs reads them from this file: keep
 * one field a line, `.field = value,`. */
#include "cuda/common/tuning.h"

#include <stddef.h>

static const lsc_tuning lsc_rows[] = {
    {
        .name = "sm_90",
        .cc_major = 9,
        .cc_minor = 0,
        .measured = "measured on an H100 (graph_max_n: an H200)",
        .lookahead_min = 1536,
        .cluster_rows = 1024,
        .push_rows = 2048,
        .lu_batch1_max_n_d = 16,
        .lu_batch1_max_n_s = 128,
        .graph_max_n = 4096,
        .bthread_min_n = 3,
        .bthread_max_n = 7,
        .brows_max_n_d = 64,
        .brows_max_n_s = 128,
        .bblk_min_n = 128,
        .bblk_nb = 128,
        .rbt_min_n = 1024,
        .mx_escalate = 1.0,
    },
    /* the default row: last, for every architecture without a row above */
    {
        .name = "default",
        .cc_major = -1,
        .cc_minor = -1,
        .measured = "not measured: sm_90's values",
        .lookahead_min = 1536,
        .cluster_rows = 1024,
        .push_rows = 2048,
        .lu_batch1_max_n_d = 16,
        .lu_batch1_max_n_s = 128,
        .graph_max_n = 4096,
        .bthread_min_n = 3,
        .bthread_max_n = 7,
        .brows_max_n_d = 64,
        .brows_max_n_s = 128,
        .bblk_min_n = 128,
        .bblk_nb = 128,
        .rbt_min_n = 1024,
        .mx_escalate = 1.0,
    },
};
#define LSC_NROWS ((int)(sizeof lsc_rows / sizeof lsc_rows[0]))

/* Every member after the header (name, cc_major, cc_minor, measured), in
 * order; test core_knobs_docs checks that the sm_90 row, this list and
 * docs/tuning.md name the same fields. */
#define LSC_FIELD(member, dbl) {#member, dbl, offsetof(lsc_tuning, member)}
static const lsc_tuning_field lsc_fields[] = {
    LSC_FIELD(lookahead_min, 0), LSC_FIELD(cluster_rows, 0),  LSC_FIELD(push_rows, 0),
    LSC_FIELD(lu_batch1_max_n_d, 0), LSC_FIELD(lu_batch1_max_n_s, 0), LSC_FIELD(graph_max_n, 0),
    LSC_FIELD(bthread_min_n, 0), LSC_FIELD(bthread_max_n, 0), LSC_FIELD(brows_max_n_d, 0),
    LSC_FIELD(brows_max_n_s, 0), LSC_FIELD(bblk_min_n, 0),    LSC_FIELD(bblk_nb, 0),
    LSC_FIELD(rbt_min_n, 0),         LSC_FIELD(mx_escalate, 1),
};
#define LSC_NFIELDS ((int)(sizeof lsc_fields / sizeof lsc_fields[0]))

const lsc_tuning *lsc_tuning_for(int cc_major, int cc_minor)
{
    for (int i = 0; i < LSC_NROWS - 1; i++)
        if (lsc_rows[i].cc_major == cc_major && lsc_rows[i].cc_minor == cc_minor)
            return &lsc_rows[i];
    return &lsc_rows[LSC_NROWS - 1];
}

const lsc_tuning *lsc_tuning_rows(int *count)
{
    *count = LSC_NROWS;
    return lsc_rows;
}

const lsc_tuning_field *lsc_tuning_fields(int *count)
{
    *count = LSC_NFIELDS;
    return lsc_fields;
}

double lsc_tuning_value(const lsc_tuning *t, const lsc_tuning_field *f)
{
    const char *at = (const char *)t + f->offset;
    return f->is_double ? *(const double *)at : (double)*(const int *)at;
}

void lsc_tuning_print(const lsc_tuning *t, FILE *out, const char *indent)
{
    fprintf(out, "%stuning row %s (%s; docs/tuning.md):\n", indent, t->name, t->measured);
    for (int i = 0; i < LSC_NFIELDS; i++)
        fprintf(out, "%s  %-14s %g\n", indent, lsc_fields[i].name,
                lsc_tuning_value(t, &lsc_fields[i]));
}
