/* The CUDA engine's transport: NCCL on the communication stream, ordered
 * against the compute stream by events (broadcasts between GPUs of one host
 * by the copy engines instead, unless LS_DIST_CUDA_BCAST=nccl:
 * engine_cuda_ipc.c), or host-staged MPI where two ranks share a GPU. */
#include "engine_cuda_impl.h"

static ncclComm_t nccl_of(ce *c, MPI_Comm comm)
{
    return comm == c->row ? c->nrow : comm == c->col ? c->ncol : NULL;
}

static ec_ipc *ipc_of(ce *c, MPI_Comm comm)
{
    return comm == c->row ? c->irow : comm == c->col ? c->icol : NULL;
}

/* The communication stream starts after what the compute stream has queued. */
static void comm_after_compute(ce *c)
{
    ec_cu_ok(c, cudaEventRecord(c->ev_s, c->cur), "cudaEventRecord");
    ec_cu_ok(c, cudaStreamWaitEvent(c->c, c->ev_s, 0), "cudaStreamWaitEvent");
}

/* The compute stream waits for the communication queued so far (req NULL),
 * or the caller's request will (an event of its own). */
static int compute_after_comm(ce *c, ls_dist_req *req)
{
    if (!req) {
        ec_cu_ok(c, cudaEventRecord(c->ev_c, c->c), "cudaEventRecord");
        ec_cu_ok(c, cudaStreamWaitEvent(c->cur, c->ev_c, 0), "cudaStreamWaitEvent");
        return c->status;
    }
    cudaEvent_t ev;
    if (!ec_cu_ok(c, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate"))
        return c->status;
    ec_cu_ok(c, cudaEventRecord(ev, c->c), "cudaEventRecord");
    req->dev = ev;
    req->active = 1;
    return c->status;
}

/* Host-staged broadcast, in chunks through the pinned buffer. Every rank
 * takes part in every MPI call even after a device failure (the failure
 * is reported by finish), or the others would wait forever. */
static int staged_bcast(ce *c, char *buf, size_t bytes, int root, MPI_Comm comm)
{
    int me = 0;
    MPI_Comm_rank(comm, &me);
    ec_cu_ok(c, cudaStreamSynchronize(c->cur), "synchronize before a broadcast");
    for (size_t off = 0; off < bytes; off += STAGE_CHUNK) {
        size_t len = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
        if (me == root && !c->status)
            ec_cu_ok(c, cudaMemcpy(c->pin, buf + off, len, cudaMemcpyDeviceToHost),
                     "staging a broadcast");
        if (MPI_Bcast(c->pin, (int)len, MPI_BYTE, root, comm) != MPI_SUCCESS)
            ec_fail(c, LS_EINTERNAL, "MPI_Bcast failed");
        if (me != root && !c->status)
            ec_cu_ok(c, cudaMemcpy(buf + off, c->pin, len, cudaMemcpyHostToDevice),
                     "unstaging a broadcast");
    }
    return c->status;
}

/* NCCL's collectives are entered whatever failed before, as MPI's are. */
int ec_bcast(void *ctx, void *buf, size_t bytes, int root, MPI_Comm comm, ls_dist_req *req)
{
    ce *c = ctx;
    if (req)
        req->active = 0;
    if (bytes == 0)
        return c->status;
    ncclComm_t nc = c->use_nccl ? nccl_of(c, comm) : NULL;
    if (!nc)
        return staged_bcast(c, buf, bytes, root, comm);
    comm_after_compute(c);
    ec_pf_mark(c, K_COMM, c->c);
    ec_ipc *x = ipc_of(c, comm);
    if (!x || !ec_ipc_bcast(c, x, buf, bytes, root))
        ec_nc_ok(c, ncclBroadcast(buf, buf, bytes, ncclUint8, root, nc, c->c), "ncclBroadcast");
    ec_pf_mark(c, 0, c->c);
    if (c->status)
        return c->status;
    return compute_after_comm(c, req);
}

/* NCCL's point-to-point in one group, the rank's own share by a device
 * copy: no host round trip, so the interchanges between process rows queue
 * behind the update like any other step. Declined (1) without NCCL. */
int ec_alltoallv(void *ctx, ls_precision p, const void *sbuf, const int *sc, const int *sd,
                 void *rbuf, const int *rc, const int *rd, MPI_Comm comm)
{
    ce *c = ctx;
    ncclComm_t nc = c->use_nccl ? nccl_of(c, comm) : NULL;
    if (!nc)
        return 1;
    int me = 0, np = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    const size_t es = ec_esz(p);
    const char *s = sbuf;
    char *r = rbuf;
    comm_after_compute(c);
    ec_pf_mark(c, K_COMM, c->c);
    if (sc[me] > 0)
        ec_cu_ok(c, cudaMemcpyAsync(r + (size_t)rd[me] * es, s + (size_t)sd[me] * es,
                                    (size_t)sc[me] * es, cudaMemcpyDeviceToDevice, c->c),
                 "cudaMemcpyAsync (own rows)");
    ec_nc_ok(c, ncclGroupStart(), "ncclGroupStart");
    for (int q = 0; q < np; ++q) {
        if (q == me)
            continue;
        if (sc[q] > 0)
            ec_nc_ok(c, ncclSend(s + (size_t)sd[q] * es, (size_t)sc[q] * es, ncclUint8, q, nc, c->c),
                     "ncclSend");
        if (rc[q] > 0)
            ec_nc_ok(c, ncclRecv(r + (size_t)rd[q] * es, (size_t)rc[q] * es, ncclUint8, q, nc, c->c),
                     "ncclRecv");
    }
    ec_nc_ok(c, ncclGroupEnd(), "ncclGroupEnd");
    ec_pf_mark(c, 0, c->c);
    compute_after_comm(c, NULL);
    return 0; /* taken, even after a failure: finish reports it, and a
               * fallback to MPI here alone would leave the other ranks waiting */
}

int ec_wait(void *ctx, ls_dist_req *req)
{
    ce *c = ctx;
    if (!req || !req->active)
        return c->status;
    req->active = 0;
    cudaEvent_t ev = req->dev;
    ec_cu_ok(c, cudaStreamWaitEvent(c->cur, ev, 0), "cudaStreamWaitEvent");
    cudaEventDestroy(ev);
    req->dev = NULL;
    return c->status;
}

int ec_reduce_sum(void *ctx, ls_precision p, void *buf, size_t count, int root, MPI_Comm comm)
{
    ce *c = ctx;
    if (count == 0)
        return c->status;
    ncclComm_t nc = c->use_nccl ? nccl_of(c, comm) : NULL;
    if (nc) {
        comm_after_compute(c);
        ec_nc_ok(c,
                 ncclReduce(buf, buf, count, p == LS_DOUBLE ? ncclDouble : ncclFloat, ncclSum, root,
                            nc, c->c),
                 "ncclReduce");
        return compute_after_comm(c, NULL);
    }
    const size_t bytes = count * ec_esz(p);
    int me = 0;
    MPI_Comm_rank(comm, &me);
    void *h = malloc(bytes);
    if (!h) {
        ec_fail(c, LS_ENOMEM, "out of host memory staging a sum (%zu bytes)", bytes);
        return c->status;
    }
    memset(h, 0, bytes);
    if (ec_cu_ok(c, cudaStreamSynchronize(c->cur), "synchronize before a sum"))
        ec_cu_ok(c, cudaMemcpy(h, buf, bytes, cudaMemcpyDeviceToHost), "staging a sum");
    MPI_Datatype t = p == LS_DOUBLE ? MPI_DOUBLE : MPI_FLOAT; /* entered whatever failed */
    if (MPI_Reduce(me == root ? MPI_IN_PLACE : h, me == root ? h : NULL, (int)count, t, MPI_SUM,
                   root, comm) != MPI_SUCCESS)
        ec_fail(c, LS_EINTERNAL, "MPI_Reduce failed");
    else if (me == root && !c->status)
        ec_cu_ok(c, cudaMemcpy(buf, h, bytes, cudaMemcpyHostToDevice), "unstaging a sum");
    free(h);
    return c->status;
}

/* NCCL needs a GPU per rank: true when no two ranks of grid share a
 * (host, device) pair. */
int ec_devices_distinct(MPI_Comm grid, int device)
{
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    unsigned long long key = 1469598103934665603ULL; /* FNV-1a of the host name */
    for (const char *p = host; *p; ++p)
        key = (key ^ (unsigned char)*p) * 1099511628211ULL;
    key = key * 131 + (unsigned long long)device;
    int size = 0, distinct = 1;
    MPI_Comm_size(grid, &size);
    unsigned long long *all = malloc((size_t)size * sizeof *all);
    if (!all)
        return 0;
    MPI_Allgather(&key, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, grid);
    for (int i = 0; i < size && distinct; ++i)
        for (int j = i + 1; j < size && distinct; ++j)
            distinct = all[i] != all[j];
    free(all);
    return distinct;
}

/* Collective over comm: NULL (and no error) for a communicator of one. */
int ec_nccl_comm(ce *c, MPI_Comm comm, ncclComm_t *out)
{
    int size = 0, me = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    *out = NULL;
    if (size < 2)
        return 1;
    ncclUniqueId id;
    if (me == 0 && !ec_nc_ok(c, ncclGetUniqueId(&id), "ncclGetUniqueId"))
        memset(&id, 0, sizeof id);
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm);
    return ec_nc_ok(c, ncclCommInitRank(out, size, id, me), "ncclCommInitRank");
}
