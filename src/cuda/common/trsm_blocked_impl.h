/* trsm_blocked.c for one precision (REAL, FN: typed.h).
 * Defines: lsc_trsm_lu_d, lsc_trsm_lu_s */

int FN(lsc_trsm_lu)(cublasHandle_t h, char side, int m, int n, const REAL *T, int ldt, REAL *B,
                    int ldb, int tb, char *err, size_t errlen)
{
    int st = 0;
    const REAL one = 1, minus = -1;
    const int left = side == 'L', order = left ? m : n;
    const cublasSideMode_t sm = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    const cublasFillMode_t fill = left ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    const cublasDiagType_t diag = left ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    if (m <= 0 || n <= 0)
        return 0;
    if (tb <= 0 || tb >= order) {
        LSC_BLAS(LSC_T(cublas, trsm)(h, sm, fill, CUBLAS_OP_N, diag, m, n, &one, T, ldt, B, ldb));
        return 0;
    }
    for (int i = 0; i < order; i += tb) {
        const int ib = order - i < tb ? order - i : tb, rest = order - i - ib;
        const REAL *Tii = T + (size_t)i + (size_t)i * (size_t)ldt;
        if (left) { /* rows i .. i+ib of B, then the rows below them */
            REAL *Bi = B + (size_t)i;
            LSC_BLAS(LSC_T(cublas, trsm)(h, sm, fill, CUBLAS_OP_N, diag, ib, n, &one, Tii, ldt,
                                         Bi, ldb));
            if (rest > 0)
                LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, rest, n, ib, &minus,
                                             Tii + ib, ldt, Bi, ldb, &one, Bi + ib, ldb));
        } else { /* columns i .. i+ib of B, then the columns right of them */
            REAL *Bi = B + (size_t)i * (size_t)ldb;
            LSC_BLAS(LSC_T(cublas, trsm)(h, sm, fill, CUBLAS_OP_N, diag, m, ib, &one, Tii, ldt,
                                         Bi, ldb));
            if (rest > 0)
                LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, m, rest, ib, &minus, Bi,
                                             ldb, Tii + (size_t)ib * (size_t)ldt, ldt, &one,
                                             Bi + (size_t)ib * (size_t)ldb, ldb));
        }
    }
done:
    return st;
}
