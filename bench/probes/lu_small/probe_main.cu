/* Runs the instrumented small-n LU kernel (mkprobe.py) on one random
 * n x n matrix in shared memory (getrf, nrhs 0), in a cluster of G blocks,
 * five times, and prints from the last run where the time went: the
 * critical path of each step (the panel owner's wait, its copy of L11, its
 * look-ahead update, its panel's two halves and what lies between them),
 * the other blocks' updates beside it, the owner's look-ahead updates
 * summed in three parts (row moves, U12, GEMM), the time of each column of
 * panels 1 and 8 (%globaltimer, ns), and the phases of each column of
 * panel 1's first half in clock cycles of thread 0 (clock64).
 *
 *   lusprobe N G [s]     (s: FP32; default FP64)
 *
 * N <= 512 (one panel row a thread in shared memory); G as the planner
 * picks it (lu_small.c): the smallest power of two giving each block at
 * most one 32-column panel. The stamps cost a little time themselves. */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "k_lu_small_probe.cu"
template <typename T> static void run(int n, int G) {
  size_t nn = (size_t)n * n;
  std::vector<T> h(nn);
  srand(1); for (auto &x : h) x = (T)(rand() / (double)RAND_MAX - 0.5);
  T *dA; int *ipiv, *info; cudaMalloc(&dA, nn * sizeof(T)); cudaMalloc(&ipiv, n * 4); cudaMalloc(&info, 4);
  int np = (n + 31) / 32, nblk = np;
  size_t cols = 0; for (int b = 0; b < G; b++) { size_t c = 0; for (int jb = b; jb < nblk; jb += G) c += (n - jb * 32 < 32 ? n - jb * 32 : 32); if (c > cols) cols = c; }
  size_t smem = (32 * 33 + 32 * 36 + cols * n) * sizeof(T);
  float best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    cudaMemcpy(dA, h.data(), nn * sizeof(T), cudaMemcpyHostToDevice);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    cudaError_t e = sizeof(T) == 8 ? lsk_lu_small_d(n, 0, (double *)dA, n, NULL, 0, ipiv, info, G, smem, 1, 0)
                                   : lsk_lu_small_s(n, 0, (float *)dA, n, NULL, 0, ipiv, info, G, smem, 1, 0);
    cudaEventRecord(e1); cudaDeviceSynchronize();
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    if (e != cudaSuccess) { printf("launch: %s\n", cudaGetErrorString(e)); return; }
    if (ms < best) best = ms;
  }
  unsigned long long P[16][64][6], C[2][2][20], Q[64][6];
  cudaMemcpyFromSymbol(P, lus_probe, sizeof P); cudaMemcpyFromSymbol(C, lus_colp, sizeof C); cudaMemcpyFromSymbol(Q, lus_pp, sizeof Q);
  unsigned long long t0 = P[0][63][0];
  auto us = [](unsigned long long a, unsigned long long b) { return (double)((long long)(b - a)) / 1e3; };
  printf("== %s n=%d G=%d smem=%zu  best event time %.1f us; kernel span (b0 start->end) %.1f us\n", sizeof(T) == 8 ? "FP64" : "FP32", n, G, smem, best * 1e3, us(t0, P[0][63][2]));
  printf("load %.2f us; panel 0: half1 %.2f mid %.2f half2 %.2f publish %.2f fence %.2f\n", us(P[0][63][0], P[0][63][1]), us(Q[0][0], Q[0][1]), us(Q[0][1], Q[0][2]), us(Q[0][2], Q[0][3]), us(Q[0][3], Q[0][4]), us(Q[0][4], Q[0][5]));
  double s[10] = {0};
  for (int k = 0; k + 1 < np; k++) {
    int o = (k + 1) % G;
    double wait_gap = k == 0 ? us(P[0][63][1], P[o][k][0]) : us(P[(k) % G][k - 1][3], P[o][k][0]);
    double l11 = us(P[o][k][0], P[o][k][1]), upd = us(P[o][k][1], P[o][k][2]);
    double h1 = us(Q[k + 1][0], Q[k + 1][1]), mid = us(Q[k + 1][1], Q[k + 1][2]), h2 = us(Q[k + 1][2], Q[k + 1][3]), pub = us(Q[k + 1][3], Q[k + 1][4]), fen = us(Q[k + 1][4], Q[k + 1][5]);
    double other = 0; for (int b = 0; b < G; b++) if (b != o && us(P[b][k][1], P[b][k][4]) > other) other = us(P[b][k][1], P[b][k][4]);
    double ownerrest = us(P[o][k][3], P[o][k][4]);
    if (k < 4 || k + 2 == np) printf("step %2d (owner b%d): barrier-gap %.2f  L11 %.2f  update %.2f  panel[h1 %.2f mid %.2f h2 %.2f pub %.2f fence %.2f]  others' updates %.2f owner-rest %.2f\n", k, o, wait_gap, l11, upd, h1, mid, h2, pub, fen, other, ownerrest);
    double v[10] = {wait_gap, l11, upd, h1, mid, h2, pub, fen, other, ownerrest};
    for (int i = 0; i < 10; i++) s[i] += v[i];
  }
  printf("sum over %d steps: barrier-gap %.1f  L11 %.1f  update %.1f  h1 %.1f mid %.1f h2 %.1f pub %.1f fence %.1f | others' updates %.1f owner-rest %.1f\n", np - 1, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9]);
  unsigned long long U[64][4]; cudaMemcpyFromSymbol(U, lus_upd, sizeof U);
  double su[3] = {0};
  for (int k = 0; k + 1 < np; k++) for (int i = 0; i < 3; i++) su[i] += us(U[k][i], U[k][i + 1]);
  printf("the owner's look-ahead updates, summed: row moves %.1f  U12 %.1f  GEMM %.1f\n", su[0], su[1], su[2]);
  printf("end: last step done -> kernel end (b0): %.2f\n", us(P[0][np - 1][4], P[0][63][2]));
  if (np > 1) { printf("panel 1 columns (us):"); for (int hh = 0; hh < 2; hh++) for (int j = 1; j < 16; j++) printf(" %.2f", us(C[0][hh][j - 1], C[0][hh][j])); printf("\n"); }
  if (np > 8) { printf("panel 8 columns (us):"); for (int hh = 0; hh < 2; hh++) for (int j = 1; j < 16; j++) printf(" %.2f", us(C[1][hh][j - 1], C[1][hh][j])); printf("\n"); }
  long long CS[16][8]; cudaMemcpyFromSymbol(CS, lus_cst, sizeof CS);
  printf("panel 1 half 1, thread 0, cycles: [top->cand stored] [->pre-bar] [bar] [->piv known] [->reciprocal read] [->update done] [->next top]\n");
  for (int j = 0; j < 16; j++) printf("  col %2d: %5lld %5lld %5lld %5lld %5lld %5lld %5lld\n", j, CS[j][1] - CS[j][0], CS[j][2] - CS[j][1], CS[j][3] - CS[j][2], CS[j][4] - CS[j][3], CS[j][5] - CS[j][4], CS[j][6] - CS[j][5], j < 15 ? CS[j + 1][0] - CS[j][6] : 0ll);
  cudaFree(dA); cudaFree(ipiv); cudaFree(info);
}
int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: lusprobe N G [s]\n"); return 2; }
  int n = atoi(argv[1]), G = atoi(argv[2]);
  if (argc > 3 && argv[3][0] == 's') run<float>(n, G); else run<double>(n, G);
}
