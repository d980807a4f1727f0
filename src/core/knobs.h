/*
 * The registry of environment variables (knob_table.h holds the rows): the
 * one place the project calls getenv for an LS_ variable, so that every
 * variable is listed, parsed by one rule and shown by `linsolve info`.
 *
 * Parsing. Unset and empty are the same: the default. A value is accepted
 * only whole: INT and POW2 a base-10 integer in [min, max] (POW2 also a
 * power of two); BOOL one of 1, on, yes, true, 0, off, no, false; CHOICE
 * exactly one of the row's names; STRING any text shorter than
 * LS_KNOB_STRING_MAX. Anything else is rejected: the knob takes its
 * default, ls_knob_source says LS_KNOB_REJECTED and ls_knob_raw has the
 * text, so that a reader whose row says so can warn or fail instead.
 *
 * Reading. ONCE rows are read together at the first use of any knob
 * (pthread_once: thread-safe, and glibc runs it again in a child forked
 * while another thread was inside it) and cached for the life of the
 * process; LIVE rows are read at every use.
 *
 * Plugins. liblinsolve exports these functions and the CUDA plugins (and
 * liblinsolve_lapack, liblinsolve_dist) call them, so the cache is the
 * library's alone. The OpenCL plugin does not link liblinsolve: it compiles
 * knobs.c in with LS_KNOBS_API empty (a hidden copy), whose ONCE rows are
 * read at the plugin's first use, from the same environment.
 *
 * Not public API (no ABI promise): exported for the plugins, the drop-ins,
 * the tools and the tests.
 */
#ifndef LS_CORE_KNOBS_H
#define LS_CORE_KNOBS_H

#include <stddef.h>

#include "linsolve.h"
#include "core/knob_table.h"

#ifndef LS_KNOBS_API
#define LS_KNOBS_API LS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* LS_KNOB_CUDA_GRAPH etc.: an index, so that a misspelt knob does not compile. */
typedef enum ls_knob_id {
#define LS_KNOB_ENUM_(id, ...) LS_KNOB_##id,
    LS_KNOB_TABLE(LS_KNOB_ENUM_)
#undef LS_KNOB_ENUM_
    LS_KNOB_COUNT_
} ls_knob_id;

/* LS_KNOB_DEFAULT_LAPACK_MIN_N etc.: the defaults as constants, for readers
 * that keep a named default of their own to check it against the table. */
enum ls_knob_default {
#define LS_KNOB_DEFAULT_(id, type, cat, when, part, def, ...) LS_KNOB_DEFAULT_##id = (def),
    LS_KNOB_TABLE(LS_KNOB_DEFAULT_)
#undef LS_KNOB_DEFAULT_
};

typedef enum ls_knob_type {
    LS_KNOB_T_INT,
    LS_KNOB_T_POW2,
    LS_KNOB_T_BOOL,
    LS_KNOB_T_CHOICE,
    LS_KNOB_T_STRING
} ls_knob_type;

typedef enum ls_knob_category {
    LS_KNOB_C_TUNING,
    LS_KNOB_C_BEHAVIOUR,
    LS_KNOB_C_TESTING
} ls_knob_category;

typedef enum ls_knob_when { LS_KNOB_W_ONCE, LS_KNOB_W_LIVE } ls_knob_when;

typedef enum ls_knob_source {
    LS_KNOB_UNSET,    /* unset or empty: the default */
    LS_KNOB_FROM_ENV, /* set and accepted */
    LS_KNOB_REJECTED  /* set, not accepted: the default is used */
} ls_knob_source;

#define LS_KNOB_STRING_MAX 4096
#define LS_KNOB_CHOICES_MAX 8

/* One row of the table. */
typedef struct ls_knob_def {
    const char *name; /* "LS_CUDA_GRAPH" */
    ls_knob_type type;
    ls_knob_category category;
    ls_knob_when when;
    const char *part;
    long long def, min, max;
    const char *choices; /* "a|b|c" (CHOICE), else "" */
    const char *doc;
} ls_knob_def;

/* The row of id (NULL for an id outside the table). */
LS_KNOBS_API const ls_knob_def *ls_knob_describe(ls_knob_id id);

/* INT, POW2, BOOL: the value; CHOICE: the index of the name in the row's
 * list (0, the default, when unset or rejected); STRING: 1 when set, else 0. */
LS_KNOBS_API long long ls_knob_int(ls_knob_id id);

/* CHOICE: the name of the value ("auto"); STRING: the text, NULL when unset
 * or rejected; other types: NULL. ONCE strings live as long as the process. */
LS_KNOBS_API const char *ls_knob_str(ls_knob_id id);

/* 1 when a CHOICE knob's value is `choice` (which must be one of its names;
 * test core_knobs checks every call in the sources). */
LS_KNOBS_API int ls_knob_is(ls_knob_id id, const char *choice);

/* Where the value came from; the text read from the environment (NULL when
 * unset or empty; a LIVE knob's text stays valid until the environment
 * changes). */
LS_KNOBS_API ls_knob_source ls_knob_source_of(ls_knob_id id);
LS_KNOBS_API const char *ls_knob_raw(ls_knob_id id);
/* All three from one reading (for a LIVE knob, one look at the
 * environment): the source, and the value and text where asked for. */
LS_KNOBS_API ls_knob_source ls_knob_read(ls_knob_id id, long long *value, const char **raw);

/* Text for people and docs/tuning.md: the current value, the default, the
 * accepted values, and the names of type, category and when. */
LS_KNOBS_API void ls_knob_value_text(ls_knob_id id, char *buf, size_t len);
LS_KNOBS_API void ls_knob_default_text(ls_knob_id id, char *buf, size_t len);
LS_KNOBS_API void ls_knob_range_text(ls_knob_id id, char *buf, size_t len);
LS_KNOBS_API const char *ls_knob_type_name(ls_knob_type t);
LS_KNOBS_API const char *ls_knob_category_name(ls_knob_category c);
LS_KNOBS_API const char *ls_knob_when_name(ls_knob_when w);

#ifdef __cplusplus
}
#endif
#endif
