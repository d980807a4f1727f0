/* Concurrent callers run concurrently on the cpu path: THREADS threads x
 * CALLS dgesv_ calls of order N, first all on one thread (the serial run:
 * reference answers and the serial sum of call times), then from THREADS
 * threads at once. Checked:
 *  - every concurrent answer (X and ipiv) equals the serial run's, bitwise
 *    (the same LU on the same inputs, one OpenMP thread per call: ctest sets
 *    OMP_NUM_THREADS=1);
 *  - the calls overlapped: every tick a sampler reads each worker's CPU
 *    clock, and each worker notes its CPU clock at the entry and the return
 *    of each call. So the CPU time each call received in each tick is known
 *    exactly (a thread's CPU clock stands still while it sleeps or waits
 *    for a core). Take, for one call, the ticks in which it received at
 *    least `computing` CPU time: between the first and the last of them, a call
 *    serialized on a lock holds that lock, so no other call can receive
 *    `computing` in a tick that is strictly inside two calls' spans. The
 *    test counts the ticks in which two or more calls each received
 *    `computing` strictly inside their spans, and wants MIN_TICKS of them:
 *    0 for calls serialized on a lock, on any machine; many for concurrent
 *    calls on any number of cores, since a core is shared among runnable
 *    threads at a finer grain than a call's length. The tick is an eighth of
 *    the serial run's median call (at least 1 ms), so that a call spans
 *    several ticks whatever LU the cpu path runs; `computing` is a tenth of
 *    a tick (at least 0.1 ms), far above the microseconds a call waiting on
 *    a lock spends on the CPU.
 *  - The speedup of the concurrent wall time over the serial sum is printed:
 *    about 1.8x on two idle cores, 1x serialized; not asserted, because it
 *    measures the cores the machine has free as much as the library.
 * Run under LD_PRELOAD with LS_LAPACK_BACKEND=cpu. Exit status: the number of
 * failures. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

enum { THREADS = 8, CALLS = 20, N = 512, MIN_TICKS = 10, MAX_TICKS = 6000 };
static long tick_ns;           /* the sampler's period */
static long long computing_ns; /* CPU time in a tick that counts as computing */

typedef struct answer {
    double x[N];
    int ipiv[N];
    int info;
} answer;

static answer serial[THREADS][CALLS];
/* The workers' CPU clocks, and each call's CPU time at entry and return */
static clockid_t cpu_clock[THREADS];
static atomic_int clock_ready[THREADS];
static long long call_in[THREADS][CALLS], call_out[THREADS][CALLS];
/* the sampler's readings: worker t's CPU time at tick k, -1 if unreadable */
static long long tick_cpu[MAX_TICKS][THREADS];
static int ticks;
static atomic_int done;
static atomic_int mismatches;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The system of (thread t, call c): random, diagonally weighted. */
static void make_system(int t, int c, double *A, double *b)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL * (uint64_t)(t * CALLS + c + 1);
    for (size_t i = 0; i < (size_t)N * N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        A[i] = (double)(s >> 11) / (double)(1ULL << 53) - 0.5;
    }
    for (int i = 0; i < N; i++)
        A[i + (size_t)i * N] += 2.0, b[i] = (double)(i % 7) - 3.0;
}

static long long thread_cpu_ns(void)
{
    struct timespec c;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
    return (long long)c.tv_sec * 1000000000LL + c.tv_nsec;
}

/* One call; its seconds. */
static double call(int t, int c, answer *out, int mark)
{
    static _Thread_local double A[(size_t)N * N];
    int n = N, one = 1;
    make_system(t, c, A, out->x);
    if (mark)
        call_in[t][c] = thread_cpu_ns();
    double t0 = now();
    dgesv_(&n, &one, A, &n, out->ipiv, out->x, &n, &out->info);
    double s = now() - t0;
    if (mark)
        call_out[t][c] = thread_cpu_ns();
    return s;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (pthread_getcpuclockid(pthread_self(), &cpu_clock[t]) == 0)
        atomic_store(&clock_ready[t], 1);
    answer got;
    for (int c = 0; c < CALLS; c++) {
        call(t, c, &got, 1);
        if (got.info != serial[t][c].info || memcmp(got.x, serial[t][c].x, sizeof got.x) ||
            memcmp(got.ipiv, serial[t][c].ipiv, sizeof got.ipiv))
            atomic_fetch_add(&mismatches, 1);
    }
    return NULL;
}

/* Worker t's CPU time in ns, or -1 (not started, or gone). */
static long long cpu_ns(int t)
{
    struct timespec c;
    if (!atomic_load(&clock_ready[t]) || clock_gettime(cpu_clock[t], &c))
        return -1;
    return (long long)c.tv_sec * 1000000000LL + c.tv_nsec;
}

static void *sampler(void *arg)
{
    (void)arg;
    while (!atomic_load(&done) && ticks < MAX_TICKS) {
        for (int t = 0; t < THREADS; t++)
            tick_cpu[ticks][t] = cpu_ns(t);
        ticks++;
        nanosleep(&(struct timespec){tick_ns / 1000000000L, tick_ns % 1000000000L}, NULL);
    }
    return NULL;
}

/* CPU time call (t, c) received between readings k-1 and k. */
static long long received(int t, int c, int k)
{
    long long a = tick_cpu[k - 1][t], b = tick_cpu[k][t];
    if (a < 0 || b < 0)
        return 0;
    long long lo = a > call_in[t][c] ? a : call_in[t][c];
    long long hi = b < call_out[t][c] ? b : call_out[t][c];
    return hi > lo ? hi - lo : 0;
}

/* The ticks in which two or more calls computed strictly inside their spans
 * (see the top of this file); *most: the most such calls in one tick. */
static int overlapping_ticks(int *most)
{
    static int inner[MAX_TICKS];
    memset(inner, 0, sizeof inner);
    for (int t = 0; t < THREADS; t++)
        for (int c = 0; c < CALLS; c++) {
            int first = -1, last = -1;
            for (int k = 1; k < ticks; k++)
                if (received(t, c, k) >= computing_ns) {
                    if (first < 0)
                        first = k;
                    last = k;
                }
            for (int k = first + 1; first >= 0 && k < last; k++)
                inner[k] += received(t, c, k) >= computing_ns;
        }
    int count = 0;
    *most = 0;
    for (int k = 1; k < ticks; k++) {
        count += inner[k] >= 2;
        if (inner[k] > *most)
            *most = inner[k];
    }
    return count;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    int failures = 0;
    double serial_sum = 0;
    static double call_seconds[THREADS * CALLS];
    for (int t = 0; t < THREADS; t++)
        for (int c = 0; c < CALLS; c++) {
            serial_sum += call_seconds[t * CALLS + c] = call(t, c, &serial[t][c], 0);
            if (serial[t][c].info != 0) {
                fprintf(stderr, "serial call (%d, %d): info %d\n", t, c, serial[t][c].info);
                failures++;
            }
        }
    qsort(call_seconds, THREADS * CALLS, sizeof call_seconds[0], by_value);
    double median = call_seconds[THREADS * CALLS / 2];
    tick_ns = (long)(median / 8 * 1e9);
    if (tick_ns < 1000000L)
        tick_ns = 1000000L;
    computing_ns = tick_ns / 10 > 100000L ? tick_ns / 10 : 100000L;
    pthread_t w[THREADS], s;
    if (pthread_create(&s, NULL, sampler, NULL))
        return 1;
    double t0 = now();
    for (intptr_t t = 0; t < THREADS; t++)
        if (pthread_create(&w[t], NULL, worker, (void *)t))
            return 1;
    for (int t = 0; t < THREADS; t++)
        pthread_join(w[t], NULL);
    double wall = now() - t0;
    atomic_store(&done, 1);
    pthread_join(s, NULL);

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double speedup = wall > 0 ? serial_sum / wall : 0;
    printf("%d threads x %d dgesv_ (n = %d): serial sum %.3f s, concurrent wall %.3f s "
           "(%.2fx on %ld cores)\n", THREADS, CALLS, N, serial_sum, wall, speedup, cores);
    int most = 0, overlapped = overlapping_ticks(&most);
    printf("median serial call %.2f ms; %d ticks of %.2f ms, %d with two or more calls "
           "computing (>= %.2f ms each) inside their spans (most at once: %d)\n", median * 1e3,
           ticks, tick_ns * 1e-6, overlapped, computing_ns * 1e-6, most);
    int bad_answers = atomic_load(&mismatches);
    printf("answers equal to the serial run: %d of %d\n", THREADS * CALLS - bad_answers,
           THREADS * CALLS);
    failures += bad_answers;
    if (overlapped < MIN_TICKS) {
        fprintf(stderr, "FAILED: the calls did not run concurrently\n");
        failures++;
    }
    printf("concurrent: %s\n", failures ? "FAILED" : "ok");
    return failures;
}
