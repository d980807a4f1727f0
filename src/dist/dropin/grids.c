/* BLACS contexts as ls_grids, and the ScaLAPACK this library shadows.
 *
 * A context's grid is identified by what it is, not by its number: P, Q
 * and the MPI_COMM_WORLD rank of every process in row-major order, learnt
 * with one BLACS integer sum over the context on every call. Context
 * numbers are local to a process and are reused after Cblacs_gridexit, so
 * a cache keyed by them could leave one process finding a grid that
 * another must still create (a collective only some would enter). Keyed by
 * the membership, every process of a grid has made the same calls on it,
 * so they all hit or all miss. Grids live as long as the process. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"
#include "../../lapack_dropin/shadow.h"

typedef struct lss_cached {
    struct lss_cached *next;
    int P, Q;
    int *world; /* P*Q world ranks, row-major */
    ls_grid *grid;
} lss_cached;

static lss_cached *cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static ls_grid *make_grid(int P, int Q, const int *world, const char **why)
{
    MPI_Group wg, grp;
    MPI_Comm comm = MPI_COMM_NULL;
    ls_grid *g = NULL;
    if (MPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) {
        *why = "MPI_Comm_group failed";
        return NULL;
    }
    int have_grp = MPI_Group_incl(wg, P * Q, world, &grp) == MPI_SUCCESS;
    MPI_Group_free(&wg);
    /* collective over the grid's processes only, in row-major order: the
     * ranks ls_grid_create numbers (r / Q, r % Q), as BLACS' "Row" does */
    int ok = have_grp && MPI_Comm_create_group(MPI_COMM_WORLD, grp, 0x15ca, &comm) == MPI_SUCCESS;
    if (have_grp)
        MPI_Group_free(&grp);
    if (!ok || comm == MPI_COMM_NULL) {
        *why = "MPI_Comm_create_group failed";
        return NULL;
    }
    if (ls_grid_create(&g, comm, P, Q) != 0)
        *why = "ls_grid_create failed";
    MPI_Comm_free(&comm);
    return g;
}

ls_grid *lss_grid_of(int ctxt, const char **why)
{
    int P = -1, Q = -1, myr = -1, myc = -1, me = -1;
    Cblacs_gridinfo(ctxt, &P, &Q, &myr, &myc);
    if (P < 1 || Q < 1 || myr < 0 || myc < 0 || myr >= P || myc >= Q) {
        *why = "outside the grid";
        return NULL;
    }
    /* Whatever is allocated is allocated before the sum, which also counts
     * the processes that could not: they all take the same way after it.
     * The sum goes through a fixed buffer, in chunks, so that every process
     * makes the same calls; entry cnt of each chunk counts failures. */
    const int pq = P * Q, mine = myr * Q + myc;
    lss_cached *c = malloc(sizeof *c);
    int *world = malloc((size_t)pq * sizeof *world);
    int chunk[257], failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int off = 0; off < pq; off += 256) {
        int cnt = pq - off < 256 ? pq - off : 256;
        memset(chunk, 0, sizeof chunk);
        if (mine >= off && mine < off + cnt)
            chunk[mine - off] = me + 1;
        chunk[cnt] = !c || !world;
        Cigsum2d(ctxt, "All", " ", cnt + 1, 1, chunk, cnt + 1, -1, -1);
        for (int i = 0; world && i < cnt; ++i)
            world[off + i] = chunk[i] - 1;
        failed |= chunk[cnt] > 0;
    }
    ls_grid *g = NULL;
    pthread_mutex_lock(&cache_lock);
    lss_cached *hit = cache;
    while (!failed && hit &&
           !(hit->P == P && hit->Q == Q && memcmp(hit->world, world, (size_t)pq * sizeof *world) == 0))
        hit = hit->next;
    if (failed) {
        *why = "out of memory";
    } else if (hit) {
        g = hit->grid;
    } else if ((g = make_grid(P, Q, world, why)) != NULL) {
        *c = (lss_cached){cache, P, Q, world, g};
        cache = c;
        c = NULL;
        world = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    free(c);
    free(world);
    return g;
}

/* ------------------------------------------------------ the shadowed ScaLAPACK */

static const char *const routine_names[3][2] = {
    [LSS_GESV] = {"pdgesv_", "psgesv_"},
    [LSS_GETRF] = {"pdgetrf_", "psgetrf_"},
    [LSS_GETRS] = {"pdgetrs_", "psgetrs_"},
};
static _Atomic(void *) resolved[3][2];

static int is_ours(void *sym) { return ls_dropin_is_ours(sym, "liblinsolve_scalapack"); }

void *lss_system_routine(lss_op op, ls_precision prec)
{
    int p = prec == LS_SINGLE;
    void *f = atomic_load(&resolved[op][p]);
    if (f)
        return f;
    f = dlsym(RTLD_NEXT, routine_names[op][p]);
    if (f && is_ours(f))
        f = NULL;
    if (f)
        atomic_store(&resolved[op][p], f);
    return f;
}
