/*
 * Counting models for the measurement tools: device-memory bytes per method,
 * the transaction/volume/beta model of Panchatcharam, Sundar & Klar (2013)
 * for the tiled GEMM and the GEMV, and Pattam's CGMA and thread counts for
 * lu-seed. Every formula here is
 * stated in docs/metrics.md; the tools print what these return beside
 * measured times, so a model error shows up as an implausible GB/s.
 */
#ifndef LS_BENCH_MODELS_H
#define LS_BENCH_MODELS_H

#include "linsolve.h"

/**
 * Modelled device-memory (or main-memory, for CPU methods) traffic of one
 * solve, in bytes: the method table's model (core/methods/methods.h), which `solve`
 * reports too.
 * @param[in] m          method (ge*, gj*, lu*, lapack, bicgstab)
 * @param[in] n, nrhs    problem size
 * @param[in] elem_bytes 4 or 8
 * @param[in] iterations iterative methods: iterations taken (else ignored)
 */
double ls_model_bytes(ls_method m, int n, int nrhs, int elem_bytes, int iterations);

/* Flops of one solve by method: LAPACK's getrf+getrs for the dense methods
 * (Gauss-Jordan does more work, but rates are quoted on the same count so
 * methods compare on time); BiCGStab: per iteration 2 matvecs and ~20n. */
double ls_model_flops(ls_method m, int n, int nrhs, int iterations);

/* Panchatcharam, Sundar & Klar (2013)'s model of one kernel run. */
typedef struct ls_model_xfer {
    double transactions; /* N = sum N_i */
    double transaction_bytes;
    double volume;       /* V = sum N_i T_i (2.10) */
    double beta;         /* (2.9) */
} ls_model_xfer;

/* Tiled GEMM X = U W, m x m, p x p tiles (p multiple of 16), one element per
 * thread, half-warp transactions of 16 elements. */
void ls_model_gemm(int m, int p, int elem_bytes, ls_model_xfer *out);
/* GEMV y = A x, A m x m column-major, one row per thread, x staged through
 * shared memory in tiles of p. */
void ls_model_gemv(int m, int p, int elem_bytes, ls_model_xfer *out);

/* Pattam's count of lu-seed's thread invocations over the whole solve,
 * with `swaps` row exchanges (Pattam's table assumes (n-1)/2), and the peak threads of
 * one launch ((n-1)^2, the first trailing update). */
double ls_model_luseed_threads(int n, double swaps);
double ls_model_luseed_peak_threads(int n);
/* CGMA = flops / global-memory element accesses. `ideal` counts each input
 * read once and each output written once; else the lu-seed access model. */
double ls_model_luseed_cgma(int n, int nrhs, int ideal);

#endif
