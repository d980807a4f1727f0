/* `linsolve solve`: its inputs opened once, what they hold, and the
 * storage (dense or sparse) A is read into (solve_input.c). */
#ifndef LS_TOOLS_SOLVE_INPUT_H
#define LS_TOOLS_SOLVE_INPUT_H

#include <stddef.h>
#include <stdio.h>

typedef enum solve_storage {
    SOLVE_STORAGE_AUTO = 0, /* the rule of solve_storage_sparse */
    SOLVE_STORAGE_DENSE,
    SOLVE_STORAGE_SPARSE
} solve_storage;

/* One input (A or B). A regular file is read where it is. Anything else --
 * standard input, a FIFO, a process substitution <(...) -- can be read only
 * once, so it is copied once into an unlinked temporary file that every
 * later step (the format sniffing and the reader) opens instead. */
typedef struct solve_input {
    const char *arg;  /* as given on the command line ("-": standard input) */
    const char *name; /* what messages call it: the path, or "<stdin>" */
    char path[512];   /* spooled: what the readers open ("/proc/self/fd/N") */
    int fd;           /* spooled: the temporary file, else -1 */
    char tmp_name[512]; /* spooled without /proc: the temporary file's name, removed at close */
    int npy_ndim;     /* a .npy file: its number of dimensions, else 0 */
    int coordinate;   /* a Matrix Market coordinate file: rows, cols, nnz from its header */
    long long rows, cols, nnz;
} solve_input;

/** Take "--storage S" and the deprecated "--format dense|sparse|auto" (one
 *  warning line on stderr) out of argv. 0, or -1 after a usage error. */
int solve_storage_take(int *argc, char **argv, solve_storage *out);
/** A and B: the first two positional arguments (option values skipped). */
void solve_positionals(int argc, char **argv, const char **a, const char **b);
/** Open arg (see solve_input); 0 or a library status with err naming it. */
int solve_input_open(solve_input *in, const char *arg, char *err, size_t errlen);
/** The path a reader opens for in. */
const char *solve_input_path(const solve_input *in);
void solve_input_close(solve_input *in);
/** Rewrite msg so it names in as the user gave it, not its temporary copy. */
void solve_input_rename(const solve_input *in, char *msg, size_t len);
/** Should A be read into CSR? 1 with why filled ("stored sparse: ..."), 0 dense.
 *  auto: sparse only for a Matrix Market coordinate A that dense storage
 *  cannot hold, that an option of the sparse solvers asks for, or that is
 *  large (n > 4096) and sparse (nnz < n^2/10) with no dense-only option. */
int solve_storage_sparse(solve_storage s, const solve_input *a, int argc, char **argv, char *why,
                         size_t len);

/** The text of `linsolve solve --help` (solve_help.c). */
void solve_help(FILE *out);

#endif
