/* A broadcast by the copy engines (the default between GPUs of one host;
 * LS_DIST_CUDA_BCAST=nccl keeps NCCL's): the other ranks
 * of the communicator pull the root's buffer through CUDA IPC with
 * cudaMemcpyAsync, instead of NCCL's kernels.
 *
 * Why: NCCL runs a broadcast as kernels on its channels (24 on two H200),
 * and beside the trailing update they take about a tenth of its gemm's
 * rate; fewer channels (NCCL_MAX_CTAS=2) gave the gemm that back but made
 * the broadcast itself slower, and the whole LU too (bench/results/h200x2/
 * distributed-profile.txt, checks/nccl-ctas.txt). A copy engine uses no SM.
 *
 * How, per broadcast (every rank of the communicator, in program order, as
 * for an MPI collective):
 *   1. the root records its "ready" event on the communication stream
 *      (after the compute queued so far) and sends, with MPI, its buffer's
 *      IPC handle and offset;
 *   2. each other rank maps the buffer (cached by handle), makes its
 *      communication stream wait for the root's "ready", queues the copy and
 *      records its own "done" event;
 *   3. all agree (MPI_Allreduce) that every rank could; then the root's
 *      communication stream waits for every "done", so nothing the root
 *      queues later overwrites the buffer before it has been read.
 * Each record precedes, in host order, the MPI message after which the
 * other side waits on it, so a wait always sees the record it means (an IPC
 * event's wait takes its latest record). Where a rank cannot (memory not
 * from cudaMalloc, no peer access), step 3 says so and every rank falls
 * back to NCCL for that broadcast and the rest of the engine's life: a
 * receiver that already copied gets the same bytes twice. Ranks on several
 * hosts never open it (ec_ipc_open).
 *
 * The cost: two small MPI collectives a broadcast, and the ranks' host
 * threads meet at each one (NCCL's do not); the mappings are closed by
 * ec_ipc_release at the end of each operation. */
#include "engine_cuda_impl.h"

#include <cuda.h>
#include <time.h>

#define MAP_CACHE 8

typedef struct {
    cudaIpcMemHandle_t h;
    char *base;
} mapping;

/* cuMemGetAddressRange, found through the runtime's entry point: linking
 * libcuda itself would keep this library from loading on a host without a
 * driver. */
typedef CUresult (*address_range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);

struct ec_ipc {
    MPI_Comm comm;
    int n, me;
    cudaEvent_t ready, done; /* this rank's, interprocess */
    cudaEvent_t *peer_ready, *peer_done; /* every rank's, opened here (own: NULL) */
    address_range_fn range;
    mapping map[MAP_CACHE];
    int nmap;
    int off; /* a broadcast fell back to NCCL: so do the rest (every rank agreed) */
    /* host seconds, for LS_DIST_CUDA_PROFILE's report: mapping and
     * unmapping buffers, and waiting in the two MPI collectives */
    double t_map, t_unmap, t_mpi;
    int nbcast, nopen;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    cudaIpcMemHandle_t h;
    unsigned long long off;
    int ok;
} token;

static void close_events(ec_ipc *x)
{
    for (int q = 0; q < x->n; ++q) {
        if (x->peer_ready && x->peer_ready[q])
            cudaEventDestroy(x->peer_ready[q]);
        if (x->peer_done && x->peer_done[q])
            cudaEventDestroy(x->peer_done[q]);
    }
    free(x->peer_ready);
    free(x->peer_done);
    if (x->ready)
        cudaEventDestroy(x->ready);
    if (x->done)
        cudaEventDestroy(x->done);
}

void ec_ipc_destroy(ec_ipc *x)
{
    if (!x)
        return;
    ec_ipc_release(x);
    close_events(x);
    free(x);
}

void ec_ipc_release(ec_ipc *x)
{
    if (!x)
        return;
    const double t0 = now();
    for (int i = 0; i < x->nmap; ++i)
        cudaIpcCloseMemHandle(x->map[i].base);
    x->nmap = 0;
    x->t_unmap += now() - t0;
    (void)cudaGetLastError();
}

/* Collective over comm. NULL where any rank cannot take part (the caller
 * keeps NCCL), with no error: this is a choice of transport, not a failure. */
ec_ipc *ec_ipc_open(ce *c, MPI_Comm comm)
{
    int n = 1, me = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    if (n < 2)
        return NULL;
    /* CUDA IPC maps memory of this host's GPUs only: ranks on several hosts
     * keep NCCL (every rank sees the same split, so all return NULL) */
    MPI_Comm host;
    int on_host = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &on_host);
    MPI_Comm_free(&host);
    int all_here = 0;
    MPI_Allreduce(&on_host, &all_here, 1, MPI_INT, MPI_MIN, comm);
    if (all_here != n)
        return NULL;
    ec_ipc *x = calloc(1, sizeof *x);
    cudaIpcEventHandle_t mine[2]; /* ready, done */
    cudaIpcEventHandle_t *all = malloc((size_t)n * sizeof mine);
    int ok = x && all && c->status == 0;
    const unsigned flags = cudaEventInterprocess | cudaEventDisableTiming;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (ok)
        ok = cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", (void **)&x->range, 12000,
                                              cudaEnableDefault, &found) == cudaSuccess &&
             found == cudaDriverEntryPointSuccess && x->range;
    if (ok) {
        x->comm = comm;
        x->n = n;
        x->me = me;
        x->peer_ready = calloc((size_t)n, sizeof *x->peer_ready);
        x->peer_done = calloc((size_t)n, sizeof *x->peer_done);
        ok = x->peer_ready && x->peer_done &&
             cudaEventCreateWithFlags(&x->ready, flags) == cudaSuccess &&
             cudaEventCreateWithFlags(&x->done, flags) == cudaSuccess &&
             cudaIpcGetEventHandle(&mine[0], x->ready) == cudaSuccess &&
             cudaIpcGetEventHandle(&mine[1], x->done) == cudaSuccess;
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok) { /* every rank has x and all */
        MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, comm);
        for (int q = 0; ok && q < n; ++q)
            if (q != me)
                ok = cudaIpcOpenEventHandle(&x->peer_ready[q], all[2 * q]) == cudaSuccess &&
                     cudaIpcOpenEventHandle(&x->peer_done[q], all[2 * q + 1]) == cudaSuccess;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    }
    free(all);
    (void)cudaGetLastError();
    if (!all_ok && x) {
        close_events(x);
        free(x);
        x = NULL;
    }
    return x;
}

/* The root's buffer as an IPC handle and an offset into its allocation
 * (a handle names a whole allocation). */
static int export_buffer(const ec_ipc *x, const void *buf, token *t)
{
    CUdeviceptr base = 0;
    size_t size = 0;
    if (x->range(&base, &size, (CUdeviceptr)(uintptr_t)buf) != CUDA_SUCCESS ||
        cudaIpcGetMemHandle(&t->h, (void *)(uintptr_t)base) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    t->off = (unsigned long long)((uintptr_t)buf - (uintptr_t)base);
    return 1;
}

/* The root's allocation mapped here, from the cache or opened now. */
static char *import_buffer(ce *c, ec_ipc *x, const cudaIpcMemHandle_t *h)
{
    for (int i = 0; i < x->nmap; ++i)
        if (!memcmp(&x->map[i].h, h, sizeof *h))
            return x->map[i].base;
    if (x->nmap == MAP_CACHE) { /* full: the copies that read them first */
        ec_cu_ok(c, cudaStreamSynchronize(c->c), "communication stream");
        ec_ipc_release(x);
    }
    void *p = NULL;
    const double t0 = now();
    const cudaError_t e = cudaIpcOpenMemHandle(&p, *h, cudaIpcMemLazyEnablePeerAccess);
    x->t_map += now() - t0;
    x->nopen++;
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    x->map[x->nmap].h = *h;
    x->map[x->nmap++].base = p;
    return p;
}

/* 1: broadcast queued on the communication stream (after what the compute
 * stream had queued: the caller ordered that); 0: the ranks agreed to use
 * NCCL for this one. */
int ec_ipc_bcast(ce *c, ec_ipc *x, void *buf, size_t bytes, int root)
{
    if (x->off)
        return 0;
    token t;
    memset(&t, 0, sizeof t);
    if (x->me == root) {
        t.ok = c->status == 0 && export_buffer(x, buf, &t) &&
               ec_cu_ok(c, cudaEventRecord(x->ready, c->c), "cudaEventRecord (ipc ready)");
    }
    double t0 = now();
    MPI_Bcast(&t, (int)sizeof t, MPI_BYTE, root, x->comm);
    x->t_mpi += now() - t0;
    x->nbcast++;
    int ok = t.ok;
    if (x->me != root && ok) {
        char *base = c->status ? NULL : import_buffer(c, x, &t.h);
        ok = base && ec_cu_ok(c, cudaStreamWaitEvent(c->c, x->peer_ready[root], 0),
                              "cudaStreamWaitEvent (ipc ready)") &&
             ec_cu_ok(c, cudaMemcpyAsync(buf, base + t.off, bytes, cudaMemcpyDeviceToDevice, c->c),
                      "cudaMemcpyAsync (ipc broadcast)") &&
             ec_cu_ok(c, cudaEventRecord(x->done, c->c), "cudaEventRecord (ipc done)");
    }
    int all = 0;
    t0 = now();
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, x->comm);
    x->t_mpi += now() - t0;
    x->off = !all; /* same on every rank: no further attempts (and costs) */
    if (all && x->me == root)
        for (int q = 0; q < x->n; ++q)
            if (q != root)
                ec_cu_ok(c, cudaStreamWaitEvent(c->c, x->peer_done[q], 0),
                         "cudaStreamWaitEvent (ipc done)");
    return all;
}

void ec_ipc_report(ec_ipc *x, int device)
{
    if (!x || !x->nbcast)
        return;
    fprintf(stderr,
            "ls_dist_cuda ipc (cuda:%d): %d broadcasts, %d buffers mapped in %.4f s, unmapped in "
            "%.4f s, MPI collectives %.4f s (host)\n",
            device, x->nbcast, x->nopen, x->t_map, x->t_unmap, x->t_mpi);
    x->t_map = x->t_unmap = x->t_mpi = 0;
    x->nbcast = x->nopen = 0;
}
