/* NaN and Inf through the LAPACK interface: for each case, info, ipiv and
 * which entries of the factors and of the solution are NaN (N), infinite
 * (I), zero (0) or finite (.). nan_inf.sh runs this under Debian's
 * reference LAPACK and BLAS and again through the drop-in, and compares:
 * the patterns, not the values, are what LAPACK's behaviour fixes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void sgesv_(const int *n, const int *nrhs, float *a, const int *lda, int *ipiv, float *b,
            const int *ldb, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
             const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
             size_t trans_len);

enum { N = 4 };

static char kind(double x)
{
    return isnan(x) ? 'N' : isinf(x) ? 'I' : x == 0 ? '0' : '.';
}

static void show(const char *routine, const char *name, const double *A, const double *B,
                 const int *ipiv, int info)
{
    char a[N * N + 1], b[N + 1], p[N + 1];
    for (int i = 0; i < N * N; i++)
        a[i] = kind(A[i]);
    for (int i = 0; i < N; i++)
        b[i] = kind(B[i]), p[i] = (char)('0' + ipiv[i]);
    a[N * N] = b[N] = p[N] = '\0';
    printf("%-7s %-22s info=%d ipiv=%s A=%s X=%s\n", routine, name, info, p, a, b);
}

int main(void)
{
    static const double base[N * N] = {4, 1, 2, .5, 1, 5, 1, 2, 2, 1, 6, 1, .5, 2, 1, 7};
    static const struct {
        const char *name;
        int a_at;      /* entry of A set to a_value, or -1 */
        double a_value;
        int b_at;      /* entry of B set to b_value, or -1 */
        double b_value;
        int zero_col;  /* 1-based column of A zeroed first, or 0 */
    } cases[] = {
        {"NaN on the diagonal", 0, NAN, -1, 0, 0},
        {"NaN below a pivot", 1, NAN, -1, 0, 0},
        {"NaN in the trailing", 10, NAN, -1, 0, 0},
        {"Inf on the diagonal", 0, INFINITY, -1, 0, 0},
        {"Inf below a pivot", 1, INFINITY, -1, 0, 0},
        {"-Inf last pivot", 15, -INFINITY, -1, 0, 0},
        {"NaN in b", -1, 0, 1, NAN, 0},
        {"Inf in b", -1, 0, 0, INFINITY, 0},
        {"zero column", -1, 0, -1, 0, 2},
        {"zero column, NaN below", 6, NAN, -1, 0, 2},
    };
    const int n = N, one = 1;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int r = 0; r < 3; r++) {
            double A[N * N], B[N] = {1, 2, 3, 4};
            int ipiv[N] = {0}, info = -99;
            memcpy(A, base, sizeof A);
            if (cases[c].zero_col)
                memset(A + (cases[c].zero_col - 1) * N, 0, N * sizeof(double));
            if (cases[c].a_at >= 0)
                A[cases[c].a_at] = cases[c].a_value;
            if (cases[c].b_at >= 0)
                B[cases[c].b_at] = cases[c].b_value;
            if (r == 0) {
                dgesv_(&n, &one, A, &n, ipiv, B, &n, &info);
                show("dgesv", cases[c].name, A, B, ipiv, info);
            } else if (r == 1) {
                dgetrf_(&n, &n, A, &n, ipiv, &info);
                if (info == 0)
                    dgetrs_("T", &n, &one, A, &n, ipiv, B, &n, &info, 1);
                show("dgetrsT", cases[c].name, A, B, ipiv, info);
            } else {
                float As[N * N], Bs[N];
                for (int i = 0; i < N * N; i++)
                    As[i] = (float)A[i];
                for (int i = 0; i < N; i++)
                    Bs[i] = (float)B[i];
                sgesv_(&n, &one, As, &n, ipiv, Bs, &n, &info);
                for (int i = 0; i < N * N; i++)
                    A[i] = As[i];
                for (int i = 0; i < N; i++)
                    B[i] = Bs[i];
                show("sgesv", cases[c].name, A, B, ipiv, info);
            }
        }
    }
    return 0;
}
