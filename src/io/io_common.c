/* Shared file plumbing for the readers, and the public read entry points.
 *
 * Readers accept rectangular matrices (an ash219-style 219 x 85 pattern, a
 * 3 x 4 empty coordinate file): the io layer only turns files into dense
 * column-major arrays. Whether a matrix can be solved (square, nonsingular)
 * is the solver's call, made later with its own message. */
#include "io_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/knobs.h"
#include "core/tool_api.h"
#include "core/util.h"

#define LS_IO_DEFAULT_MAX_ELEMENTS (1LL << 31)

long long ls_io_max_elements(void)
{
    /* A LIVE knob, read each time: tests lower the cap with setenv
     * between calls. 0 when unset or not a positive count. */
    long long v = ls_knob_int(LS_KNOB_MAX_ELEMENTS);
    if (v > 0)
        return v;
    /* A dense matrix read for solving may use at most half the host memory
     * (ls_solve needs a working copy too): a header may not claim more. */
    double mem = ls_host_memory_bytes();
    if (mem > 0 && mem / 16.0 < (double)LS_IO_DEFAULT_MAX_ELEMENTS)
        return (long long)(mem / 16.0);
    return LS_IO_DEFAULT_MAX_ELEMENTS;
}

void ls_matrix_free(ls_matrix *m)
{
    if (!m)
        return;
    free(m->data);
    memset(m, 0, sizeof *m);
}

long long ls_io_stream_max_bytes(void)
{
    /* 64 bytes hold any sensible entry line ("i j v" with 17-digit values);
     * the matrix itself needs memory beside the text, hence half the host. */
    long long elements = ls_io_max_elements(), slack = 1LL << 20;
    long long cap = elements > (LLONG_MAX - slack) / 64 ? LLONG_MAX : elements * 64 + slack;
    double mem = ls_host_memory_bytes();
    if (mem > 0 && (double)cap > mem / 2)
        cap = (long long)(mem / 2);
    if ((unsigned long long)cap >= SIZE_MAX)
        cap = (long long)(SIZE_MAX / 2);
    return cap;
}

static void arm_progress(ls_io_src *src, ls_progress_fn progress, void *arg)
{
    if (progress && src->size >= LS_IO_PROGRESS_MIN_BYTES) {
        src->progress = progress;
        src->progress_arg = arg;
        src->next_report = LS_IO_PROGRESS_STEP;
    }
}

int ls_io_open(ls_io_src *src, const char *path, ls_progress_fn progress, void *arg, char *err,
               size_t errlen)
{
    memset(src, 0, sizeof *src);
    src->path = path;
    src->size = -1;
    src->f = fopen(path, "rb");
    if (!src->f)
        return LS_FAIL(err, errlen, LS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(src->f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            ls_io_close(src);
            return LS_FAIL(err, errlen, LS_EIO, "%s: is a directory, not a file", path);
        }
        if (S_ISREG(st.st_mode))
            src->size = (long long)st.st_size;
    }
    arm_progress(src, progress, arg);
    return 0;
}

int ls_io_open_stream(ls_io_src *src, FILE *f, const char *name, ls_progress_fn progress,
                      void *arg, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    memset(src, 0, sizeof *src);
    src->path = name;
    src->size = -1;
    src->f = f;
    src->borrowed = 1;
    struct stat st;
    long pos = -1;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (pos = ftell(f)) >= 0) {
        /* a file behind the stream ("< A.mtx"): read in place, from where it stands */
        src->size = (long long)st.st_size > pos ? (long long)st.st_size - pos : 0;
    }
    /* anything else (a pipe, a FIFO, a device) is read as it comes, once,
     * with the same parsers; size stays -1 and the readers let their memory
     * grow only with the data that arrived */
    arm_progress(src, progress, arg);
    return 0;
}

void ls_io_close(ls_io_src *src)
{
    if (src->f && !src->borrowed)
        fclose(src->f);
    src->f = NULL;
}

void ls_io_report(ls_io_src *src)
{
    if (!src->progress || src->size <= 0)
        return;
    double fraction = (double)src->offset / (double)src->size;
    if (fraction >= src->next_report && fraction < 1.0) {
        src->progress(src->progress_arg, fraction, "reading");
        src->next_report = fraction + LS_IO_PROGRESS_STEP;
    }
}

int ls_io_read_bytes(ls_io_src *src, void *dst, size_t n, size_t *got, char *err, size_t errlen)
{
    unsigned char *out = dst;
    size_t done = 0;
    while (done < n && src->peek_pos < src->npeek)
        out[done++] = src->peek[src->peek_pos++];
    if (done < n) {
        size_t r = fread(out + done, 1, n - done, src->f);
        done += r;
        if (done < n && ferror(src->f))
            return LS_FAIL(err, errlen, LS_EIO, "%s: byte %lld: read error: %s", src->path,
                           src->offset + (long long)done, strerror(errno));
    }
    if (src->size < 0 && src->stream_cap == 0)
        src->stream_cap = ls_io_stream_max_bytes();
    if (src->size < 0 && src->offset + (long long)done > src->stream_cap)
        /* no valid matrix within the element cap is this long: a stream
         * without end (/dev/zero, yes) stops here at the latest */
        return LS_FAIL(err, errlen, LS_ESIZE,
                       "%s: byte %lld: expected the end of the stream: a stream may hold at "
                       "most %lld bytes (64 per element of LS_MAX_ELEMENTS, plus 1 MiB); read a "
                       "larger matrix from a file",
                       src->path, src->stream_cap, src->stream_cap);
    src->offset += (long long)done;
    *got = done;
    ls_io_report(src);
    return 0;
}

int ls_io_peek(ls_io_src *src, size_t n, const unsigned char **bytes, size_t *got, char *err,
               size_t errlen)
{
    if (n > sizeof src->peek || src->offset != 0 || src->npeek != 0)
        return LS_FAIL(err, errlen, LS_EINTERNAL, "ls_io_peek: only once, at the start");
    int st = ls_io_read_bytes(src, src->peek, n, got, err, errlen);
    if (st)
        return st;
    /* Un-consume: the reader that follows sees the file from byte 0. */
    src->npeek = *got;
    src->peek_pos = 0;
    src->offset = 0;
    *bytes = src->peek;
    return 0;
}

int ls_io_lines_init(ls_io_lines *lr, ls_io_src *src, char *err, size_t errlen)
{
    memset(lr, 0, sizeof *lr);
    lr->src = src;
    lr->cap = 1 << 16;
    lr->buf = ls_malloc(lr->cap);
    if (!lr->buf)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s: no memory for a %zu-byte line buffer",
                       src->path, lr->cap);
    return 0;
}

void ls_io_lines_free(ls_io_lines *lr)
{
    free(lr->buf);
    lr->buf = NULL;
}

/* Hand out buf[pos, end) as a line; a NUL byte inside it would silently cut
 * the line short for the parsers, so it is refused here. */
static int take_line(ls_io_lines *lr, size_t end, size_t next_pos, char **line, size_t *len,
                     char *err, size_t errlen)
{
    char *start = lr->buf + lr->pos;
    size_t n = end - lr->pos;
    lr->buf[end] = '\0';
    if (n > 0 && start[n - 1] == '\r')
        start[--n] = '\0';
    lr->pos = next_pos;
    lr->line_no++;
    const char *nul = memchr(start, '\0', n);
    if (nul)
        return LS_FAIL(err, errlen, LS_EFORMAT,
                       "%s:%lld: expected text, got a NUL byte at column %zu", lr->src->path,
                       lr->line_no, (size_t)(nul - start) + 1);
    *line = start;
    *len = n;
    return 0;
}

int ls_io_lines_next(ls_io_lines *lr, char **line, size_t *len, char *err, size_t errlen)
{
    *line = NULL;
    *len = 0;
    size_t scanned = lr->pos; /* bytes before this are known to hold no '\n' */
    for (;;) {
        char *nl = memchr(lr->buf + scanned, '\n', lr->len - scanned);
        if (nl) {
            size_t end = (size_t)(nl - lr->buf);
            return take_line(lr, end, end + 1, line, len, err, errlen);
        }
        if (lr->eof) {
            if (lr->pos < lr->len)
                return take_line(lr, lr->len, lr->len, line, len, err, errlen);
            return 0;
        }
        if (lr->pos > 0) {
            memmove(lr->buf, lr->buf + lr->pos, lr->len - lr->pos);
            lr->len -= lr->pos;
            lr->pos = 0;
        }
        scanned = lr->len;
        /* One byte is always kept free for the terminating NUL. */
        if (lr->len + 1 >= lr->cap) {
            if (lr->cap > LS_IO_MAX_LINE)
                return LS_FAIL(err, errlen, LS_EFORMAT,
                               "%s:%lld: expected a line shorter than %d bytes", lr->src->path,
                               lr->line_no + 1, LS_IO_MAX_LINE);
            char *bigger = ls_realloc(lr->buf, lr->cap * 2);
            if (!bigger)
                return LS_FAIL(err, errlen, LS_ENOMEM, "%s:%lld: no memory for a long line",
                               lr->src->path, lr->line_no + 1);
            lr->buf = bigger;
            lr->cap *= 2;
        }
        size_t want = lr->cap - 1 - lr->len, got = 0;
        int st = ls_io_read_bytes(lr->src, lr->buf + lr->len, want, &got, err, errlen);
        if (st)
            return st;
        lr->len += got;
        if (got < want)
            lr->eof = 1;
    }
}

int ls_io_host_is_little(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

void ls_io_snippet(const char *text, size_t len, char *out, size_t outlen)
{
    const size_t keep = 60;
    size_t o = 0;
    if (outlen == 0)
        return;
    for (size_t i = 0; i < len && i < keep && o + 1 < outlen; i++) {
        unsigned char c = (unsigned char)text[i];
        out[o++] = (c >= 0x20 && c < 0x7f && c != '"') ? (char)c : '?';
    }
    if (len > keep)
        for (int i = 0; i < 3 && o + 1 < outlen; i++)
            out[o++] = '.';
    out[o] = '\0';
}

static int read_from(FILE *stream, const char *name, ls_io_format format, int for_solve,
                     ls_matrix *m, ls_io_info *info, ls_progress_fn progress, void *arg,
                     char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (info)
        memset(info, 0, sizeof *info);
    if (!name)
        return LS_FAIL(err, errlen, LS_EINVAL, "matrix read: path is NULL");
    if (!m)
        return LS_FAIL(err, errlen, LS_EINVAL, "%s: matrix read: output matrix is NULL", name);
    memset(m, 0, sizeof *m);

    ls_io_src src;
    int st = stream ? ls_io_open_stream(&src, stream, name, progress, arg, err, errlen)
                    : ls_io_open(&src, name, progress, arg, err, errlen);
    if (st)
        return st;
    src.for_solve = for_solve;
    if (format == LS_IO_AUTO) {
        const unsigned char *head = NULL;
        size_t got = 0;
        st = ls_io_peek(&src, 6, &head, &got, err, errlen);
        if (st) {
            ls_io_close(&src);
            return st;
        }
        format = (got == 6 && memcmp(head, "\x93NUMPY", 6) == 0) ? LS_IO_NPY : LS_IO_MM;
    }
    st = format == LS_IO_NPY ? ls_npy_read_src(&src, m, err, errlen)
                             : ls_mm_read_src(&src, m, err, errlen);
    if (st == 0 && src.progress)
        src.progress(src.progress_arg, 1.0, "reading");
    if (info) {
        info->format = format;
        memcpy(info->dtype, src.dtype, sizeof info->dtype);
    }
    ls_io_close(&src);
    if (st)
        ls_matrix_free(m);
    return st;
}

int ls_io_read_from(FILE *stream, const char *name, ls_io_format format, ls_matrix *m,
                    ls_io_info *info, ls_progress_fn progress, void *arg, char *err,
                    size_t errlen)
{
    return read_from(stream, name, format, 0, m, info, progress, arg, err, errlen);
}

int ls_io_read_for_solve(FILE *stream, const char *name, ls_io_format format, ls_matrix *m,
                         ls_io_info *info, ls_progress_fn progress, void *arg, char *err,
                         size_t errlen)
{
    return read_from(stream, name, format, 1, m, info, progress, arg, err, errlen);
}

int ls_matrix_read(const char *path, ls_matrix *m, char *err, size_t errlen)
{
    return ls_io_read_from(NULL, path, LS_IO_AUTO, m, NULL, NULL, NULL, err, errlen);
}

int ls_matrix_read_ex(const char *path, ls_matrix *m, ls_progress_fn progress, void *arg,
                      char *err, size_t errlen)
{
    return ls_io_read_from(NULL, path, LS_IO_AUTO, m, NULL, progress, arg, err, errlen);
}

int ls_mm_read(const char *path, ls_matrix *m, char *err, size_t errlen)
{
    return ls_io_read_from(NULL, path, LS_IO_MM, m, NULL, NULL, NULL, err, errlen);
}

int ls_npy_read(const char *path, ls_matrix *m, char *err, size_t errlen)
{
    return ls_io_read_from(NULL, path, LS_IO_NPY, m, NULL, NULL, NULL, err, errlen);
}
