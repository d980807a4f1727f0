/* Output files that never lose the old content (declared in
 * core/tool_api.h).
 *
 * A regular target is written to a temporary file created beside it (same
 * directory, hence same file system, so rename(2) replaces the target in
 * one step: a reader, or a crash, sees the old file or the new one, never
 * a mix). The temporary file is flushed, fsync'ed when the data is large
 * (a power cut after rename must not leave an empty file) and renamed over
 * the target; any failure unlinks only the temporary file.
 *
 * A target that exists and is not a regular file (/dev/null, /dev/full, a
 * FIFO, a terminal) cannot be replaced by rename and must not be: it is
 * opened and written directly and never unlinked. "-" is standard output.
 *
 * The FILE * handed out is a stdio stream over our own write function
 * (fopencookie), so that every write(2) is checked and its errno kept for
 * the message, and so that LS_FAULT_WRITE=N can make the N-th write call
 * fail with ENOSPC: tests walk every write of a small output that way. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "core/knobs.h"
#include "core/tool_api.h"
#include "core/util.h"

/* Data beyond this is fsync'ed before the rename: small reports are not
 * worth a disk flush each, large matrices are worth not losing. */
#define LS_OUTFILE_FSYNC_BYTES (1LL << 20)
/* stdio buffer of the stream: fewer write calls for millions of short lines. */
#define LS_OUTFILE_BUFFER (1 << 16)

struct ls_outfile {
    FILE *f;
    int fd;
    int direct;      /* writing the target itself (device, FIFO, stdout) */
    int is_stdout;   /* fd 1: not closed here */
    int discard;     /* abort: drop whatever stdio still holds */
    int write_errno; /* first failed write's errno, 0 if none */
    long long written, calls, fault_at;
    char *target;    /* where the data ends up (a symlink's target resolved) */
    char *tmp;       /* the temporary file, or NULL when direct */
    char *buf;       /* the stream's buffer (glibc ignores a size without one) */
    char name[1];    /* the path as the caller gave it, for messages */
};

/* LS_FAULT_WRITE=N: the N-th write call (1-based) fails with ENOSPC. Read
 * at open, not cached across files, so a test can change it between calls. */
static long long fault_index(void)
{
    return ls_knob_int(LS_KNOB_FAULT_WRITE); /* a LIVE knob; 0 when unset or not a count */
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
    ls_outfile *o = cookie;
    if (o->discard)
        return (ssize_t)n;
    if (o->write_errno)
        return 0; /* a stream that failed once stays failed */
    o->calls++;
    if (o->fault_at > 0 && o->calls == o->fault_at) {
        o->write_errno = ENOSPC;
        errno = ENOSPC;
        return 0;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(o->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            o->write_errno = w < 0 ? errno : EIO;
            errno = o->write_errno;
            /* stdio marks the stream failed when fewer bytes than asked come back */
            return (ssize_t)done;
        }
        done += (size_t)w;
    }
    o->written += (long long)n;
    return (ssize_t)n;
}

static int cookie_close(void *cookie)
{
    (void)cookie; /* the descriptor is closed by commit/abort, which check it */
    return 0;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = ls_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Directory part of path ("." when it has none). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return dup_string(".");
    if (slash == path)
        return dup_string("/");
    size_t n = (size_t)(slash - path);
    char *d = ls_malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

/* Where the bytes must end up: a symlink is followed, so that the link
 * stays a link and its target gets the new content. */
static char *resolve_target(const char *path)
{
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        char *real = realpath(path, NULL);
        if (real)
            return real; /* malloc'ed by libc; freed with free() as ours are */
    }
    return dup_string(path);
}

int ls_outfile_check(const char *path, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path || !*path)
        return LS_FAIL(err, errlen, LS_EINVAL, "output: no file name");
    if (strcmp(path, "-") == 0) {
        if (fcntl(STDOUT_FILENO, F_GETFL) < 0)
            return LS_FAIL(err, errlen, LS_EIO, "<stdout>: standard output is closed");
        return 0;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return LS_FAIL(err, errlen, LS_EIO, "%s: is a directory, not a file", path);
        if (access(path, W_OK) != 0)
            return LS_FAIL(err, errlen, LS_EIO, "%s: cannot write: %s", path, strerror(errno));
        if (!S_ISREG(st.st_mode))
            return 0; /* written in place */
    } else if (errno != ENOENT) {
        return LS_FAIL(err, errlen, LS_EIO, "%s: cannot write: %s", path, strerror(errno));
    }
    char *target = resolve_target(path), *dir = target ? dir_of(target) : NULL;
    int st_ok = dir && access(dir, W_OK | X_OK) == 0, e = errno;
    int rc = 0;
    if (!dir)
        rc = LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory", path);
    else if (!st_ok)
        rc = LS_FAIL(err, errlen, LS_EIO, "%s: cannot create a file in %s: %s", path, dir,
                     strerror(e));
    free(dir);
    free(target);
    return rc;
}

/* Create a new file beside target with the permissions the result should
 * have. O_EXCL with a fresh name, mode 0666 so that the umask applies as
 * it would to the target itself (mkstemp would give 0600). */
static int create_temp(ls_outfile *o, const struct stat *old, int have_old)
{
    char *dir = dir_of(o->target);
    const char *base = strrchr(o->target, '/');
    base = base ? base + 1 : o->target;
    size_t cap = (dir ? strlen(dir) : 0) + strlen(base) + 32;
    o->tmp = dir ? ls_malloc(cap) : NULL;
    if (!o->tmp) {
        free(dir);
        errno = ENOMEM;
        return -1;
    }
    uint64_t seed = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)o ^
                    (uint64_t)time(NULL) ^ (uint64_t)clock();
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        snprintf(o->tmp, cap, "%s/.%s.%06llx.tmp", dir, base,
                 (unsigned long long)(seed >> 40) & 0xffffffull);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    int e = errno;
    free(dir);
    if (fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        errno = e;
        return -1;
    }
    /* replacing a file keeps its permission bits (owner and group are the writer's) */
    if (have_old)
        (void)fchmod(fd, old->st_mode & 07777);
    o->fd = fd;
    return 0;
}

static void release(ls_outfile *o)
{
    free(o->target);
    free(o->tmp);
    free(o->buf);
    free(o);
}

int ls_outfile_open(const char *path, ls_outfile **out, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return LS_FAIL(err, errlen, LS_EINVAL, "output: out is NULL");
    *out = NULL;
    int st = ls_outfile_check(path, err, errlen);
    if (st)
        return st;
    size_t n = strlen(path);
    ls_outfile *o = ls_malloc(sizeof *o + n);
    if (!o)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory", path);
    memset(o, 0, sizeof *o);
    memcpy(o->name, path, n + 1);
    o->fd = -1;
    o->fault_at = fault_index();
    struct stat sb;
    if (strcmp(path, "-") == 0) {
        o->direct = o->is_stdout = 1;
        o->fd = STDOUT_FILENO;
        fflush(stdout); /* what the caller printed before comes first */
    } else if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        o->direct = 1;
        o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (o->fd < 0) {
            int e = errno;
            release(o);
            return LS_FAIL(err, errlen, LS_EIO, "%s: cannot open for writing: %s", path,
                           strerror(e));
        }
    } else {
        int have_old = stat(path, &sb) == 0;
        o->target = resolve_target(path);
        if (!o->target || create_temp(o, &sb, have_old) != 0) {
            int e = o->target ? errno : ENOMEM;
            release(o);
            return LS_FAIL(err, errlen, LS_EIO, "%s: cannot create a temporary file beside it: %s",
                           path, strerror(e));
        }
    }
    cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};
    o->f = fopencookie(o, "w", io);
    if (!o->f) {
        int e = errno;
        ls_outfile_abort(o);
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: cannot open a stream: %s", path,
                       strerror(e));
    }
    o->buf = ls_malloc(LS_OUTFILE_BUFFER);
    if (o->buf)
        setvbuf(o->f, o->buf, _IOFBF, LS_OUTFILE_BUFFER); /* else stdio's own, smaller */
    *out = o;
    return 0;
}

FILE *ls_outfile_stream(ls_outfile *f)
{
    return f ? f->f : NULL;
}

/* Close the stream and the descriptor; the first error wins. */
static int finish(ls_outfile *o, int sync)
{
    int e = 0;
    if (o->f) {
        if (fflush(o->f) != 0 || ferror(o->f))
            e = o->write_errno ? o->write_errno : (errno ? errno : EIO);
        fclose(o->f);
        o->f = NULL;
    }
    if (!e && o->write_errno)
        e = o->write_errno;
    if (!e && sync && fsync(o->fd) != 0)
        e = errno;
    if (o->fd >= 0 && !o->is_stdout) {
        if (close(o->fd) != 0 && !e && errno != EINTR)
            e = errno;
    }
    o->fd = -1;
    return e;
}

int ls_outfile_commit(ls_outfile *o, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!o)
        return LS_FAIL(err, errlen, LS_EINVAL, "output: nothing to commit");
    const char *shown = o->is_stdout ? "<stdout>" : o->name;
    int sync = !o->direct && o->written > LS_OUTFILE_FSYNC_BYTES;
    int e = finish(o, sync);
    if (e) {
        if (o->tmp)
            unlink(o->tmp);
        int rc = LS_FAIL(err, errlen, LS_EIO, "%s: write failed: %s", shown, strerror(e));
        release(o);
        return rc;
    }
    if (o->tmp) {
        if (rename(o->tmp, o->target) != 0) {
            e = errno;
            unlink(o->tmp);
            int rc = LS_FAIL(err, errlen, LS_EIO, "%s: cannot replace the file: %s", shown,
                             strerror(e));
            release(o);
            return rc;
        }
        if (sync) {
            /* make the rename itself durable; failure here loses nothing */
            char *dir = dir_of(o->target);
            int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
            if (dfd >= 0) {
                (void)fsync(dfd);
                close(dfd);
            }
            free(dir);
        }
    }
    release(o);
    return 0;
}

void ls_outfile_abort(ls_outfile *o)
{
    if (!o)
        return;
    o->discard = 1;
    (void)finish(o, 0);
    if (o->tmp)
        unlink(o->tmp);
    release(o);
}
