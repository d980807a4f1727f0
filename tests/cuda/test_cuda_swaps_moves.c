/*
 * A panel's interchanges turned into row moves a thread per swap
 * (src/cuda/lu/swaps_moves.h, the phases of the device kernel), run here
 * on the host phase by phase as the kernel's barriers order them, against
 * the swaps done one after another on a row array. Runs on every machine.
 * Pivot patterns: random below the panel, few distinct rows chosen again
 * and again, rows inside the panel only, none, and mixtures; panel widths
 * 1 to 1024 (LSK_SWAPS_MAX) at offsets 0 and beyond.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda/lu/swaps_moves.h"
#include "testutil.h"

enum { NSW_MAX = 1024 };

static unsigned long long rng = 88172645463325252ULL;
static int next_int(int n) /* 0 .. n-1 */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (unsigned long long)n);
}

/* piv[i] in [k0+i, m), by pattern */
static void pivots(int pattern, int k0, int nsw, int m, int *piv)
{
    const int k1 = k0 + nsw;
    for (int i = 0; i < nsw; i++) {
        const int lo = k0 + i;
        int p = lo;
        switch (pattern) {
        case 0: p = lo + next_int(m - lo); break;                  /* anywhere below */
        case 1: p = k1 + next_int(m - k1 < 6 ? m - k1 : 6); break; /* a few rows, often again */
        case 2: p = lo + next_int(k1 - lo); break;                 /* inside the panel */
        case 3: p = lo; break;                                     /* no interchange */
        default: /* a mixture of the above */
            p = next_int(3) == 0 ? lo : next_int(2) ? lo + next_int(k1 - lo)
                                                    : k1 + next_int(m - k1 < 4 ? m - k1 : 4);
        }
        piv[i] = p;
    }
}

static int one_case(int pattern, int k0, int nsw, int extra)
{
    const int m = k0 + nsw + extra;
    int *ref = lt_xmalloc(sizeof(int) * (size_t)m), *got = lt_xmalloc(sizeof(int) * (size_t)m);
    int piv[NSW_MAX], root[NSW_MAX], prev[NSW_MAX], last[NSW_MAX], nroot[NSW_MAX];
    pivots(pattern, k0, nsw, m, piv);
    /* the reference: the swaps in order */
    for (int x = 0; x < m; x++)
        ref[x] = got[x] = x;
    for (int i = 0; i < nsw; i++) {
        int t = ref[k0 + i];
        ref[k0 + i] = ref[piv[i]];
        ref[piv[i]] = t;
    }
    /* the kernel's phases, each over every swap before the next starts */
    for (int j = 0; j < nsw; j++)
        lsk_sm_links(j, k0, piv, root, prev, last);
    for (int j = 0; j < nsw; j++)
        lsk_sm_not_last(j, prev, last);
    for (int span = 1; span < nsw; span <<= 1) {
        for (int j = 0; j < nsw; j++)
            nroot[j] = root[root[j]];
        memcpy(root, nroot, sizeof(int) * (size_t)nsw);
    }
    int moves = 0, dup = 0;
    for (int i = 0; i < nsw; i++) {
        int src = lsk_sm_window_src(i, k0, piv, root, prev);
        if (src != k0 + i) {
            got[k0 + i] = src;
            moves++;
        }
        if (piv[i] >= k0 + nsw && last[i]) {
            dup += got[piv[i]] != piv[i];
            got[piv[i]] = k0 + root[i];
            moves++;
        }
    }
    int bad = 0;
    for (int x = 0; x < m; x++)
        bad += got[x] != ref[x];
    free(ref);
    free(got);
    if (bad == 0 && dup == 0 && moves <= 2 * nsw)
        return 0; /* only a failure is printed: there are hundreds of cases */
    return lt_check(0,
                    "pattern %d k0 %d nsw %d extra %d: %d rows wrong, %d rows moved twice, "
                    "%d moves", pattern, k0, nsw, extra, bad, dup, moves);
}

int main(void)
{
    static const int widths[] = {1, 2, 3, 7, 32, 64, 255, 512, 1000, 1024};
    static const int offsets[] = {0, 5, 1024};
    static const int extras[] = {1, 6, 3000};
    int f = 0, n = 0;
    for (int pattern = 0; pattern < 5; pattern++)
        for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
            for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
                for (size_t e = 0; e < sizeof extras / sizeof *extras; e++)
                    for (int rep = 0; rep < 3; rep++, n++)
                        f += one_case(pattern, offsets[o], widths[w], extras[e]);
    lt_check(f == 0, "%d of %d cases against the swaps done in order", n - f, n);
    return f ? 1 : 0;
}
