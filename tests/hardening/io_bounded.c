/* Readers with memory that follows the data, not the header (src/io):
 *
 * Each case runs in a child process; the parent takes the child's peak
 * resident memory from wait4's rusage (ru_maxrss) and its wall time, and
 * requires < 200 MB and < 2 s, besides the expected status:
 * - a Matrix Market coordinate file of 66 bytes claiming 20000 x 20000
 *   (3.2 GB dense) over one entry, as a file and through a FIFO: refused
 *   as structurally singular by ls_io_read_for_solve, and read by the
 *   plain reader without touching 3.2 GB;
 * - B shapes: a coordinate 3 x 100000000 with one entry; the same
 *   10^8 x 10^8 coordinate file for the CSR reader (ls_csr_read_for_solve);
 * - .npy headers claiming 30000 x 30000 and (3, 100000000) with 16 bytes
 *   of data behind them, through a FIFO and through a pipe;
 * - /dev/zero as the input stream (auto, Matrix Market, .npy), `yes 1`
 *   through a pipe, and a valid header followed by `yes 1`.
 * Then the stream path's results are compared with the file path's for
 * layouts it rearranges (C-order .npy, symmetric and skew-symmetric array
 * files). Exit status: the number of failed checks. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/tool_api.h"
#include "core/tool_stack.h"
#include "linsolve.h"

#define MAX_RSS_KB (200L * 1024)
#define MAX_SECONDS 2.0

static int failures;
static char dir[256];

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

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void put_bytes(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(bytes, 1, n, f);
        fclose(f);
    }
}

/* A .npy version 1.0 header for shape (a, b), '<f8', C order, then extra
 * bytes of data. */
static size_t npy_bytes(unsigned char *out, long long a, long long b, int fortran, size_t extra)
{
    char dict[128];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': %s, 'shape': (%lld, %lld), }",
                     fortran ? "True" : "False", a, b);
    size_t hlen = (size_t)n + 1;
    hlen += (64 - (10 + hlen) % 64) % 64;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)(hlen & 0xff);
    out[9] = (unsigned char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', hlen - (size_t)n - 1);
    out[10 + hlen - 1] = '\n';
    memset(out + 10 + hlen, 0, extra);
    return 10 + hlen + extra;
}

/* The same for a 3-D stack (b, n, k). */
static size_t npy3_bytes(unsigned char *out, long long b, long long n, long long k, int fortran,
                         size_t extra)
{
    char dict[128];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '<f8', 'fortran_order': %s, 'shape': (%lld, %lld, %lld), }",
                       fortran ? "True" : "False", b, n, k);
    size_t hlen = (size_t)len + 1;
    hlen += (64 - (10 + hlen) % 64) % 64;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)(hlen & 0xff);
    out[9] = (unsigned char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)len);
    memset(out + 10 + len, ' ', hlen - (size_t)len - 1);
    out[10 + hlen - 1] = '\n';
    memset(out + 10 + hlen, 0, extra);
    return 10 + hlen + extra;
}

enum how { AS_FILE, AS_FIFO, AS_PIPE };

/* In a child: feed bytes to the reader by the chosen way, read, and exit
 * with a code the parent maps back: 0 expected status, 1 other. */
typedef struct read_case {
    const char *label;
    enum how how;
    const void *bytes;
    size_t n;
    const char *command; /* AS_PIPE from a shell command instead of bytes */
    const char *device;  /* read this path as a stream instead */
    ls_io_format format;
    int for_solve;       /* 1 dense for-solve, 2 CSR for-solve, 3 .npy stack, 0 plain dense */
    int expect;          /* 'S' singular (> 0), 'E' an error (< 0), 'A' success or a
                            refusal for memory (0, LS_ENOMEM, LS_ESIZE) */
    const char *expect_text; /* in the message, or NULL */
} read_case;

static void feeder(const char *fifo, int fd, const void *bytes, size_t n)
{
    if (fifo)
        fd = open(fifo, O_WRONLY);
    signal(SIGPIPE, SIG_IGN);
    for (size_t done = 0; fd >= 0 && done < n;) {
        ssize_t w = write(fd, (const char *)bytes + done, n - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    _exit(0);
}

static int run_read(const read_case *c)
{
    char path[512], err[512] = "";
    FILE *stream = NULL;
    pid_t writer = -1;
    snprintf(path, sizeof path, "%s/in_%d", dir, (int)getpid());
    if (c->device) {
        stream = fopen(c->device, "rb");
    } else if (c->command) {
        stream = popen(c->command, "r");
    } else if (c->how == AS_FILE) {
        put_bytes(path, c->bytes, c->n);
    } else if (c->how == AS_FIFO) {
        if (mkfifo(path, 0600) != 0)
            return 2;
        if ((writer = fork()) == 0)
            feeder(path, -1, c->bytes, c->n);
    } else {
        int fds[2];
        if (pipe(fds) != 0)
            return 2;
        if ((writer = fork()) == 0) {
            close(fds[0]);
            feeder(NULL, fds[1], c->bytes, c->n);
        }
        close(fds[1]);
        stream = fdopen(fds[0], "rb");
    }
    const char *name = stream ? "<stdin>" : path;
    int st;
    if (c->for_solve == 3) {
        ls_io_stack stack;
        st = ls_io_read_stack(path, &stack, err, sizeof err);
        if (st == 0)
            ls_io_stack_free(&stack);
    } else if (c->for_solve == 2) {
        ls_csr A;
        st = ls_csr_read_for_solve(path, &A, err, sizeof err);
        if (st == 0)
            ls_csr_free(&A);
    } else {
        ls_matrix m;
        st = c->for_solve ? ls_io_read_for_solve(stream, name, c->format, &m, NULL, NULL, NULL,
                                                 err, sizeof err)
                          : ls_io_read_from(stream, name, c->format, &m, NULL, NULL, NULL, err,
                                            sizeof err);
        if (st == 0)
            ls_matrix_free(&m);
    }
    if (stream)
        c->command ? pclose(stream) : fclose(stream);
    if (writer > 0) {
        kill(writer, SIGKILL);
        waitpid(writer, NULL, 0);
    }
    unlink(path);
    int ok = c->expect == 'S'   ? st > 0
             : c->expect == 'E' ? st < 0
                                : st == 0 || st == LS_ENOMEM || st == LS_ESIZE;
    if (ok && c->expect_text && !strstr(err, c->expect_text))
        ok = 0;
    if (!ok)
        fprintf(stderr, "  %s: status %d: %s\n", c->label, st, err);
    else
        printf("  %s: status %d: %.110s\n", c->label, st, err[0] ? err : "(read)");
    fflush(stdout);
    return ok ? 0 : 1;
}

static void bounded(const read_case *c)
{
    fflush(stdout); /* or the child would print the parent's pending lines again */
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0)
        _exit(run_read(c));
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(pid, &status, 0, &ru);
    double dt = now() - t0;
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: unexpected outcome (status %d)",
          c->label, status);
    check(ru.ru_maxrss < MAX_RSS_KB, "%s: peak RSS %ld KB, limit %ld", c->label, ru.ru_maxrss,
          MAX_RSS_KB);
    check(dt < MAX_SECONDS, "%s: %.2f s, limit %.1f", c->label, dt, MAX_SECONDS);
    printf("%-44s %8.3f s %8ld KB peak RSS\n", c->label, dt, ru.ru_maxrss);
}

static void bad_inputs(void)
{
    static const char coord_a[] = "%%MatrixMarket matrix coordinate real general\n"
                                  "20000 20000 1\n1 1 1\n";
    static const char coord_b[] = "%%MatrixMarket matrix coordinate real general\n"
                                  "3 100000000 1\n1 1 5\n";
    static const char coord_huge[] = "%%MatrixMarket matrix coordinate real general\n"
                                     "100000000 100000000 1\n1 1 1\n";
    static unsigned char npy_a[256], npy_b[256], npy_s[256];
    size_t na = npy_bytes(npy_a, 30000, 30000, 0, 16), nb = npy_bytes(npy_b, 3, 100000000, 1, 16);
    size_t ns = npy3_bytes(npy_s, 1000, 1000, 1000, 1, 16);
    const read_case cases[] = {
        {"coordinate 20000^2, 1 entry, file, for solve", AS_FILE, coord_a, sizeof coord_a - 1,
         NULL, NULL, LS_IO_AUTO, 1, 'S', "singular"},
        {"coordinate 20000^2, 1 entry, FIFO, for solve", AS_FIFO, coord_a, sizeof coord_a - 1,
         NULL, NULL, LS_IO_AUTO, 1, 'S', "column 2 holds no entry"},
        {"coordinate 20000^2, 1 entry, pipe, for solve", AS_PIPE, coord_a, sizeof coord_a - 1,
         NULL, NULL, LS_IO_AUTO, 1, 'S', "singular"},
        {"coordinate 20000^2, 1 entry, file, plain", AS_FILE, coord_a, sizeof coord_a - 1, NULL,
         NULL, LS_IO_AUTO, 0, 'A', NULL},
        {"coordinate B 3 x 10^8, 1 entry, FIFO, plain", AS_FIFO, coord_b, sizeof coord_b - 1,
         NULL, NULL, LS_IO_AUTO, 0, 'A', NULL},
        {"coordinate 10^8 x 10^8, 1 entry, CSR for solve", AS_FILE, coord_huge,
         sizeof coord_huge - 1, NULL, NULL, LS_IO_AUTO, 2, 'S', "singular"},
        {"coordinate 10^8 x 10^8, 1 entry, CSR FIFO", AS_FIFO, coord_huge, sizeof coord_huge - 1,
         NULL, NULL, LS_IO_AUTO, 2, 'S', "singular"},
        {".npy 30000 x 30000 + 16 bytes, FIFO", AS_FIFO, npy_a, na, NULL, NULL, LS_IO_AUTO, 0,
         'E', "holds only 16 bytes"},
        {".npy 30000 x 30000 + 16 bytes, pipe", AS_PIPE, npy_a, na, NULL, NULL, LS_IO_AUTO, 0,
         'E', "holds only 16 bytes"},
        {".npy B (3, 10^8) + 16 bytes, FIFO", AS_FIFO, npy_b, nb, NULL, NULL, LS_IO_AUTO, 0, 'E',
         NULL},
        {".npy B (3, 10^8) + 16 bytes, pipe", AS_PIPE, npy_b, nb, NULL, NULL, LS_IO_AUTO, 0, 'E',
         NULL},
        {".npy stack (1000, 1000, 1000) + 16 bytes, FIFO", AS_FIFO, npy_s, ns, NULL, NULL,
         LS_IO_AUTO, 3, 'E', "holds only 16 bytes"},
        {"/dev/zero as stream, auto", AS_PIPE, NULL, 0, NULL, "/dev/zero", LS_IO_AUTO, 0, 'E',
         NULL},
        {"/dev/zero as stream, Matrix Market", AS_PIPE, NULL, 0, NULL, "/dev/zero", LS_IO_MM, 0,
         'E', NULL},
        {"/dev/zero as stream, .npy", AS_PIPE, NULL, 0, NULL, "/dev/zero", LS_IO_NPY, 0, 'E',
         NULL},
        {"yes 1 | (auto)", AS_PIPE, NULL, 0, "yes 1", NULL, LS_IO_AUTO, 0, 'E', NULL},
        {"array header, then yes 1 |", AS_PIPE, NULL, 0,
         "printf '%%%%MatrixMarket matrix array real general\\n3 3\\n'; yes 1", NULL, LS_IO_AUTO,
         0, 'E', "expected end of file"},
        {"coordinate header, then yes '1 1 1' |", AS_PIPE, NULL, 0,
         "printf '%%%%MatrixMarket matrix coordinate real general\\n5 5 9\\n'; yes '1 1 1'",
         NULL, LS_IO_AUTO, 0, 'E', "expected end of file"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        bounded(&cases[k]);
}

/* Read the same bytes as a file and through a pipe: equal matrices. */
static void same_as_file(const char *label, const void *bytes, size_t n)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/same", dir);
    put_bytes(path, bytes, n);
    ls_matrix a, b;
    int sa = ls_io_read_from(NULL, path, LS_IO_AUTO, &a, NULL, NULL, NULL, err, sizeof err);
    check(sa == 0, "%s: file read: %s", label, err);
    int fds[2];
    if (sa != 0 || pipe(fds) != 0)
        return;
    fflush(stdout);
    pid_t writer = fork();
    if (writer == 0) {
        close(fds[0]);
        feeder(NULL, fds[1], bytes, n);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "rb");
    int sb = ls_io_read_from(f, "<pipe>", LS_IO_AUTO, &b, NULL, NULL, NULL, err, sizeof err);
    fclose(f);
    waitpid(writer, NULL, 0);
    check(sb == 0, "%s: pipe read: %s", label, err);
    if (sb == 0) {
        int same = a.rows == b.rows && a.cols == b.cols &&
                   memcmp(a.data, b.data, sizeof(double) * (size_t)a.rows * (size_t)a.cols) == 0;
        check(same, "%s: the pipe gave a different matrix than the file", label);
        ls_matrix_free(&b);
    }
    ls_matrix_free(&a);
    unlink(path);
}

/* A stack read from a file and through a FIFO: equal. */
static void same_stack(const char *label, const void *bytes, size_t n)
{
    char path[512], fifo[512], err[512];
    snprintf(path, sizeof path, "%s/stack.npy", dir);
    snprintf(fifo, sizeof fifo, "%s/stack.fifo", dir);
    put_bytes(path, bytes, n);
    ls_io_stack a, b;
    int sa = ls_io_read_stack(path, &a, err, sizeof err);
    check(sa == 0, "%s: file read: %s", label, err);
    if (sa != 0 || mkfifo(fifo, 0600) != 0)
        return;
    fflush(stdout);
    pid_t writer = fork();
    if (writer == 0)
        feeder(fifo, -1, bytes, n);
    int sb = ls_io_read_stack(fifo, &b, err, sizeof err);
    waitpid(writer, NULL, 0);
    check(sb == 0, "%s: FIFO read: %s", label, err);
    if (sb == 0) {
        size_t total = (size_t)a.batch * a.rows * a.cols;
        check(a.batch == b.batch && a.rows == b.rows && a.cols == b.cols &&
                  a.layout == b.layout && memcmp(a.data, b.data, total * sizeof(double)) == 0,
              "%s: the FIFO gave a different stack than the file", label);
        ls_io_stack_free(&b);
    }
    ls_io_stack_free(&a);
    unlink(path);
    unlink(fifo);
}

static void stream_layouts(void)
{
    /* C-order .npy, 5 x 7 (transposed in place after a stream read) */
    unsigned char buf[1024];
    size_t hdr = npy_bytes(buf, 5, 7, 0, 0);
    for (int k = 0; k < 35; k++) {
        double v = k + 0.25 * k * k;
        memcpy(buf + hdr + 8 * (size_t)k, &v, 8); /* the test host is little-endian (x86, arm) */
    }
    same_as_file("C-order .npy 5 x 7", buf, hdr + 35 * 8);
    hdr = npy_bytes(buf, 7, 5, 1, 35 * 8);
    for (int k = 0; k < 35; k++) {
        double v = 1.0 / (k + 1);
        memcpy(buf + hdr - 35 * 8 + 8 * (size_t)k, &v, 8);
    }
    same_as_file("Fortran-order .npy 7 x 5", buf, hdr);
    char text[2048];
    int n = snprintf(text, sizeof text, "%%%%MatrixMarket matrix array real symmetric\n4 4\n");
    for (int k = 0; k < 10; k++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%d.5\n", k + 1);
    same_as_file("symmetric array 4 x 4", text, (size_t)n);
    n = snprintf(text, sizeof text, "%%%%MatrixMarket matrix array real skew-symmetric\n4 4\n");
    for (int k = 0; k < 6; k++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%d\n", -k - 2);
    same_as_file("skew-symmetric array 4 x 4", text, (size_t)n);
    /* coordinate with more entries than an eighth of the matrix, duplicates */
    n = snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real symmetric\n6 6 14\n");
    for (int k = 0; k < 14; k++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%d %d %d\n", 6 - k % 6, 1 + k % 3, k);
    same_as_file("symmetric coordinate with duplicates", text, (size_t)n);
    for (int fortran = 0; fortran < 2; fortran++) {
        size_t h = npy3_bytes(buf, 3, 4, 5, fortran, 60 * 8);
        for (int k = 0; k < 60; k++) {
            double v = k * 1.5 - 7;
            memcpy(buf + h - 60 * 8 + 8 * (size_t)k, &v, 8);
        }
        same_stack(fortran ? "Fortran-order stack (3, 4, 5)" : "C-order stack (3, 4, 5)", buf, h);
    }
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ls_bounded_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    bad_inputs();
    stream_layouts();
    rmdir(dir);
    printf("%s: %d failed checks\n", failures ? "FAILED" : "ok", failures);
    return failures;
}
