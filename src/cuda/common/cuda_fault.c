/* Test hooks of the CUDA plugin (docs/hardening.md), the device side of
 * LS_FAULT_ALLOC:
 *
 *   LS_FAULT_DEVICE=N  the N-th device allocation of the process fails as
 *                      out of memory: lsc_malloc, and every checked call
 *                      (LSC_CUDA) whose text starts with cudaMalloc
 *                      (cudaMallocAsync, cudaMallocHost, ...);
 *   LS_FAULT_CUDA=N    the N-th checked CUDA runtime call fails: every
 *                      LSC_CUDA call and lsc_malloc's cudaMalloc (an
 *                      allocation fails with cudaErrorMemoryAllocation,
 *                      anything else with cudaErrorUnknown).
 *
 * The failing call is not made, as a real failure would not have done its
 * work. Releases (cudaFree*, *Destroy) are neither counted nor failed: a
 * cleanup path that cannot release is not something a caller can act on.
 * Both are read at the first checked call, from the knob registry (which
 * reads the environment once, core/knobs.h); the counters are process-wide, like LS_FAULT_ALLOC's, and exist for tests.
 * Unset, a checked call pays one predictable branch on lsc_fault_mode. */
#include "core/knobs.h"
#include "cuda/common/cuda_backend.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -1: not read yet; 0: off; 1: armed (a target is set, it may still fire). */
int lsc_fault_mode = -1;

enum { F_DEVICE, F_CUDA, F_KINDS };
static const ls_knob_id fault_knob[F_KINDS] = {LS_KNOB_FAULT_DEVICE, LS_KNOB_FAULT_CUDA};
static atomic_llong fault_target[F_KINDS];
static atomic_llong fault_count[F_KINDS];
static atomic_int fault_fired[F_KINDS];
static atomic_int fault_lock; /* the first reader of the environment */
/* The injected failure this thread got and has not reported yet. */
static _Thread_local int fault_pending = -1;
static _Thread_local long long fault_pending_n;

static void fault_read_env(void)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&fault_lock, &expected, 1)) {
        long long any = 0;
        for (int k = 0; k < F_KINDS; k++) {
            long long t = ls_knob_int(fault_knob[k]); /* 0 when unset or not a count */
            atomic_store(&fault_target[k], t);
            any |= t;
        }
        __atomic_store_n(&lsc_fault_mode, any ? 1 : 0, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&lsc_fault_mode, __ATOMIC_ACQUIRE) < 0)
        ; /* another thread is reading two environment variables */
}

/* 1 when this call is kind k's N-th. */
static int fault_hit(int k)
{
    long long t = atomic_load_explicit(&fault_target[k], memory_order_relaxed);
    long long n = atomic_fetch_add(&fault_count[k], 1) + 1;
    if (t == 0 || n != t)
        return 0;
    atomic_store(&fault_fired[k], 1);
    fault_pending = k;
    fault_pending_n = n;
    return 1;
}

cudaError_t lsc_fault_call(const char *what)
{
    if (__atomic_load_n(&lsc_fault_mode, __ATOMIC_ACQUIRE) < 0)
        fault_read_env();
    if (__atomic_load_n(&lsc_fault_mode, __ATOMIC_RELAXED) == 0)
        return cudaSuccess;
    if (!strncmp(what, "cudaFree", 8) || strstr(what, "Destroy("))
        return cudaSuccess;
    int alloc = !strncmp(what, "cudaMalloc", 10) || !strncmp(what, "cudaHostAlloc", 13);
    /* armed, both counters move, so that one run can report how far each
     * got (ls_plugin_fault_state) */
    int dev = alloc && fault_hit(F_DEVICE);
    int call = fault_hit(F_CUDA);
    if (dev || call)
        return alloc ? cudaErrorMemoryAllocation : cudaErrorUnknown;
    return cudaSuccess;
}

const char *lsc_fault_note(void)
{
    static _Thread_local char note[64];
    if (fault_pending < 0)
        return "";
    snprintf(note, sizeof note, " (injected: %s=%lld)",
             ls_knob_describe(fault_knob[fault_pending])->name, fault_pending_n);
    fault_pending = -1;
    return note;
}

LS_API long long ls_plugin_fault_state(int which)
{
    if (which < 0 || which >= F_KINDS)
        return 0;
    long long n = atomic_load(&fault_count[which]);
    return atomic_load(&fault_fired[which]) ? -n : n;
}
