/* `linsolve solve`: inputs opened once (a pipe or FIFO copied once to an
 * unlinked temporary file, so sniffing and reading never race for its
 * bytes), what they hold (.npy dimensions, a coordinate header) and the
 * dense-or-sparse choice for A (--storage). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "core/tool_stack.h"
#include "solve_input.h"

/* Content that is neither .npy nor Matrix Market is copied only this far:
 * the reader refuses it at its first line or byte, and /dev/zero or
 * `yes |` on standard input must not fill the disk first. */
#define SNIFF_BYTES 65536
/* Above this order the old --format auto rule called a sparse file large:
 * a dense LU there costs 2n^3/3 > 4.6e10 flop. */
#define SPARSE_MIN_N 4096

/* Options of `solve` that take a value: positional arguments are the rest. */
static const char *const with_value[] = {
    "-o",        "--output",    "--format",    "--storage",  "--method",      "--backend",
    "--device",  "--precision", "--pivot",     "--rtol",     "--atol",        "--max-iter",
    "--factor",  "--refine",    "--precond",   "--ilut-tol", "--ilut-fill",   "--permute",
    "--restart", "--auto-memory", "--auto-flops", "--grid", "--nb"};

static int takes_value(const char *opt)
{
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        if (!strcmp(opt, with_value[k]))
            return 1;
    return 0;
}

int solve_storage_take(int *argc, char **argv, solve_storage *out)
{
    int warned = 0;
    *out = SOLVE_STORAGE_AUTO;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        int storage = !strcmp(argv[i], "--storage");
        if (!storage && strcmp(argv[i], "--format"))
            continue;
        if (i + 1 >= *argc) {
            if (!storage)
                continue; /* the option parser says what is missing */
            ls_cli_usage_error("solve", "option --storage needs a value");
            return -1;
        }
        const char *v = argv[i + 1];
        solve_storage s = !strcmp(v, "dense") ? SOLVE_STORAGE_DENSE
                          : !strcmp(v, "sparse") ? SOLVE_STORAGE_SPARSE
                                                 : SOLVE_STORAGE_AUTO;
        if (s == SOLVE_STORAGE_AUTO && strcmp(v, "auto")) {
            if (!storage) {
                i++; /* mtx | npy: the file format, the option parser's */
                continue;
            }
            ls_cli_usage_error("solve", "--storage: unknown storage '%s' (dense, sparse, auto)", v);
            return -1;
        }
        if (!storage && !warned++)
            fprintf(stderr, "linsolve solve: warning: --format %s is deprecated; use --storage %s "
                            "(--format is the file format, mtx or npy)\n", v, v);
        *out = s;
        for (int k = i; k + 2 <= *argc; k++)
            argv[k] = argv[k + 2];
        *argc -= 2;
        i--;
    }
    return 0;
}

void solve_positionals(int argc, char **argv, const char **a, const char **b)
{
    int only = 0;
    *a = *b = NULL;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!only && !strcmp(s, "--")) {
            only = 1;
        } else if (only || s[0] != '-' || s[1] == '\0') {
            if (!*a)
                *a = s;
            else if (!*b)
                *b = s;
        } else if (takes_value(s)) {
            i++;
        }
    }
}

/* Write all of buf to fd; 0, or -1 with errno. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Does the content start like a format the readers know? */
static int known_start(const unsigned char *p, size_t len)
{
    if (len >= 6 && !memcmp(p, "\x93NUMPY", 6))
        return 1;
    size_t k = 0;
    while (k < len && (p[k] == ' ' || p[k] == '\t'))
        k++;
    return len - k >= 14 && !strncasecmp((const char *)p + k, "%%MatrixMarket", 14);
}

/* Copy the stream once into an unlinked temporary file. */
static int spool(solve_input *in, FILE *src, char *err, size_t errlen)
{
    const char *dir = getenv("TMPDIR");
    snprintf(in->tmp_name, sizeof in->tmp_name, "%s/linsolve-input.XXXXXX",
             dir && *dir && strlen(dir) < sizeof in->tmp_name - 24 ? dir : "/tmp");
    in->fd = mkstemp(in->tmp_name);
    if (in->fd < 0) {
        snprintf(err, errlen, "%s: cannot make a temporary copy in %s: %s", in->name,
                 dir && *dir ? dir : "/tmp", strerror(errno));
        in->tmp_name[0] = '\0';
        return LS_EIO;
    }
    snprintf(in->path, sizeof in->path, "/proc/self/fd/%d", in->fd);
    if (access(in->path, R_OK) == 0) { /* no name left behind, whatever happens */
        unlink(in->tmp_name);
        in->tmp_name[0] = '\0';
    } else {
        snprintf(in->path, sizeof in->path, "%s", in->tmp_name);
    }
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory for a copy buffer", in->name);
        return LS_ENOMEM;
    }
    const long long cap = ls_io_stream_max_bytes();
    long long total = 0;
    int known = -1;
    for (;;) {
        size_t got = fread(buf, 1, CHUNK, src);
        if (got == 0)
            break;
        if (known < 0)
            known = known_start(buf, got);
        if (!known && total + (long long)got > SNIFF_BYTES)
            got = (size_t)(SNIFF_BYTES - total);
        if (total + (long long)got > cap) {
            snprintf(err, errlen, "%s: byte %lld: expected the end of the stream: a stream may "
                                  "hold at most %lld bytes (64 per element of LS_MAX_ELEMENTS, "
                                  "plus 1 MiB, at most half the host memory); read a larger "
                                  "matrix from a file", in->name, cap, cap);
            free(buf);
            return LS_ESIZE;
        }
        if (write_all(in->fd, buf, got) != 0) {
            snprintf(err, errlen, "%s: cannot write its temporary copy %s: %s", in->name,
                     in->tmp_name[0] ? in->tmp_name : dir && *dir ? dir : "/tmp", strerror(errno));
            free(buf);
            return LS_EIO;
        }
        total += (long long)got;
        if (!known && total >= SNIFF_BYTES)
            break;
    }
    free(buf);
    if (ferror(src)) {
        snprintf(err, errlen, "%s: read error: %s", in->name, strerror(errno));
        return LS_EIO;
    }
    return 0;
}

/* Banner and size line of a Matrix Market coordinate file. */
static void sniff_coordinate(solve_input *in)
{
    FILE *f = fopen(solve_input_path(in), "r");
    char line[1024];
    if (!f)
        return;
    if (fgets(line, sizeof line, f) && !strncasecmp(line + strspn(line, " \t"), "%%MatrixMarket", 14)) {
        for (char *c = line; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        in->coordinate = strstr(line, " coordinate") != NULL;
    }
    while (in->coordinate && fgets(line, sizeof line, f)) {
        if (line[0] == '%' || line[strspn(line, " \t\r\n")] == '\0')
            continue;
        if (sscanf(line, "%lld %lld %lld", &in->rows, &in->cols, &in->nnz) != 3 || in->rows < 1 ||
            in->cols < 1 || in->nnz < 0)
            in->coordinate = 0; /* the reader will say what is wrong */
        break;
    }
    fclose(f);
}

int solve_input_open(solve_input *in, const char *arg, char *err, size_t errlen)
{
    struct stat sb;
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->arg = arg;
    in->name = ls_cli_is_stream(arg) ? "<stdin>" : arg;
    err[0] = '\0';
    if (!ls_cli_is_stream(arg) && (stat(arg, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode))) {
        /* a file (or what the reader will refuse with its own message) */
    } else {
        FILE *src = ls_cli_is_stream(arg) ? stdin : fopen(arg, "rb");
        if (!src) {
            snprintf(err, errlen, "%s: cannot open: %s", arg, strerror(errno));
            return LS_EIO;
        }
        int st = spool(in, src, err, errlen);
        if (src != stdin)
            fclose(src);
        if (st)
            return st;
    }
    int nd = 0;
    if (ls_io_npy_ndim(solve_input_path(in), &nd) == 0)
        in->npy_ndim = nd;
    else
        sniff_coordinate(in);
    return 0;
}

const char *solve_input_path(const solve_input *in)
{
    return in->fd >= 0 ? in->path : in->arg;
}

void solve_input_close(solve_input *in)
{
    if (in->fd >= 0)
        close(in->fd);
    if (in->tmp_name[0])
        unlink(in->tmp_name);
    in->fd = -1;
    in->tmp_name[0] = '\0';
}

void solve_input_rename(const solve_input *in, char *msg, size_t len)
{
    if (in->fd < 0 || !msg)
        return;
    const char *from = in->path;
    size_t lf = strlen(from), ln = strlen(in->name);
    char *hit;
    while ((hit = strstr(msg, from)) != NULL) {
        size_t tail = strlen(hit + lf);
        if ((size_t)(hit - msg) + ln + tail + 1 > len)
            break;
        memmove(hit + ln, hit + lf, tail + 1);
        memcpy(hit, in->name, ln);
    }
}

/* Options only one of the two paths has (the sparse solvers' knobs; the
 * dense methods, precisions and pivoting). */
static int sparse_only(const char *opt, const char *val)
{
    static const char *const opts[] = {"--precond", "--ilut-tol", "--ilut-fill", "--permute",
                                       "--restart", "--no-equilibrate", "--auto-memory",
                                       "--auto-flops"};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        if (!strcmp(opt, opts[k]))
            return 1;
    return !strcmp(opt, "--method") && val &&
           (!strcmp(val, "direct") || !strcmp(val, "gmres") || !strcmp(val, "cg"));
}

static int dense_only(const char *opt, const char *val)
{
    static const char *const opts[] = {"--atol", "--precision", "--pivot", "--no-refine",
                                       "--factor", "--refine"};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        if (!strcmp(opt, opts[k]))
            return 1;
    if (!strcmp(opt, "--method") && val)
        return strcmp(val, "auto") && strcmp(val, "bicgstab") && !sparse_only(opt, val);
    return !strcmp(opt, "--backend") && val && !strcmp(val, "opencl");
}

int solve_storage_sparse(solve_storage s, const solve_input *a, int argc, char **argv, char *why,
                         size_t len)
{
    if (s == SOLVE_STORAGE_SPARSE) {
        snprintf(why, len, "--storage sparse");
        return 1;
    }
    if (s == SOLVE_STORAGE_DENSE || !a->coordinate)
        return 0;
    const double elements = (double)a->rows * (double)a->cols;
    const double limit = (double)ls_io_max_elements();
    if (elements > limit) {
        snprintf(why, len, "stored sparse: %lld x %lld dense would need %.3g GB, over the dense "
                           "limit of %.3g GB (LS_MAX_ELEMENTS, or half the host memory)",
                 a->rows, a->cols, 8.0 * elements / 1e9, 8.0 * limit / 1e9);
        return 1;
    }
    const char *dense_opt = NULL;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(opt, "--"))
            break;
        if (opt[0] != '-' || opt[1] == '\0')
            continue;
        if (sparse_only(opt, val)) {
            snprintf(why, len, "stored sparse: %s%s%s is an option of the sparse solvers", opt,
                     strcmp(opt, "--method") ? "" : " ", strcmp(opt, "--method") ? "" : val);
            return 1;
        }
        if (!dense_opt && dense_only(opt, val))
            dense_opt = opt;
        if (takes_value(opt))
            i++;
    }
    if (!dense_opt && a->rows == a->cols && a->rows > SPARSE_MIN_N &&
        (double)a->nnz < elements / 10) {
        snprintf(why, len, "stored sparse: n = %lld > %d with nnz = %lld < n^2/10", a->rows,
                 SPARSE_MIN_N, a->nnz);
        return 1;
    }
    return 0;
}
