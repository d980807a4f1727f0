/* ls_grid_create_blacs: a grid with the ranks and coordinates of a BLACS
 * context, where the library was built with ScaLAPACK's BLACS. */
#include <limits.h>

#include "dist_internal.h"

#ifdef LS_HAVE_BLACS
/* BLACS' C interface (ScaLAPACK), declared here: it ships no header. */
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_get(int ctxt, int what, int *val);
MPI_Comm Cblacs2sys_handle(int sysctxt);

int ls_grid_create_blacs(ls_grid **grid, int ctxt)
{
    int nprow = -1, npcol = -1, myrow = -1, mycol = -1, sys = -1;
    if (!grid)
        return -1;
    *grid = NULL;
    Cblacs_get(ctxt, 10, &sys); /* the system context the grid was made from */
    MPI_Comm comm = Cblacs2sys_handle(sys);
    if (comm == MPI_COMM_NULL)
        return LS_EINVAL;
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    int in = myrow >= 0 && mycol >= 0 && myrow < nprow && mycol < npcol;
    /* ranks outside the grid do not know P and Q: learn them from rank 0's view */
    int pq[2] = {in ? nprow : 0, in ? npcol : 0};
    MPI_Allreduce(MPI_IN_PLACE, pq, 2, MPI_INT, MPI_MAX, comm);
    if (pq[0] < 1 || pq[1] < 1)
        return LS_EINVAL;
    return ls_dist_grid_make(grid, comm, pq[0], pq[1], in, myrow, mycol, ctxt);
}
#else
int ls_grid_create_blacs(ls_grid **grid, int ctxt)
{
    if (grid)
        *grid = NULL;
    return LS_EUNSUPPORTED;
}
#endif
