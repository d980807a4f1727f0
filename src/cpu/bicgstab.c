/* BiCGStab kernels (bicgstab_impl.h), instantiated for double and float. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "cpu_internal.h"

/* Residual history of the first right-hand side, grown on demand so a huge
 * max_iter costs nothing up front. */
typedef struct ls_hist_buf {
    double *v;
    int len, cap;
} ls_hist_buf;

/* Record the value of iteration it (1-based). If the buffer cannot grow the
 * history just stops there: it is a report, not part of the answer. */
static void ls_hist_set(ls_hist_buf *h, int it, double value)
{
    if (!h || it < 1)
        return;
    if (it > h->cap) {
        if (h->cap > INT_MAX / 2)
            return;
        int cap = h->cap ? h->cap * 2 : 64;
        while (cap < it && cap <= INT_MAX / 2)
            cap *= 2;
        if (cap < it)
            return;
        double *grown = ls_realloc(h->v, sizeof(double) * (size_t)cap);
        if (!grown)
            return;
        h->v = grown;
        h->cap = cap;
    }
    h->v[it - 1] = value;
    if (it > h->len)
        h->len = it;
}

#define LS_REAL_IMPL "cpu/bicgstab_impl.h"
#include "common/instantiate_real.h"
