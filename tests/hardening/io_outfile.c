/* Output files never lose the old content (src/io/outfile.c):
 *
 * 1. kill: a child writes a large matrix over an old file and is killed
 *    with SIGKILL at a random moment, 20 times: the target holds the old
 *    bytes or the complete new ones, never a mix or a truncation.
 * 2. LS_FAULT_WRITE=N for every N over each writer (dense Matrix Market,
 *    .npy, CSR, .npy stack): every failing N leaves the old file as it was
 *    and no temporary file, with LS_EIO and a message naming the path and
 *    the reason; the first N past the last write call succeeds.
 * 3. non-regular targets: /dev/null is written and still a device after;
 *    /dev/full fails with ENOSPC and is still there; a FIFO is written
 *    through to its reader and stays a FIFO; "-" (standard output) reports
 *    a failed write as <stdout>.
 * 4. a replaced file keeps its permission bits, a symlink stays a link;
 *    ls_outfile_check refuses a missing directory and a directory without
 *    creating anything.
 * Exit status: the number of failed checks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/tool_api.h"
#include "core/tool_stack.h"
#include "linsolve.h"

static int failures;

static void check(int ok, const char *fmt, ...)
{
    if (ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAILED: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

static char dir[256];

static char *slurp_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int same_bytes(const char *path, const char *want, size_t want_len)
{
    size_t n = 0;
    char *got = slurp_file(path, &n);
    int same = got && n == want_len && memcmp(got, want, n) == 0;
    free(got);
    return same;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Files in dir other than the ones the test made: leftovers of a writer. */
static int temp_files_left(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".tmp") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void remove_temp_files(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
}

static ls_matrix make_matrix(int rows, int cols, unsigned seed)
{
    ls_matrix m = {0};
    m.rows = rows, m.cols = cols, m.ld = rows;
    m.data = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
    srand(seed);
    for (size_t k = 0; m.data && k < (size_t)rows * (size_t)cols; k++)
        m.data[k] = (double)rand() / RAND_MAX - 0.5;
    return m;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 1. SIGKILL at random points of a large write. */
static void test_kill(void)
{
    char target[512], fresh[512], err[512];
    snprintf(target, sizeof target, "%s/x_kill.mtx", dir);
    snprintf(fresh, sizeof fresh, "%s/x_kill_ref.mtx", dir);
    ls_matrix m = make_matrix(300, 300, 7); /* about 2 MB of text: fsync'ed */
    double t0 = now();
    int st = ls_matrix_write(fresh, &m, err, sizeof err);
    double dt = now() - t0;
    check(st == 0, "kill: reference write: %s", err);
    size_t new_len = 0;
    char *new_bytes = slurp_file(fresh, &new_len);
    const char *old = "%%MatrixMarket matrix array real general\n1 1\n42\n";
    int saw_old = 0, saw_new = 0;
    srand(11);
    for (int rep = 0; rep < 20 && new_bytes; rep++) {
        put_file(target, old);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            char e[512];
            _exit(ls_matrix_write(target, &m, e, sizeof e) == 0 ? 0 : 1);
        }
        /* anywhere from before the first byte to after the rename */
        useconds_t wait_us = (useconds_t)(1e6 * dt * 1.3 * rand() / RAND_MAX);
        usleep(wait_us);
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        int is_old = same_bytes(target, old, strlen(old));
        int is_new = same_bytes(target, new_bytes, new_len);
        saw_old += is_old;
        saw_new += is_new;
        check(is_old || is_new, "kill %d (after %u us): the target holds neither the old nor "
              "the complete new content", rep, (unsigned)wait_us);
        remove_temp_files(); /* a killed writer may leave its temporary file */
    }
    printf("kill: 20 kills over a %.3f s write: %d left the old file, %d the new one\n", dt,
           saw_old, saw_new);
    free(new_bytes);
    free(m.data);
    unlink(target);
    unlink(fresh);
}

typedef int (*writer_fn)(const char *path, const void *what, char *err, size_t errlen);

static int write_dense(const char *path, const void *what, char *err, size_t errlen)
{
    return ls_matrix_write(path, what, err, errlen);
}

static int write_csr(const char *path, const void *what, char *err, size_t errlen)
{
    return ls_csr_write_mm(path, what, err, errlen);
}

static int write_stack(const char *path, const void *what, char *err, size_t errlen)
{
    return ls_io_write_stack(path, what, 0, err, errlen);
}

/* 2. LS_FAULT_WRITE=N for N = 1, 2, ... until the write succeeds. */
static void fault_walk(const char *label, const char *name, writer_fn write, const void *what)
{
    char target[512], err[512];
    snprintf(target, sizeof target, "%s/%s", dir, name);
    const char *old = "old content\n";
    int n = 1;
    for (; n < 1000; n++) {
        put_file(target, old);
        char value[32];
        snprintf(value, sizeof value, "%d", n);
        setenv("LS_FAULT_WRITE", value, 1);
        err[0] = '\0';
        int st = write(target, what, err, sizeof err);
        unsetenv("LS_FAULT_WRITE");
        if (st == 0)
            break;
        check(st == LS_EIO, "%s: LS_FAULT_WRITE=%d: status %d, expected LS_EIO", label, n, st);
        check(strstr(err, target) && strstr(err, strerror(ENOSPC)),
              "%s: LS_FAULT_WRITE=%d: message \"%s\" should name %s and the reason", label, n,
              err, target);
        check(same_bytes(target, old, strlen(old)), "%s: LS_FAULT_WRITE=%d: old file changed",
              label, n);
        check(temp_files_left() == 0, "%s: LS_FAULT_WRITE=%d: a temporary file was left",
              label, n);
    }
    check(n >= 2 && n < 1000, "%s: expected at least one failing write call, got %d", label, n - 1);
    check(!same_bytes(target, old, strlen(old)), "%s: the successful write kept the old file",
          label);
    printf("fault walk %-6s: %d write calls, each failure kept the old file\n", label, n - 1);
    unlink(target);
}

static void test_fault_walks(void)
{
    ls_matrix m = make_matrix(120, 120, 3); /* ~350 KB of text: several write calls */
    fault_walk("mtx", "f.mtx", write_dense, &m);
    ls_matrix big = make_matrix(200, 200, 4); /* 320 KB of .npy */
    fault_walk("npy", "f.npy", write_dense, &big);
    /* a CSR tridiagonal matrix of 20000 rows */
    enum { N = 20000 };
    int64_t *rp = malloc(sizeof *rp * (N + 1)), *ci = malloc(sizeof *ci * 3 * N);
    double *v = malloc(sizeof *v * 3 * N);
    int64_t nz = 0;
    for (int64_t i = 0; rp && ci && v && i < N; i++) {
        rp[i] = nz;
        for (int64_t j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < N) {
                ci[nz] = j;
                v[nz++] = j == i ? 4.0 : -1.0;
            }
    }
    if (rp && ci && v) {
        rp[N] = nz;
        ls_csr A = {N, N, nz, rp, ci, v};
        fault_walk("csr", "f_csr.mtx", write_csr, &A);
    }
    ls_io_stack s;
    memset(&s, 0, sizeof s);
    s.batch = 40, s.rows = 30, s.cols = 30, s.ndim = 3, s.layout = LS_ROW_MAJOR;
    s.data = big.data; /* 36000 values of the 40000 */
    fault_walk("stack", "f_stack.npy", write_stack, &s);
    free(rp);
    free(ci);
    free(v);
    free(m.data);
    free(big.data);
}

/* 3. Devices, FIFOs and standard output are written directly and kept. */
static void test_special_targets(void)
{
    char err[512];
    ls_matrix m = make_matrix(20, 20, 5);
    struct stat st;
    int rc = ls_matrix_write("/dev/null", &m, err, sizeof err);
    check(rc == 0, "/dev/null: %s", err);
    check(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is gone");
    if (access("/dev/full", W_OK) == 0) {
        rc = ls_matrix_write("/dev/full", &m, err, sizeof err);
        check(rc == LS_EIO && strstr(err, "/dev/full") && strstr(err, strerror(ENOSPC)),
              "/dev/full: status %d, \"%s\"", rc, err);
        check(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode), "/dev/full is gone");
    }
    setenv("LS_FAULT_WRITE", "1", 1);
    rc = ls_matrix_write("/dev/null", &m, err, sizeof err);
    unsetenv("LS_FAULT_WRITE");
    check(rc == LS_EIO && strstr(err, "/dev/null"), "/dev/null with a failed write: %d \"%s\"",
          rc, err);
    check(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is gone after a fault");

    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/out.fifo", dir);
    if (mkfifo(fifo, 0600) == 0) {
        fflush(stdout);
        pid_t reader = fork();
        if (reader == 0) {
            size_t n = 0;
            char *got = slurp_file(fifo, &n);
            _exit(got && n > 100 && memcmp(got, "%%MatrixMarket", 14) == 0 ? 0 : 1);
        }
        rc = ls_matrix_write(fifo, &m, err, sizeof err);
        int status = 1;
        waitpid(reader, &status, 0);
        check(rc == 0, "FIFO: %s", err);
        check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "FIFO: the reader did not get the "
              "matrix");
        check(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "FIFO: no longer a FIFO");
        unlink(fifo);
    }

    /* "-": a child whose standard output is a file, with the write failing */
    char out[512];
    snprintf(out, sizeof out, "%s/stdout.txt", dir);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
            _exit(3);
        char e[512];
        setenv("LS_FAULT_WRITE", "1", 1);
        int r1 = ls_matrix_write("-", &m, e, sizeof e);
        int named = strstr(e, "<stdout>") != NULL;
        unsetenv("LS_FAULT_WRITE");
        int r2 = ls_matrix_write("-", &m, e, sizeof e);
        _exit(r1 == LS_EIO && named && r2 == 0 ? 0 : 1);
    }
    int status = 1;
    waitpid(child, &status, 0);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "\"-\": a failed write to standard output must be LS_EIO naming <stdout>, then a "
          "good one succeed");
    size_t n = 0;
    char *text = slurp_file(out, &n);
    check(text && n > 100 && memcmp(text, "%%MatrixMarket", 14) == 0,
          "\"-\": standard output should hold the matrix once");
    free(text);
    unlink(out);
    free(m.data);
}

/* 4. Permissions, symlinks, and the up-front check. */
static void test_metadata(void)
{
    char target[512], link[512], err[512];
    ls_matrix m = make_matrix(5, 5, 6);
    snprintf(target, sizeof target, "%s/perm.mtx", dir);
    snprintf(link, sizeof link, "%s/link.mtx", dir);
    put_file(target, "old\n");
    chmod(target, 0640);
    unlink(link);
    check(symlink("perm.mtx", link) == 0, "symlink: %s", strerror(errno));
    int rc = ls_matrix_write(link, &m, err, sizeof err);
    check(rc == 0, "write through a symlink: %s", err);
    struct stat st, lst;
    check(lstat(link, &lst) == 0 && S_ISLNK(lst.st_mode), "the symlink was replaced");
    check(stat(target, &st) == 0 && (st.st_mode & 07777) == 0640,
          "permissions 0640 became %o", (unsigned)(st.st_mode & 07777));
    check(!same_bytes(target, "old\n", 4), "the link's target was not rewritten");

    char missing[512];
    snprintf(missing, sizeof missing, "%s/no/such/dir/x.mtx", dir);
    rc = ls_outfile_check(missing, err, sizeof err);
    check(rc == LS_EIO && strstr(err, missing), "missing directory: %d \"%s\"", rc, err);
    rc = ls_outfile_check(dir, err, sizeof err);
    check(rc == LS_EIO && strstr(err, "directory"), "directory target: %d \"%s\"", rc, err);
    char fresh[512];
    snprintf(fresh, sizeof fresh, "%s/not_created.mtx", dir);
    rc = ls_outfile_check(fresh, err, sizeof err);
    check(rc == 0 && access(fresh, F_OK) != 0, "check of a new file: %d, created: %d", rc,
          access(fresh, F_OK) == 0);
    /* abort leaves neither the target nor a temporary file */
    ls_outfile *o = NULL;
    rc = ls_outfile_open(fresh, &o, err, sizeof err);
    check(rc == 0, "open: %s", err);
    if (o) {
        fputs("partial", ls_outfile_stream(o));
        ls_outfile_abort(o);
    }
    check(access(fresh, F_OK) != 0 && temp_files_left() == 0, "abort left a file behind");
    unlink(link);
    unlink(target);
    free(m.data);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ls_outfile_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    unsetenv("LS_FAULT_WRITE");
    test_special_targets();
    test_metadata();
    test_fault_walks();
    test_kill();
    rmdir(dir);
    printf("%s: %d failed checks\n", failures ? "FAILED" : "ok", failures);
    return failures;
}
