/*
 * The measurement plugin's contract. A backend's perf table
 * (core/perf/perf.h) is not in the backend plugin that solves: it is built
 * into liblinsolve_<backend>_perf.so from the backend's measurement code
 * and the same static library of solver code, so that what it times is the
 * code that solves, while the shipped backend plugin carries none of it.
 *
 * The core (perf_access.c) opens it only from the folder of the backend
 * plugin the context runs on (both come from one build and are installed
 * together), since its entries take that plugin's backend context. The
 * plugin exports one symbol, LS_PERF_PLUGIN_ENTRY, of a type that never
 * changes, so the core may call it before knowing what the plugin was
 * built for: it writes the plugin ABI and perf ABI it was built with into
 * built[0] and built[1], and sets *table only when both equal the caller's
 * (LS_PLUGIN_ABI, LS_PERF_ABI); else *table is NULL.
 */
#ifndef LS_CORE_PERF_PLUGIN_H
#define LS_CORE_PERF_PLUGIN_H

#include "core/perf/perf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*ls_perf_plugin_fn)(int plugin_abi, int perf_abi, int built[2],
                                  const ls_perf_iface **table);
#define LS_PERF_PLUGIN_ENTRY "ls_perf_plugin_table"

/* The file name of a backend's measurement plugin, "liblinsolve_%s_perf.so"
 * with ls_backend_name(). */
#define LS_PERF_PLUGIN_FILE "liblinsolve_%s_perf.so"

#ifdef __cplusplus
}
#endif
#endif
