/* The method table and its counting models. docs/metrics.md states every
 * model; the sums run in O(n) so they stay exact for any n without closed
 * forms that could drift. */
#include <stdio.h>
#include <string.h>

#include "core/methods/methods.h"

#define DIRECT_OPTS (LS_OPT_PIVOT | LS_OPT_REFINE)

/* Each method's facts: runs_as, iterative, pivots, options, traffic. A
 * method added to LS_METHOD_MAP without its line here does not compile. */
#define FACTS_AUTO LS_METHOD_AUTO, 0, 0, 0u, LS_TRAFFIC_LU_BLOCKED /* resolved per backend */
#define FACTS_GE LS_METHOD_GE_COALESCED, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GE
#define FACTS_LU LS_METHOD_LU, 0, 1, DIRECT_OPTS, LS_TRAFFIC_LU_BLOCKED
#define FACTS_GJ1 LS_METHOD_GJ1, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GJ
#define FACTS_GJ2 LS_METHOD_GJ2, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GJ
#define FACTS_BICGSTAB LS_METHOD_BICGSTAB, 1, 0, LS_OPT_TOL, LS_TRAFFIC_KRYLOV
#define FACTS_LAPACK LS_METHOD_LAPACK, 0, 1, LS_OPT_REFINE, LS_TRAFFIC_LU_BLOCKED /* always pivots */
#define FACTS_GE_NAIVE LS_METHOD_GE_NAIVE, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GE
#define FACTS_GE_BLOCKED LS_METHOD_GE_BLOCKED, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GE
#define FACTS_GE_COALESCED LS_METHOD_GE_COALESCED, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GE
#define FACTS_LU_SEED LS_METHOD_LU_SEED, 0, 1, DIRECT_OPTS, LS_TRAFFIC_LU_SEED
#define FACTS_GE_LOCAL LS_METHOD_GE_LOCAL, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GE
#define FACTS_GE_IMAGE LS_METHOD_GE_IMAGE, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GE
#define FACTS_GE_BUFFER LS_METHOD_GE_BUFFER, 0, 1, DIRECT_OPTS, LS_TRAFFIC_GE

static const ls_method_info rows[LS_METHOD_COUNT_] = {
#define LS_METHOD_ROW_(id, name, desc) {LS_METHOD_##id, name, desc, FACTS_##id},
    LS_METHOD_MAP(LS_METHOD_ROW_)
#undef LS_METHOD_ROW_
};

const ls_method_info *ls_method_info_of(ls_method m)
{
    return m >= LS_METHOD_AUTO && m < LS_METHOD_COUNT_ ? &rows[m] : NULL;
}

int ls_method_is_iterative(ls_method m)
{
    const ls_method_info *i = ls_method_info_of(m);
    return i && i->iterative;
}

double ls_method_flops(ls_method m, int n, int nrhs, int iterations)
{
    if (ls_method_is_iterative(m)) {
        /* 2k+1 matrix-vector products and about 20n of vector work an iteration */
        double k = iterations > 0 ? iterations : 0, dn = n;
        return nrhs * ((2 * k + 1) * (2.0 * dn * dn - dn) + 20.0 * k * dn);
    }
    return ls_flops_gesv(n, nrhs);
}

static double ge_elems(int n, int r)
{
    /* Per pivot k: the pivot search reads m+1 (m = n-k-1 rows below), a row
     * exchange reads and writes 2 rows of w = n-k+r entries (counted always:
     * the worst case), the elimination reads the pivot row once and reads
     * and writes the m x w trailing block of [A|B]. Back substitution reads
     * the upper triangle once per right-hand-side block and reads/writes X. */
    double e = 0.0;
    for (int k = 0; k < n; k++) {
        double m = n - k - 1, w = n - k + r;
        e += (m + 1) + 4.0 * w + w + 2.0 * m * w;
    }
    return e + 0.5 * (double)n * (n + 1) + 2.0 * (double)n * r;
}

static double gj_elems(int n, int r)
{
    /* Gauss-Jordan: each pivot eliminates in all n-1 other rows over the
     * w = n-k+r columns right of it, after the same search and exchange;
     * the final scaling reads the diagonal and reads/writes X. */
    double e = 0.0;
    for (int k = 0; k < n; k++) {
        double m = n - k - 1, w = n - k + r;
        e += (m + 1) + 4.0 * w + w + 2.0 * (n - 1) * w;
    }
    return e + n + 2.0 * (double)n * r;
}

static double blocked_lu_elems(int n, int r)
{
    /* Right-looking LU with panels of NB: each panel step reads and writes
     * the trailing (n-j) x (n-j) matrix once; getrs reads L and U once and
     * reads/writes B. Cache reuse inside an update is not counted. */
    double e = 0.0;
    for (int j = 0; j < n; j += LS_METHOD_LU_NB) {
        double t = n - j;
        e += 2.0 * t * t;
    }
    return e + (double)n * n + 2.0 * (double)n * r;
}

static double luseed_elems(int n, int r)
{
    /* Per column k (m = n-k-1): the pivot search reads m+1; the swap reads
     * and writes 2 rows of A (n) and of B (r); multipliers read m+1 and
     * write m; the update reads L(:,k) (m), the pivot row once per 16-row
     * block (modelled m*m/16) and reads and writes the m x m block. The two
     * substitutions read each triangle and read/write x. */
    double e = 0.0;
    for (int k = 0; k < n; k++) {
        double m = n - k - 1;
        e += (m + 1) + 4.0 * (n + r) + (2.0 * m + 1) + m + m * m / 16.0 + 2.0 * m * m;
    }
    return e + (double)n * n * r + 4.0 * (double)n * r;
}

static double krylov_elems(int n, int r, int iterations)
{
    /* BiCGStab: 2k+1 matrix-vector products (n^2 + 2n each), 5k dot
     * products (2n), 5k+1 vector updates (3n), per right-hand side. */
    double k = iterations > 0 ? iterations : 0, dn = n;
    return r * ((2 * k + 1) * (dn * dn + 2.0 * dn) + 5 * k * 2.0 * dn + (5 * k + 1) * 3.0 * dn);
}

double ls_method_bytes(ls_method m, int n, int nrhs, int elem_bytes, int iterations)
{
    const ls_method_info *i = ls_method_info_of(m);
    if (n <= 0)
        return 0.0;
    double e;
    switch (i ? i->traffic : LS_TRAFFIC_LU_BLOCKED) {
    case LS_TRAFFIC_GE: e = ge_elems(n, nrhs); break;
    case LS_TRAFFIC_GJ: e = gj_elems(n, nrhs); break;
    case LS_TRAFFIC_LU_SEED: e = luseed_elems(n, nrhs); break;
    case LS_TRAFFIC_KRYLOV: e = krylov_elems(n, nrhs, iterations); break;
    default: e = blocked_lu_elems(n, nrhs); break;
    }
    return e * elem_bytes;
}

ls_method ls_methods_resolve(const ls_method_support *list, size_t count, ls_method m)
{
    const ls_method_info *i = ls_method_info_of(m);
    if (!i || m == LS_METHOD_AUTO)
        return LS_METHOD_AUTO;
    for (size_t k = 0; k < count; k++)
        if (list[k].method == m)
            return m;
    for (size_t k = 0; k < count; k++)
        if (list[k].method == i->runs_as)
            return i->runs_as;
    return LS_METHOD_AUTO;
}

static void append(char *buf, size_t len, const char *word)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? " " : "", word);
}

void ls_methods_list(const ls_method_support *list, size_t count, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    buf[0] = '\0';
    for (size_t k = 0; k < count; k++) {
        const ls_method_info *i = ls_method_info_of(list[k].method);
        if (!i)
            continue;
        append(buf, len, i->name);
        for (int a = LS_METHOD_AUTO + 1; a < LS_METHOD_COUNT_; a++)
            if (a != (int)list[k].method &&
                ls_methods_resolve(list, count, (ls_method)a) == list[k].method)
                append(buf, len, rows[a].name);
    }
}

/* "text [methods.c:line]", as ls_fail_at writes it: this file is also built
 * into the OpenCL plugin, which has no ls_fail_at. */
static void say_where(char *err, size_t errlen, int line)
{
    size_t used = strlen(err);
    const char *base = strrchr(__FILE__, '/');
    if (used < errlen)
        snprintf(err + used, errlen - used, " [%s:%d]", base ? base + 1 : __FILE__, line);
}

int ls_methods_check(const char *backend, const ls_method_support *list, size_t count,
                     ls_method m, ls_precision p, char *err, size_t errlen)
{
    char avail[256];
    ls_method runs = ls_methods_resolve(list, count, m);
    const ls_method_support *s = NULL;
    for (size_t k = 0; runs != LS_METHOD_AUTO && k < count; k++)
        if (list[k].method == runs)
            s = &list[k];
    if (s && (p == LS_DOUBLE || p == LS_SINGLE) && (s->precisions & LS_PREC_BIT(p)))
        return 0;
    if (err && errlen) {
        const char *name = ls_method_info_of(m) ? rows[m].name : "?";
        ls_methods_list(list, count, avail, sizeof avail);
        if (!s)
            snprintf(err, errlen, "method %s is not available on backend %s (available: %s)",
                     name, backend, avail);
        else if (p != LS_DOUBLE && p != LS_SINGLE)
            snprintf(err, errlen, "precision %d is not available on backend %s", (int)p, backend);
        else
            snprintf(err, errlen, "method %s runs in %s only on backend %s", name,
                     s->precisions & LS_PREC_S ? "float" : "double", backend);
        say_where(err, errlen, __LINE__);
    }
    return LS_EUNSUPPORTED;
}
