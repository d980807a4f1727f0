/* Settings from the environment and the linsolve contexts, all created on
 * first use: a program that never makes a large call never loads CUDA.
 *
 * Threads: one mutex guards creation; a created context is published with
 * release/acquire so later calls read it without locking. A GPU context
 * runs one call at a time (its backend keeps handles and workspace); the
 * CPU context is only read (ls_*getrf with it runs the reference LU).
 *
 * fork(): the handlers below hold every lock across the fork, so the child
 * never inherits one held by a thread that does not exist there. A child
 * does not touch a GPU context its parent created (CUDA cannot be used
 * across fork): it takes the system path instead. Contexts the parent never
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
#include <unistd.h>

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
    [LSL_PATH_CPU] = {.run = PTHREAD_MUTEX_INITIALIZER},
    [LSL_PATH_CUDA] = {.run = PTHREAD_MUTEX_INITIALIZER},
    [LSL_PATH_OPENCL] = {.run = PTHREAD_MUTEX_INITIALIZER},
};
static atomic_int warned[LSL_WARN_KEYS_];
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

/* A non-negative integer, or -1. */
static int env_int(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    long x = strtol(v, &end, 10);
    return (*end || x < 0 || x > 1 << 30) ? -1 : (int)x;
}

static void read_config(void)
{
    config.mode = LSL_PATH_AUTO;
    config.min_n = LSL_DEFAULT_MIN_N;
    config.verbose = env_int("LS_LAPACK_VERBOSE") > 0;
    config.trace = env_int("LS_LAPACK_TRACE") > 0;
    int min_n = env_int("LS_LAPACK_MIN_N");
    if (min_n >= 0)
        config.min_n = min_n;
    else if (getenv("LS_LAPACK_MIN_N"))
        fprintf(stderr, "liblinsolve_lapack: LS_LAPACK_MIN_N=%s is not a count: using %d\n",
                getenv("LS_LAPACK_MIN_N"), config.min_n);
    const char *b = getenv("LS_LAPACK_BACKEND");
    if (b && *b) {
        static const lsl_path modes[] = {LSL_PATH_SYSTEM, LSL_PATH_CPU, LSL_PATH_CUDA,
                                         LSL_PATH_OPENCL, LSL_PATH_AUTO};
        int found = 0;
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
            if (strcmp(b, lsl_path_name(modes[i])) == 0) {
                config.mode = modes[i];
                found = 1;
            }
        /* a typo should not silently leave the program on another path */
        if (!found)
            fprintf(stderr,
                    "liblinsolve_lapack: LS_LAPACK_BACKEND=%s is not one of "
                    "cpu|cuda|opencl|system|auto: using auto\n",
                    b);
    }
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

static void create(lsl_path path)
{
    slot *s = &slots[path];
    ls_backend_kind kind = path == LSL_PATH_CPU    ? LS_BACKEND_CPU
                           : path == LSL_PATH_CUDA ? LS_BACKEND_CUDA
                                                   : LS_BACKEND_OPENCL;
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

ls_context *lsl_context_acquire(lsl_path path)
{
    if (path != LSL_PATH_CPU && !is_gpu(path))
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
    if (is_gpu(path))
        pthread_mutex_unlock(&slots[path].run);
}

void lsl_context_disable(lsl_path path, const char *why)
{
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

static void before_fork(void)
{
    pthread_mutex_lock(&create_lock);
    pthread_mutex_lock(&slots[LSL_PATH_CUDA].run);
    pthread_mutex_lock(&slots[LSL_PATH_OPENCL].run);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&slots[LSL_PATH_OPENCL].run);
    pthread_mutex_unlock(&slots[LSL_PATH_CUDA].run);
    pthread_mutex_unlock(&create_lock);
}

static void after_fork_child(void)
{
    for (lsl_path p = LSL_PATH_CUDA; p <= LSL_PATH_OPENCL; p++)
        if (atomic_load(&slots[p].state) == CTX_READY) {
            atomic_store(&slots[p].state, CTX_FAILED);
            atomic_store(&slots[p].lost_in_fork, 1);
        }
    if (cpu_lu_ran_here && set_openmp_threads)
        set_openmp_threads(1);
    after_fork_parent();
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    /* looked up now: a child must not need the loader's lock */
    set_openmp_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}
