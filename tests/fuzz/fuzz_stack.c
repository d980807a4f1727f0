/* libFuzzer target: the .npy stack reader (ls_io_read_stack, what
 * `linsolve solve` reads 3-D (batch, n, n) and 2-D (batch, n) stacks with),
 * and ls_io_npy_ndim, which the tool asks first. A 2-D stack must hold the
 * same values as the dense .npy reader reads from the same file. */
#include <math.h>

#include "core/tool_stack.h"
#include "fuzz_file.h"

static void check_stack(const ls_io_stack *s, const char *err)
{
    long long cap = ls_fuzz_cap();
    if (s->batch < 1 || s->rows < 1 || s->cols < 1 || (s->ndim != 2 && s->ndim != 3) ||
        (s->ndim == 2 && s->cols != 1) || !s->data ||
        (long long)s->batch * s->rows * s->cols > cap)
        ls_fuzz_file_violation("success with a malformed stack", 0, err);
    if (s->layout != LS_ROW_MAJOR && s->layout != LS_COL_MAJOR)
        ls_fuzz_file_violation("success with an unknown layout", 0, err);
    if (!memchr(s->dtype, '\0', sizeof s->dtype) || !s->dtype[0])
        ls_fuzz_file_violation("success without a dtype", 0, err);
    for (size_t k = 0; k < (size_t)s->batch * s->rows * s->cols; k++)
        if (!isfinite(s->data[k]))
            ls_fuzz_file_violation("success with a non-finite value", 0, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = ls_fuzz_file_put(data, size);
    int ndim = -1;
    int nst = ls_io_npy_ndim(path, &ndim);
    ls_io_stack s;
    char err[1024] = "", derr[1024] = "";
    int st = ls_io_read_stack(path, &s, err, sizeof err);
    if (st == 0) {
        check_stack(&s, err);
        if (nst != 0 || ndim != s.ndim)
            ls_fuzz_file_violation("ls_io_npy_ndim disagrees with the stack reader", nst, err);
        ls_matrix m;
        int dst = ls_npy_read(path, &m, derr, sizeof derr);
        if (s.ndim == 2 && dst == 0) {
            /* stack (b, i) at b*rows + i in either layout; dense (b, i) at b + i*batch */
            if (m.rows != s.batch || m.cols != s.rows)
                ls_fuzz_file_violation("dense and stack readers disagree on the shape", 0, err);
            for (size_t b = 0; b < (size_t)s.batch; b++)
                for (size_t i = 0; i < (size_t)s.rows; i++)
                    if (s.data[b * (size_t)s.rows + i] != m.data[b + i * (size_t)s.batch])
                        ls_fuzz_file_violation("dense and stack readers disagree on a value", 0,
                                               err);
        } else if (s.ndim == 2 && dst != LS_ESIZE) {
            ls_fuzz_file_violation("the dense reader refuses a 2-D stack", dst, derr);
        }
        ls_matrix_free(&m);
    } else {
        if (s.data || s.batch || s.rows || s.cols)
            ls_fuzz_file_violation("failure left a stack behind", st, err);
        ls_fuzz_check_refusal(st, err, path);
    }
    ls_io_stack_free(&s);
    return 0;
}
