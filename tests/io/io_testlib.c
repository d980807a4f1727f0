#include "io_testlib.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static char scratch[512];
static char path_buf[1024];

const char *io_tmpdir_create(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(scratch, sizeof scratch, "%s/ls_io_test_XXXXXX", base);
    if (!mkdtemp(scratch))
        return NULL;
    return scratch;
}

void io_tmpdir_remove(void)
{
    if (!scratch[0])
        return;
    DIR *d = opendir(scratch);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            unlink(io_tmp_path(e->d_name));
        }
        closedir(d);
    }
    rmdir(scratch);
    scratch[0] = '\0';
}

const char *io_tmp_path(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s", scratch, name);
    return path_buf;
}

int io_write_bytes(const char *path, const void *bytes, size_t n)
{
    /* Unlink first: truncating a file that was just written makes ext4
     * flush it to disk on close (auto_da_alloc), 3 ms per fuzz case. */
    unlink(path);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = n ? fwrite(bytes, 1, n, f) : 0;
    int bad = fclose(f) != 0 || w != n;
    return bad ? -1 : 0;
}

const char *io_write_text(const char *name, const char *text)
{
    const char *path = io_tmp_path(name);
    if (io_write_bytes(path, text, strlen(text)) != 0)
        fprintf(stderr, "cannot write %s\n", path);
    return path;
}

int io_read_all(const char *path, unsigned char **bytes, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, len = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    fclose(f);
    if (!buf)
        return -1;
    *bytes = buf;
    *n = len;
    return 0;
}

int io_expect_status(const char *path, int want, const char *where, const char *word)
{
    ls_matrix m;
    char err[1024] = "";
    int st = ls_matrix_read(path, &m, err, sizeof err);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int ok = st == want;
    if (st == 0)
        ok = ok && m.data != NULL && m.rows > 0 && m.cols > 0;
    else
        ok = ok && m.data == NULL && strstr(err, base) && (!where || strstr(err, where)) &&
             (!word || strstr(err, word));
    ls_matrix_free(&m);
    return lt_check(ok, "read %-28s -> %-16s (want %s) %s", base, ls_status_name(st),
                    ls_status_name(want), err);
}

unsigned char *io_npy_bytes(int major, const char *dict, const void *data, size_t data_bytes,
                            size_t *n)
{
    size_t prefix = major == 1 ? 10 : 12;
    size_t dict_len = strlen(dict);
    size_t header_len = (prefix + dict_len + 1 + 63) / 64 * 64 - prefix;
    *n = prefix + header_len + data_bytes;
    unsigned char *b = malloc(*n ? *n : 1);
    if (!b)
        return NULL;
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        b[8 + i] = (unsigned char)(header_len >> (8 * i));
    memcpy(b + prefix, dict, dict_len);
    memset(b + prefix + dict_len, ' ', header_len - dict_len - 1);
    b[prefix + header_len - 1] = '\n';
    if (data_bytes)
        memcpy(b + prefix + header_len, data, data_bytes);
    return b;
}

int io_same_bits(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof(double)) == 0;
}

double io_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

unsigned long long io_rand(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
