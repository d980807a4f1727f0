/* The default backend costs no more than the CPU one where there is no GPU:
 * `linsolve solve` of a 3x3 system with the default (auto) backend must
 * peak at most MAX_RATIO times the resident memory of `--backend cpu`
 * (auto probes for a device before it loads a GPU plugin, src/core/
 * context.c). Each is run RUNS times as a child of this program and its
 * peak RSS read from wait4's rusage (ru_maxrss); the smallest of the runs
 * counts, so a page-cache or scheduler hiccup cannot fail the test.
 *
 *   test_backend_probe_rss LINSOLVE PLUGIN...
 *
 * PLUGIN: the GPU plugins this build made (liblinsolve_cuda.so,
 * liblinsolve_opencl.so). Without any, auto has nothing heavy to load and
 * the test is skipped (77); likewise on a machine where auto picks a GPU,
 * where loading its runtime is the point. Exit status: the number of
 * failures. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SKIP 77
#define MAX_RATIO 2.0
#define RUNS 3

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs argv with stdout to `out`; its peak RSS in kB, seconds and exit status. */
static int run(char *const argv[], const char *out, long *rss_kb, double *seconds)
{
    double t0 = now();
    fflush(NULL); /* or the child's exit would write our buffered output again */
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen(out, "w", stdout))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return -1;
    *seconds = now() - t0;
    *rss_kb = ru.ru_maxrss;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* The "backend" line of a solve report, e.g. "cpu". */
static void report_backend(const char *path, char *name, size_t len)
{
    snprintf(name, len, "?");
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (len >= 64 && sscanf(line, " backend %63s", name) == 1)
            break;
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s LINSOLVE PLUGIN...\n", argv[0]);
        return 1;
    }
    int plugins = 0;
    for (int i = 2; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0) {
            printf("GPU plugin %s (%lld kB)\n", argv[i], (long long)st.st_size / 1024);
            plugins++;
        }
    }
    if (!plugins) {
        printf("skipped: no GPU plugin was built, so auto has nothing to load\n");
        return SKIP;
    }
    char dir[] = "/tmp/ls_probe_rss_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char a[64], b[64], out[64];
    snprintf(a, sizeof a, "%s/A.mtx", dir);
    snprintf(b, sizeof b, "%s/B.mtx", dir);
    snprintf(out, sizeof out, "%s/report.txt", dir);
    if (write_text(a, "%%MatrixMarket matrix array real general\n3 3\n4\n1\n0\n1\n5\n2\n0\n2\n6\n") ||
        write_text(b, "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n"))
        return 1;

    char *auto_argv[] = {argv[1], "solve", a, b, NULL};
    char *cpu_argv[] = {argv[1], "solve", a, b, "--backend", "cpu", NULL};
    long rss[2] = {0, 0};
    double secs[2] = {0, 0};
    int failures = 0;
    char backend[64] = "?";
    for (int k = 0; k < 2; k++)
        for (int r = 0; r < RUNS; r++) {
            long kb = 0;
            double s = 0;
            int st = run(k ? cpu_argv : auto_argv, out, &kb, &s);
            if (st != 0) {
                fprintf(stderr, "FAILED: linsolve solve (%s) exit status %d\n",
                        k ? "--backend cpu" : "default backend", st);
                failures++;
            }
            if (r == 0 || kb < rss[k])
                rss[k] = kb, secs[k] = s;
            if (k == 0 && r == 0)
                report_backend(out, backend, sizeof backend);
        }
    remove(a), remove(b), remove(out), rmdir(dir);
    if (failures)
        return failures;
    if (strcmp(backend, "cpu") != 0) {
        printf("skipped: the default backend picked %s (a GPU is here: loading its runtime is "
               "right)\n", backend);
        return SKIP;
    }
    double ratio = rss[1] > 0 ? (double)rss[0] / (double)rss[1] : 0;
    printf("3x3 solve, smallest of %d runs: default backend %ld kB %.3f s, --backend cpu "
           "%ld kB %.3f s: %.2fx the memory (limit %.1fx)\n",
           RUNS, rss[0], secs[0], rss[1], secs[1], ratio, MAX_RATIO);
    if (!(ratio <= MAX_RATIO)) {
        fprintf(stderr, "FAILED: the default backend used %.2fx the memory of --backend cpu\n",
                ratio);
        failures++;
    }
    printf("backend_probe_rss: %s\n", failures ? "FAILED" : "ok");
    return failures;
}
