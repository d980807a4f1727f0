/* The registry of environment variables: knob_table.h's rows, parsed by the
 * rules in knobs.h. The only getenv of an LS_ variable in the project
 * (test core_knobs checks that). */
#include "core/knobs.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ls_knob_def defs[LS_KNOB_COUNT_] = {
#define LS_KNOB_ROW_(id, type, cat, when, part, def, min, max, choices, doc)                   \
    {"LS_" #id, LS_KNOB_T_##type, LS_KNOB_C_##cat, LS_KNOB_W_##when, part, def, min, max, choices, \
     doc},
    LS_KNOB_TABLE(LS_KNOB_ROW_)
#undef LS_KNOB_ROW_
};

typedef struct knob_value {
    long long i;
    const char *s;   /* CHOICE: the name; STRING: the text */
    const char *raw; /* what the environment said (ONCE: a copy of it) */
    ls_knob_source source;
} knob_value;

/* Written once, inside pthread_once, and only read afterwards. */
static knob_value cache[LS_KNOB_COUNT_];
static char choice_text[LS_KNOB_COUNT_][128];
static const char *choice_name[LS_KNOB_COUNT_][LS_KNOB_CHOICES_MAX];
static int choice_count[LS_KNOB_COUNT_];
static pthread_once_t read_once = PTHREAD_ONCE_INIT;

/* "a|b|c" into choice_name[id]; a list that does not fit is cut short (the
 * test core_knobs checks that none is). */
static void split_choices(int id)
{
    char *t = choice_text[id];
    snprintf(t, sizeof choice_text[id], "%s", defs[id].choices);
    int k = 0;
    for (char *p = t; *p && k < LS_KNOB_CHOICES_MAX;) {
        choice_name[id][k++] = p;
        char *bar = strchr(p, '|');
        if (!bar)
            break;
        *bar = '\0';
        p = bar + 1;
    }
    choice_count[id] = k;
}

static int parse_bool(const char *s, long long *v)
{
    static const char *const on[] = {"1", "on", "yes", "true"};
    static const char *const off[] = {"0", "off", "no", "false"};
    for (int k = 0; k < 4; k++) {
        if (!strcmp(s, on[k]))
            return *v = 1, 1;
        if (!strcmp(s, off[k]))
            return *v = 0, 1;
    }
    return 0;
}

/* The value of row id for the environment text raw (NULL: unset). */
static knob_value parse(int id, const char *raw)
{
    const ls_knob_def *d = &defs[id];
    knob_value v = {d->def, NULL, raw, LS_KNOB_UNSET};
    if (d->type == LS_KNOB_T_CHOICE)
        v.i = 0, v.s = choice_name[id][0];
    else if (d->type == LS_KNOB_T_STRING)
        v.i = 0;
    if (!raw || !*raw) {
        v.raw = NULL;
        return v;
    }
    long long x = 0;
    int ok = 0;
    switch (d->type) {
    case LS_KNOB_T_INT:
    case LS_KNOB_T_POW2: {
        char *end = NULL;
        errno = 0;
        x = strtoll(raw, &end, 10);
        ok = errno == 0 && end != raw && *end == '\0' && x >= d->min && x <= d->max &&
             (d->type == LS_KNOB_T_INT || (x > 0 && (x & (x - 1)) == 0));
        if (ok)
            v.i = x;
        break;
    }
    case LS_KNOB_T_BOOL:
        if ((ok = parse_bool(raw, &x)))
            v.i = x;
        break;
    case LS_KNOB_T_CHOICE:
        for (int k = 0; k < choice_count[id] && !ok; k++)
            if (!strcmp(raw, choice_name[id][k]))
                ok = 1, v.i = k, v.s = choice_name[id][k];
        break;
    case LS_KNOB_T_STRING:
        if ((ok = strlen(raw) < LS_KNOB_STRING_MAX))
            v.i = 1, v.s = raw;
        break;
    }
    v.source = ok ? LS_KNOB_FROM_ENV : LS_KNOB_REJECTED;
    return v;
}

static void read_all(void)
{
    for (int id = 0; id < LS_KNOB_COUNT_; id++)
        split_choices(id);
    for (int id = 0; id < LS_KNOB_COUNT_; id++) {
        if (defs[id].when != LS_KNOB_W_ONCE)
            continue;
        const char *env = getenv(defs[id].name);
        /* a copy: the environment's own string may go with a later setenv;
         * kept for the life of the process, like the table */
        char *copy = env && *env ? malloc(strlen(env) + 1) : NULL;
        if (copy)
            strcpy(copy, env);
        cache[id] = parse(id, copy ? copy : env && *env ? "" : NULL);
        if (env && *env && !copy) /* no memory for the text: the default, said so */
            cache[id].source = LS_KNOB_REJECTED;
    }
}

static knob_value value_of(ls_knob_id id)
{
    pthread_once(&read_once, read_all);
    if (defs[id].when == LS_KNOB_W_ONCE)
        return cache[id];
    return parse((int)id, getenv(defs[id].name));
}

static int valid(ls_knob_id id) { return (unsigned)id < (unsigned)LS_KNOB_COUNT_; }

const ls_knob_def *ls_knob_describe(ls_knob_id id) { return valid(id) ? &defs[id] : NULL; }

long long ls_knob_int(ls_knob_id id) { return valid(id) ? value_of(id).i : 0; }

const char *ls_knob_str(ls_knob_id id) { return valid(id) ? value_of(id).s : NULL; }

int ls_knob_is(ls_knob_id id, const char *choice)
{
    const char *s = ls_knob_str(id);
    return s && choice && !strcmp(s, choice);
}

ls_knob_source ls_knob_source_of(ls_knob_id id)
{
    return valid(id) ? value_of(id).source : LS_KNOB_UNSET;
}

const char *ls_knob_raw(ls_knob_id id) { return valid(id) ? value_of(id).raw : NULL; }

ls_knob_source ls_knob_read(ls_knob_id id, long long *value, const char **raw)
{
    knob_value v = valid(id) ? value_of(id) : (knob_value){0, NULL, NULL, LS_KNOB_UNSET};
    if (value)
        *value = v.i;
    if (raw)
        *raw = v.raw;
    return v.source;
}

static void text_of(ls_knob_id id, knob_value v, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    buf[0] = '\0';
    if (!valid(id))
        return;
    if (defs[id].type == LS_KNOB_T_CHOICE || defs[id].type == LS_KNOB_T_STRING)
        snprintf(buf, len, "%s", v.s ? v.s : "(unset)");
    else
        snprintf(buf, len, "%lld", v.i);
}

void ls_knob_value_text(ls_knob_id id, char *buf, size_t len)
{
    text_of(id, valid(id) ? value_of(id) : (knob_value){0}, buf, len);
}

void ls_knob_default_text(ls_knob_id id, char *buf, size_t len)
{
    if (valid(id))
        pthread_once(&read_once, read_all); /* the choice names */
    text_of(id, valid(id) ? parse((int)id, NULL) : (knob_value){0}, buf, len);
}

void ls_knob_range_text(ls_knob_id id, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    buf[0] = '\0';
    if (!valid(id))
        return;
    const ls_knob_def *d = &defs[id];
    size_t used = 0;
    switch (d->type) {
    case LS_KNOB_T_INT:
        if (d->max == INT_MAX || d->max == LLONG_MAX)
            snprintf(buf, len, ">= %lld", d->min);
        else
            snprintf(buf, len, "%lld..%lld", d->min, d->max);
        break;
    case LS_KNOB_T_POW2:
        for (long long p = 1; p <= d->max && used < len; p *= 2)
            if (p >= d->min)
                used += (size_t)snprintf(buf + used, len - used, "%s%lld", used ? ", " : "", p);
        break;
    case LS_KNOB_T_BOOL:
        snprintf(buf, len, "0, 1 (off/on, no/yes, false/true)");
        break;
    case LS_KNOB_T_CHOICE:
        for (const char *c = d->choices; *c && used + 3 < len; c++) {
            if (*c == '|')
                buf[used++] = ',', buf[used++] = ' ';
            else
                buf[used++] = *c;
        }
        buf[used < len ? used : len - 1] = '\0';
        break;
    case LS_KNOB_T_STRING:
        snprintf(buf, len, "text, < %d characters", LS_KNOB_STRING_MAX);
        break;
    }
}

const char *ls_knob_type_name(ls_knob_type t)
{
    static const char *const names[] = {"int", "int (power of 2)", "bool", "choice", "string"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

const char *ls_knob_category_name(ls_knob_category c)
{
    static const char *const names[] = {"tuning", "behaviour", "testing"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

const char *ls_knob_when_name(ls_knob_when w)
{
    static const char *const names[] = {"once", "each use"};
    return (unsigned)w < sizeof names / sizeof names[0] ? names[w] : "?";
}
