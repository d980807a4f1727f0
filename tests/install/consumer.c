/* A user's program: solves a 3x3 system through the installed library. */
#include <math.h>
#include <stdio.h>
#include <linsolve.h>

int main(void)
{
    double A[9] = {2, 1, 0, 1, 3, 1, 0, 1, 4}; /* column-major, symmetric */
    double b[3] = {3, 5, 5};                   /* A * (1,1,1) */
    int ipiv[3], info = 0;
    int st = ls_dgesv(3, 1, A, 3, ipiv, b, 3, &info, NULL);
    if (st != 0 || info != 0) {
        fprintf(stderr, "ls_dgesv: %s\n", ls_strerror(st));
        return 1;
    }
    for (int i = 0; i < 3; i++)
        if (fabs(b[i] - 1.0) > 1e-12) {
            fprintf(stderr, "x[%d] = %g, expected 1\n", i, b[i]);
            return 1;
        }
    printf("consumer: x = (%g, %g, %g) ok\n", b[0], b[1], b[2]);
    return 0;
}
