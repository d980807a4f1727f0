"""Writes an instrumented copy of the small-n LU kernel (src/cuda/lu/
k_lu_small.cu and k_lu_small_panel.cuh) into OUTDIR, with probe_main.cu
beside it: thread 0 of each block records %globaltimer at the steps of the
factorization and clock64 at the phases of each column of panel 1, so that
one run shows where a step's and a column's time goes (README.md).

Usage: python3 mkprobe.py OUTDIR
The copy is made from the tree this script lies in; each insertion is
anchored on a line of the kernel, and a missing anchor stops with its text,
so the probe cannot silently measure something else.
"""
import os
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, '../../../src/cuda/lu')
out = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
os.makedirs(out, exist_ok=True)


def rep(s, a, b):
    """s with its first a replaced by b; a must be there."""
    if a not in s:
        sys.exit('mkprobe.py: anchor not found in the kernel:\n' + a)
    return s.replace(a, b, 1)


s=open(os.path.join(src,'k_lu_small_panel.cuh')).read()

s=rep(s,'#include "cuda/lu/lu_small.h"\n','#include "cuda/lu/lu_small.h"\n__device__ unsigned long long lus_colp[2][2][20];\n__device__ unsigned long long lus_pp[64][6];\n__device__ __forceinline__ unsigned long long lus_now(){unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;}\n')
s=rep(s,'''                for (int c = j + 1; c < LSK_LUS_HALF; c++)
                    a[r][c] -= l * u[c];
            }
''','''                for (int c = j + 1; c < LSK_LUS_HALF; c++)
                    a[r][c] -= l * u[c];
            }
            if (tid == 0 && (r0 == 32 || r0 == 48 || r0 == 256 || r0 == 272)) lus_colp[r0 >= 256][(r0 & 16) ? 1 : 0][j] = lus_now();
''')
s=rep(s,'''    int zero = 0;
    lus_half''','''    int zero = 0;
    const int PK = k0 / LSK_LUS_NB;
    if (tid == 0) lus_pp[PK][0] = lus_now();
    lus_half''')
s=rep(s,'''    if (w2 > 0) {
        T *Q = P + (long long)h * ld; /* the right half */''','''    if (tid == 0) lus_pp[PK][1] = lus_now();
    if (w2 > 0) {
        T *Q = P + (long long)h * ld; /* the right half */''')
s=rep(s,'''        __syncthreads();
        lus_half<T, R>(Q''','''        __syncthreads();
        if (tid == 0) lus_pp[PK][2] = lus_now();
        lus_half<T, R>(Q''')
s=rep(s,'''    if (tid == 0)
        pub->zero = zero;''','''    if (tid == 0) lus_pp[PK][3] = lus_now();
    if (tid == 0)
        pub->zero = zero;''')
s=rep(s,'''    __threadfence();
}''','''    if (tid == 0) lus_pp[PK][4] = lus_now();
    __threadfence();
    if (tid == 0) lus_pp[PK][5] = lus_now();
}''')

# per-column phase clocks (cycles, thread 0) in panel 1's first half
s=rep(s,'__device__ unsigned long long lus_pp[64][6];','__device__ unsigned long long lus_pp[64][6];\n__device__ long long lus_cst[16][8];\n#define LUS_ST(p) do { if (tid == 0 && r0 == 32) lus_cst[j][p] = clock64(); } while (0)')
s=rep(s,"""            if (j >= w)
                break;
            const int g = r0 + j, par = j & 1;""","""            if (j >= w)
                break;
            LUS_ST(0);
            const int g = r0 + j, par = j & 1;""")
s=rep(s,"""                cd->rcp[par][warp] = crcp;
            }""","""                cd->rcp[par][warp] = crcp;
            }
            LUS_ST(1);""")
s=rep(s,"""            lus_bar(nt);
            int q = 0;""","""            LUS_ST(2);
            lus_bar(nt);
            LUS_ST(3);
            int q = 0;""")
s=rep(s,"""            if (piv == (T)0 && *zero == 0)
                *zero = g + 1;""","""            if (piv == (T)0 && *zero == 0)
                *zero = g + 1;
            LUS_ST(4);""")
s=rep(s,"""            const T rp = cd->rcp[par][q]; /* lus_rcp(piv), or 1 for a zero pivot */""","""            const T rp = cd->rcp[par][q]; /* lus_rcp(piv), or 1 for a zero pivot */
            LUS_ST(5);""")
s=rep(s,"""                    a[r][c] -= l * u[c];
            }
""","""                    a[r][c] -= l * u[c];
            }
            LUS_ST(6);
""")
open(os.path.join(out,'k_lu_small_panel_probe.cuh'),'w').write(s)
s=open(os.path.join(src,'k_lu_small.cu')).read()
s=rep(s,'#include "cuda/lu/k_lu_small_panel.cuh"','#include "k_lu_small_panel_probe.cuh"\n__device__ unsigned long long lus_probe[16][64][6];')
s=rep(s,'''        lus_pub *m = &loc[k & 1];
        lus_wait();''','''        lus_pub *m = &loc[k & 1];
        lus_wait();
        if (tid == 0) lus_probe[b][k][0] = lus_now();''')
s=rep(s,'''        if (first_zero == 0)
            first_zero = m->zero;''','''        if (tid == 0) lus_probe[b][k][1] = lus_now();
        if (first_zero == 0)
            first_zero = m->zero;''')
s=rep(s,'''            lus_update(S, 0, LUS_WIDTH(nx), n, ld, k0, w, Lp, lda, m, L11, Ub);
            lus_panel''','''            lus_update(S, 0, LUS_WIDTH(nx), n, ld, k0, w, Lp, lda, m, L11, Ub);
            if (tid == 0) lus_probe[b][k][2] = lus_now();
            lus_panel''')
s=rep(s,'''        lus_arrive();
        for (int jb = b; jb < nblk; jb += G) {''','''        if (tid == 0) lus_probe[b][k][3] = lus_now();
        lus_arrive();
        for (int jb = b; jb < nblk; jb += G) {''')
s=rep(s,'''                lus_move_panel(S, ld, 0, LSK_LUS_NB, &loc[(k - 1) & 1]);
        }
    }''','''                lus_move_panel(S, ld, 0, LSK_LUS_NB, &loc[(k - 1) & 1]);
        }
        if (tid == 0) lus_probe[b][k][4] = lus_now();
    }''')
s=rep(s,'''    cg::cluster_group cl = cg::this_cluster();''','''    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x == 0) lus_probe[cl.block_rank()][63][0] = lus_now();''')
s=rep(s,'''    __syncthreads();
    if (b == 0) /* panel 0 is block 0's slot 0 */''','''    __syncthreads();
    if (tid == 0) lus_probe[b][63][1] = lus_now();
    if (b == 0) /* panel 0 is block 0's slot 0 */''')
s=rep(s,'''    if (b == 0 && tid == 0)
        *info = first_zero;''','''    if (tid == 0) lus_probe[b][63][2] = lus_now();
    if (b == 0 && tid == 0)
        *info = first_zero;''')
# the owner's look-ahead update in three parts: row moves, U12, GEMM
s=rep(s,'__device__ unsigned long long lus_probe[16][64][6];','__device__ unsigned long long lus_probe[16][64][6];\n__device__ unsigned long long lus_upd[64][4];\n__shared__ int lus_pon;')
s=rep(s,'''    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    lus_move_panel(S, ld, c0, c1, m);''','''    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0 && lus_pon) lus_upd[k0 / 32][0] = lus_now();
    lus_move_panel(S, ld, c0, c1, m);
    if (tid == 0 && lus_pon) lus_upd[k0 / 32][1] = lus_now();''')
s=rep(s,'''    __syncthreads();
    const int rows = n - k0 - w, chunks''','''    __syncthreads();
    if (tid == 0 && lus_pon) lus_upd[k0 / 32][2] = lus_now();
    const int rows = n - k0 - w, chunks''')
s=rep(s,'''                    a[(long long)q * ld] -= acc[q];
        }
    }
    __syncthreads();
}''','''                    a[(long long)q * ld] -= acc[q];
        }
    }
    __syncthreads();
    if (tid == 0 && lus_pon) lus_upd[k0 / 32][3] = lus_now();
}''')
s=rep(s,'''            lus_update(S, 0, LUS_WIDTH(nx), n, ld, k0, w, Lp, lda, m, L11, Ub);
            if (tid == 0) lus_probe[b][k][2] = lus_now();''','''            if (tid == 0) lus_pon = 1;
            lus_update(S, 0, LUS_WIDTH(nx), n, ld, k0, w, Lp, lda, m, L11, Ub);
            if (tid == 0) lus_pon = 0;
            if (tid == 0) lus_probe[b][k][2] = lus_now();''')
s=rep(s,'''    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x == 0)''','''    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x == 0) lus_pon = 0;
    if (threadIdx.x == 0)''')
open(os.path.join(out,'k_lu_small_probe.cu'),'w').write(s)
shutil.copy(os.path.join(here, 'probe_main.cu'), out)
print('probe sources in', out)
