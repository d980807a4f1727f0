/* Corpus replay without libFuzzer: feeds every file of the folders (or the
 * files) named on the command line to the target's LLVMFuzzerTestOneInput,
 * so that CI, built with any compiler, re-runs every input the fuzzer kept
 * and every crash reproducer. A broken invariant aborts inside the target;
 * the exit status is the number of inputs that could not be read. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input, in a buffer of exactly its size so that a sanitizer build
 * sees any read past its end. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("  %s: cannot open\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
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
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        printf("  %s: cannot read\n", path);
        free(buf);
        return 1;
    }
    unsigned char *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    int failures = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) {
            printf("%s: cannot open\n", argv[a]);
            failures++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            int bad = replay_file(argv[a]);
            failures += bad;
            printf("%-48s 1 input      %s\n", argv[a], bad ? "failed" : "ok");
            continue;
        }
        DIR *d = opendir(argv[a]);
        if (!d) {
            printf("%s: cannot open\n", argv[a]);
            failures++;
            continue;
        }
        long n = 0;
        int before = failures;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            size_t need = strlen(argv[a]) + strlen(e->d_name) + 2;
            char *path = malloc(need);
            if (!path) {
                failures++;
                break;
            }
            snprintf(path, need, "%s/%s", argv[a], e->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                failures += replay_file(path);
                n++;
            }
            free(path);
        }
        closedir(d);
        if (n == 0) {
            printf("%s: no inputs\n", argv[a]);
            failures++;
        }
        printf("%-48s %ld inputs  %s\n", argv[a], n, failures > before ? "failed" : "ok");
    }
    return failures;
}
