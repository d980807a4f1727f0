/* Settings from the environment and the linsolve contexts, all created on
 * first use: a program that never makes a large call never loads CUDA.
 *
 * Threads: one mutex guards creation; a created GPU context is published
 * with release/acquire so later calls read it without locking, and runs one
 * call at a time (its backend keeps handles and workspace). The CPU path
 * gives every thread a context of its own, created on that thread's first
 * call and destroyed when the thread exits (a pthread key's destructor):
 * ls_dgesv and friends hold their context's lock for the whole call, so
 * one shared CPU context would run the threads' calls one at a time.
 *
 * fork(): the handlers below take every lock this library owns, in one
 * order (creation, the GPU run locks, the CPU list, each thread's CPU run
 * lock, then the system path's guard), and release them in parent and
 * child. A fork therefore waits for the calls in progress to end, and the
 * child never inherits a lock, or a context's own lock, held by a thread
 * that does not exist there. The system path runs the process's other
 * LAPACK, whose own locks (OpenBLAS's buffer allocator) a child forked
 * during a call would inherit held and wait on for ever (4 children in
 * 2400 forks of tests/lapack_dropin/fork_busy.c hung so, none since): a
 * fork waits for those calls to end too (system_gate). A child
 * does not touch a GPU context its parent created (CUDA cannot be used
 * across fork): it takes the system path instead. The CPU contexts of the
 * other threads are dropped from the child's list (their threads are not
 * there); the forking thread keeps its own. Contexts the parent never
 * created are created by the child on its own first use, as usual.
 * linsolve's CPU LU runs OpenMP regions on the calling thread, and libgomp
 * keeps that thread's workers for the next region; a child forked from it
 * has no such workers and would wait for them forever: there the child's
 * OpenMP runs on one thread. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/knobs.h"
#include "dropin.h"

enum { CTX_UNTRIED, CTX_READY, CTX_FAILED };

typedef struct slot {
    atomic_int state;
    atomic_int lost_in_fork; /* READY in the parent, unusable here */
    ls_context *ctx;
    pthread_mutex_t run; /* GPU: one call at a time */
    void *save;          /* the safety copy's buffer, kept between calls */
    size_t save_bytes;
} slot;

static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int config_ready;
static lsl_config config;
static slot slots[LSL_PATH_AUTO] = {
    [LSL_PATH_CUDA] = {.run = PTHREAD_MUTEX_INITIALIZER},
    [LSL_PATH_OPENCL] = {.run = PTHREAD_MUTEX_INITIALIZER},
};
static atomic_int warned[LSL_WARN_KEYS_];

/* A thread's CPU context. `run` is held for each of its calls and by the
 * fork handlers; the list (all live threads' contexts) only by creation,
 * thread exit and the fork handlers. */
typedef struct cpu_slot {
    pthread_mutex_t run;
    ls_context *ctx;
    pthread_t owner;
    struct cpu_slot *prev, *next;
} cpu_slot;

static pthread_mutex_t cpu_list_lock = PTHREAD_MUTEX_INITIALIZER;
static cpu_slot *cpu_list;
static pthread_key_t cpu_key; /* the calling thread's cpu_slot */
static int cpu_key_ready;
static _Thread_local int cpu_lu_ran_here;
static void (*set_openmp_threads)(int); /* omp_set_num_threads, if loaded */

const char *lsl_path_name(lsl_path p)
{
    static const char *const names[] = {"system", "cpu", "cuda", "opencl", "auto", "illegal"};
    return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "?";
}

static int is_gpu(lsl_path p)
{
    return p == LSL_PATH_CUDA || p == LSL_PATH_OPENCL;
}

void lsl_warn_once(int key, const char *fmt, ...)
{
    /* config is read before any call can warn */
    if (!atomic_load(&config_ready) || !config.verbose || atomic_exchange(&warned[key], 1))
        return;
    char line[512];
    int n = snprintf(line, sizeof line, "liblinsolve_lapack: warning: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    /* one write: lines from several threads do not interleave */
    ssize_t w = write(STDERR_FILENO, line, strlen(line));
    (void)w;
}

_Static_assert(LSL_DEFAULT_MIN_N == LS_KNOB_DEFAULT_LAPACK_MIN_N,
               "the knob's default (core/knob_table.h) is this measured crossover");

static void read_config(void)
{
    config.mode = LSL_PATH_AUTO;
    config.verbose = ls_knob_int(LS_KNOB_LAPACK_VERBOSE) > 0;
    config.trace = ls_knob_int(LS_KNOB_LAPACK_TRACE) > 0;
    config.min_n = (int)ls_knob_int(LS_KNOB_LAPACK_MIN_N); /* LSL_DEFAULT_MIN_N unless set */
    if (ls_knob_source_of(LS_KNOB_LAPACK_MIN_N) == LS_KNOB_REJECTED)
        fprintf(stderr, "liblinsolve_lapack: LS_LAPACK_MIN_N=%s is not a count: using %d\n",
                ls_knob_raw(LS_KNOB_LAPACK_MIN_N), config.min_n);
    static const lsl_path modes[] = {LSL_PATH_SYSTEM, LSL_PATH_CPU, LSL_PATH_CUDA,
                                     LSL_PATH_OPENCL, LSL_PATH_AUTO};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (ls_knob_is(LS_KNOB_LAPACK_BACKEND, lsl_path_name(modes[i])))
            config.mode = modes[i];
    /* a typo should not silently leave the program on another path */
    if (ls_knob_source_of(LS_KNOB_LAPACK_BACKEND) == LS_KNOB_REJECTED)
        fprintf(stderr,
                "liblinsolve_lapack: LS_LAPACK_BACKEND=%s is not one of "
                "cpu|cuda|opencl|system|auto: using auto\n",
                ls_knob_raw(LS_KNOB_LAPACK_BACKEND));
}

const lsl_config *lsl_config_get(void)
{
    if (!atomic_load_explicit(&config_ready, memory_order_acquire)) {
        pthread_mutex_lock(&create_lock);
        if (!atomic_load_explicit(&config_ready, memory_order_relaxed)) {
            read_config();
            atomic_store_explicit(&config_ready, 1, memory_order_release);
        }
        pthread_mutex_unlock(&create_lock);
    }
    return &config;
}

/* Routing by default (auto) only: is there a CUDA device at all? The
 * driver's own answer (libcuda.so.1, cuInit, cuDeviceGetCount), as
 * liblinsolve's auto backend asks it, before loading the CUDA plugin with
 * cuBLAS and cuSOLVER: on a machine without a GPU that load costs about
 * 260 MB and 0.4 s, for nothing. LS_LAPACK_BACKEND=cuda loads it as asked. */
static int cuda_device_present(char *why, size_t len)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) {
        snprintf(why, len, "no CUDA driver (libcuda.so.1 not found)");
        return 0;
    }
    int (*cu_init)(unsigned) = NULL;
    int (*cu_count)(int *) = NULL;
    *(void **)&cu_init = dlsym(h, "cuInit");
    *(void **)&cu_count = dlsym(h, "cuDeviceGetCount");
    int count = 0, st = -1;
    if (cu_init && cu_count && (st = cu_init(0)) == 0)
        st = cu_count(&count);
    dlclose(h);
    if (st == 0 && count > 0)
        return 1;
    snprintf(why, len, "no CUDA device (the driver answered %d, %d devices)", st, count);
    return 0;
}

/* A GPU context, shared by all threads (one call at a time). */
static void create(lsl_path path)
{
    slot *s = &slots[path];
    char why[160];
    if (path == LSL_PATH_CUDA && config.mode == LSL_PATH_AUTO &&
        !cuda_device_present(why, sizeof why)) {
        lsl_warn_once((int)path, "no cuda context (%s): using the system LAPACK", why);
        atomic_store_explicit(&s->state, CTX_FAILED, memory_order_release);
        return;
    }
    ls_backend_kind kind = path == LSL_PATH_CUDA ? LS_BACKEND_CUDA : LS_BACKEND_OPENCL;
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, kind, path == LSL_PATH_OPENCL ? -1 : 0);
    if (st) {
        lsl_warn_once((int)path, "no %s context (%s%s%s): using the system LAPACK",
                      lsl_path_name(path), ls_strerror(st), ctx ? ": " : "",
                      ctx ? ls_context_error(ctx) : "");
        ls_context_destroy(ctx);
        atomic_store_explicit(&s->state, CTX_FAILED, memory_order_release);
        return;
    }
    s->ctx = ctx;
    atomic_store_explicit(&s->state, CTX_READY, memory_order_release);
}

static void cpu_unlink(cpu_slot *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        cpu_list = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

/* The key's destructor: the thread is exiting, outside any call. */
static void cpu_slot_free(void *p)
{
    cpu_slot *c = p;
    pthread_mutex_lock(&cpu_list_lock);
    cpu_unlink(c);
    pthread_mutex_unlock(&cpu_list_lock);
    ls_context_destroy(c->ctx);
    pthread_mutex_destroy(&c->run);
    free(c);
}

/* The calling thread's CPU slot, created on its first call; NULL when it
 * cannot be had (warned once; the call takes the system path). */
static cpu_slot *cpu_slot_get(void)
{
    if (!cpu_key_ready) {
        lsl_warn_once(LSL_WARN_NO_CPU, "no thread-specific key for the cpu contexts: "
                                       "using the system LAPACK");
        return NULL;
    }
    cpu_slot *c = pthread_getspecific(cpu_key);
    if (c)
        return c;
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, LS_BACKEND_CPU, 0);
    c = st ? NULL : calloc(1, sizeof *c);
    if (!c || pthread_mutex_init(&c->run, NULL)) {
        lsl_warn_once(LSL_WARN_NO_CPU, "no cpu context (%s%s%s): using the system LAPACK",
                      ls_strerror(st ? st : LS_ENOMEM), ctx ? ": " : "",
                      ctx ? ls_context_error(ctx) : "");
        ls_context_destroy(ctx);
        free(c);
        return NULL;
    }
    c->ctx = ctx;
    c->owner = pthread_self();
    pthread_mutex_lock(&cpu_list_lock);
    c->next = cpu_list;
    if (cpu_list)
        cpu_list->prev = c;
    cpu_list = c;
    pthread_mutex_unlock(&cpu_list_lock);
    if (pthread_setspecific(cpu_key, c)) {
        pthread_mutex_lock(&cpu_list_lock);
        cpu_unlink(c);
        pthread_mutex_unlock(&cpu_list_lock);
        ls_context_destroy(ctx);
        pthread_mutex_destroy(&c->run);
        free(c);
        return NULL;
    }
    return c;
}

ls_context *lsl_context_acquire(lsl_path path)
{
    if (path == LSL_PATH_CPU) {
        cpu_slot *c = cpu_slot_get();
        if (!c)
            return NULL;
        pthread_mutex_lock(&c->run);
        return c->ctx;
    }
    if (!is_gpu(path))
        return NULL;
    slot *s = &slots[path];
    int st = atomic_load_explicit(&s->state, memory_order_acquire);
    if (st == CTX_UNTRIED) {
        pthread_mutex_lock(&create_lock);
        if (atomic_load_explicit(&s->state, memory_order_relaxed) == CTX_UNTRIED)
            create(path);
        pthread_mutex_unlock(&create_lock);
        st = atomic_load_explicit(&s->state, memory_order_acquire);
    }
    if (st != CTX_READY) {
        if (atomic_load(&s->lost_in_fork))
            lsl_warn_once((int)path,
                          "the %s context belongs to the parent of this forked process: "
                          "using the system LAPACK",
                          lsl_path_name(path));
        return NULL;
    }
    if (is_gpu(path)) {
        pthread_mutex_lock(&s->run);
        /* disabled while this thread waited for the device */
        if (atomic_load_explicit(&s->state, memory_order_acquire) != CTX_READY) {
            pthread_mutex_unlock(&s->run);
            return NULL;
        }
    }
    return s->ctx;
}

/* A fresh malloc of tens of MB is a fresh mmap: every call would pay the
 * page faults of the whole copy again (at n = 2048 in FP64, 25 of 35 ms).
 * Buffers up to LSL_SAVE_KEEP stay for the next call; larger ones are the
 * caller's to free (*owned = 1). */
#define LSL_SAVE_KEEP ((size_t)512 << 20)

void *lsl_save_buffer(lsl_path path, size_t bytes, int *owned)
{
    slot *s = &slots[path];
    *owned = 0;
    if (bytes == 0)
        bytes = 1;
    if (!is_gpu(path) || bytes > LSL_SAVE_KEEP) {
        *owned = 1;
        return malloc(bytes);
    }
    if (s->save_bytes < bytes) {
        void *p = malloc(bytes);
        if (!p)
            return NULL;
        free(s->save);
        s->save = p;
        s->save_bytes = bytes;
    }
    return s->save;
}

void lsl_context_release(lsl_path path)
{
    if (is_gpu(path)) {
        pthread_mutex_unlock(&slots[path].run);
    } else if (path == LSL_PATH_CPU) {
        cpu_slot *c = pthread_getspecific(cpu_key);
        if (c)
            pthread_mutex_unlock(&c->run);
    }
}

void lsl_context_disable(lsl_path path, const char *why)
{
    if (!is_gpu(path))
        return; /* the CPU LU has no device to lose */
    /* Left allocated: another thread may still hold it, and tearing down
     * a failed device can hang. */
    atomic_store_explicit(&slots[path].state, CTX_FAILED, memory_order_release);
    lsl_warn_once((int)path, "%s path disabled (%s): using the system LAPACK",
                  lsl_path_name(path), why);
}

void lsl_note_cpu_lu(void)
{
    cpu_lu_ran_here = 1;
}

/* Lock order, here and everywhere: create_lock, the GPU run locks (CUDA,
 * then OpenCL), cpu_list_lock, the CPU run locks in list order, then (fork
 * only) system_gate. No path
 * takes an earlier lock while holding a later one: a call holds only its
 * own run lock while it runs, creation and thread exit only cpu_list_lock. */
/* The system path's guard: a call (the outermost on a thread) is counted;
 * a fork raises the flag, holding the gate, and waits for the count to
 * drain, and a call that finds the flag up waits at the gate, so a stream
 * of calls cannot hold a fork off. No lock on a call's way in: the count
 * goes up before the flag is read (both sequentially consistent), so a
 * fork that raised it first sees the call, and one that raises it later
 * waits for it. A mutex, a flag and a counter, not a rwlock: the child
 * releases what the parent's thread took, and glibc's rwlock, which keys
 * its writer on the thread id, takes that unlock, under the child's new
 * id, for a reader's and is left locked. */
static pthread_mutex_t system_gate = PTHREAD_MUTEX_INITIALIZER;
static atomic_int system_calls, system_forking;
static _Thread_local int in_system;

void lsl_system_enter(void)
{
    if (in_system++ != 0)
        return;
    while (atomic_fetch_add(&system_calls, 1), atomic_load(&system_forking)) {
        atomic_fetch_sub(&system_calls, 1);
        pthread_mutex_lock(&system_gate); /* held by the fork until it is done */
        pthread_mutex_unlock(&system_gate);
    }
}

void lsl_system_leave(void)
{
    if (--in_system == 0)
        atomic_fetch_sub(&system_calls, 1);
}

static void before_fork(void)
{
    pthread_mutex_lock(&create_lock);
    pthread_mutex_lock(&slots[LSL_PATH_CUDA].run);
    pthread_mutex_lock(&slots[LSL_PATH_OPENCL].run);
    pthread_mutex_lock(&cpu_list_lock);
    for (cpu_slot *c = cpu_list; c; c = c->next)
        pthread_mutex_lock(&c->run);
    /* last: a routed call (holding a run lock above) may call the system
     * LAPACK inside it; with every run lock held none is in progress */
    pthread_mutex_lock(&system_gate);
    atomic_store(&system_forking, 1);
    while (atomic_load(&system_calls) > 0)
        nanosleep(&(struct timespec){0, 20000}, NULL);
}

static void unlock_all(void)
{
    atomic_store(&system_forking, 0);
    pthread_mutex_unlock(&system_gate);
    for (cpu_slot *c = cpu_list; c; c = c->next)
        pthread_mutex_unlock(&c->run);
    pthread_mutex_unlock(&cpu_list_lock);
    pthread_mutex_unlock(&slots[LSL_PATH_OPENCL].run);
    pthread_mutex_unlock(&slots[LSL_PATH_CUDA].run);
    pthread_mutex_unlock(&create_lock);
}

static void after_fork_parent(void)
{
    unlock_all();
}

static void after_fork_child(void)
{
    /* a call that counted itself, saw the flag and would have backed out
     * is not here: none of the child's own is in progress */
    atomic_store(&system_calls, 0);
    for (lsl_path p = LSL_PATH_CUDA; p <= LSL_PATH_OPENCL; p++)
        if (atomic_load(&slots[p].state) == CTX_READY) {
            atomic_store(&slots[p].state, CTX_FAILED);
            atomic_store(&slots[p].lost_in_fork, 1);
        }
    if (cpu_lu_ran_here && set_openmp_threads)
        set_openmp_threads(1);
    unlock_all();
    /* Other threads' CPU contexts: their threads, the only users, are not
     * in this process. Left allocated (a fork child frees nothing it need
     * not), but off the list, so later forks here do not visit them. */
    pthread_t self = pthread_self();
    for (cpu_slot *c = cpu_list, *next; c; c = next) {
        next = c->next;
        if (!pthread_equal(c->owner, self))
            cpu_unlink(c);
    }
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    /* looked up now: a child must not need the loader's lock */
    set_openmp_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    cpu_key_ready = pthread_key_create(&cpu_key, cpu_slot_free) == 0;
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Unloaded (dlclose): no destructor may run into unmapped code. The
 * contexts of threads still alive are left allocated. */
__attribute__((destructor)) static void drop_cpu_key(void)
{
    if (cpu_key_ready)
        pthread_key_delete(cpu_key);
    cpu_key_ready = 0;
}
