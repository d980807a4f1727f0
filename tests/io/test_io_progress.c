/* ls_matrix_read_ex reports progress on files over 100 MB (a 116 MB .npy and
 * a 105 MB Matrix Market file, mostly comments) and stays silent on small
 * ones. The fractions must rise, stay within (0, 1] and end at 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_testlib.h"
#include "testutil.h"

typedef struct progress_log {
    int calls, monotone, labelled;
    double first, last;
} progress_log;

static void on_progress(void *arg, double fraction, const char *what)
{
    progress_log *log = arg;
    if (log->calls == 0)
        log->first = fraction;
    else if (fraction <= log->last)
        log->monotone = 0;
    if (fraction <= 0.0 || fraction > 1.0)
        log->monotone = 0;
    if (!what || strcmp(what, "reading") != 0)
        log->labelled = 0;
    log->last = fraction;
    log->calls++;
}

static int read_with_progress(const char *label, const char *path, int want_calls,
                              ls_matrix *m)
{
    progress_log log = {0, 1, 1, 0.0, 0.0};
    char err[512] = "";
    double t0 = io_now();
    int st = ls_matrix_read_ex(path, m, on_progress, &log, err, sizeof err);
    double t = io_now() - t0;
    int ok = st == 0 && log.monotone && log.labelled;
    if (want_calls)
        ok = ok && log.calls >= 10 && log.calls <= 100 && log.last == 1.0;
    else
        ok = ok && log.calls == 0;
    return lt_check(ok, "%s: %s, %d progress calls (first %.3f, last %.3f), %.2f s %s", label,
                    ls_status_name(st), log.calls, log.first, log.last, t, err);
}

static int npy_case(void)
{
    const int n = 3800; /* 3800^2 doubles = 115.5 MB */
    int fails = 0;
    ls_matrix big = {n, n, n, malloc((size_t)n * n * sizeof(double)), 0, 0};
    if (!big.data)
        return lt_check(0, "malloc %d x %d", n, n);
    for (size_t k = 0; k < (size_t)n * n; k++)
        big.data[k] = (double)(k % 1000) - 499.5;
    char err[512] = "";
    const char *path = io_tmp_path("big.npy");
    char path_copy[1024];
    snprintf(path_copy, sizeof path_copy, "%s", path);
    int st = ls_npy_write(path_copy, &big, err, sizeof err);
    fails += lt_check(st == 0, "write a %d x %d .npy: %s %s", n, n, ls_status_name(st), err);
    ls_matrix back;
    memset(&back, 0, sizeof back);
    fails += read_with_progress("116 MB .npy", path_copy, 1, &back);
    fails += lt_check(back.data && back.rows == n && back.cols == n &&
                          io_same_bits(back.data, big.data, (size_t)n * n),
                      "116 MB .npy reads back bit for bit");
    ls_matrix_free(&back);
    free(big.data);
    remove(path_copy);
    return fails;
}

static int mm_case(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", io_tmp_path("big.mtx"));
    FILE *f = fopen(path, "wb");
    if (!f)
        return lt_check(0, "create %s", path);
    fputs("%%MatrixMarket matrix coordinate real general\n", f);
    char comment[101];
    memset(comment, 'c', sizeof comment);
    comment[0] = '%';
    comment[99] = '\n';
    comment[100] = '\0';
    for (int i = 0; i < 1050000; i++)
        fputs(comment, f);
    fputs("2 2 2\n1 1 3.5\n2 2 -1\n", f);
    int bad = fclose(f) != 0;
    ls_matrix m;
    memset(&m, 0, sizeof m);
    int fails = bad ? lt_check(0, "write %s", path) : 0;
    fails += read_with_progress("105 MB .mtx", path, 1, &m);
    fails += lt_check(m.data && m.rows == 2 && m.data[0] == 3.5 && m.data[3] == -1,
                      "105 MB .mtx has the right entries");
    ls_matrix_free(&m);
    remove(path);
    return fails;
}

int main(int argc, char **argv)
{
    if (!io_tmpdir_create()) {
        perror("mkdtemp");
        return 1;
    }
    int fails = npy_case() + mm_case();
    if (argc > 1) {
        char path[1024];
        snprintf(path, sizeof path, "%s/real/cryg2500.mtx", argv[1]);
        ls_matrix m;
        fails += read_with_progress("small cryg2500.mtx (no callbacks)", path, 0, &m);
        ls_matrix_free(&m);
    }
    io_tmpdir_remove();
    printf("%d failure(s)\n", fails);
    return fails;
}
