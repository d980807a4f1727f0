/* Host-CPU ceilings and intensity sweep for backends without a perf slot. */
#ifndef LS_BENCH_ROOFLINE_HOST_H
#define LS_BENCH_ROOFLINE_HOST_H

#include <stddef.h>
#include "linsolve.h"
#include "core/perf/perf.h"

int ls_host_copy(size_t bytes, int repeat, ls_perf_timing *o);
int ls_host_fma(ls_precision p, int repeat, ls_perf_timing *o);
/* The host intensity kernel runs in double whatever p says. */
int ls_host_intensity(ls_precision p, int n, int loop, int repeat, ls_perf_timing *o);

#endif
