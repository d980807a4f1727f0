/* Repeated factorizations and solves replayed as CUDA graphs.
 *
 * A recursive LU of n = 1024 queues about 250 kernels and cuBLAS calls; each
 * costs host time to enqueue and a gap on the device between kernels. A
 * caller who solves the same shape on the same buffers again (a time loop, a
 * benchmark, a Newton iteration) gets the second call captured into a graph
 * and every later one launched as that graph: one launch, no gaps. The first
 * call of a shape runs directly, so a one-off solve never pays the capture.
 * Above the tuning row's graph_max_n every call runs directly: there the
 * launches are a small part of the time and the replayed graph was slower
 * than the direct run (tuning.h).
 *
 * A graph bakes in pointers and shapes, so the key holds all of them, the
 * stream, cuBLAS's math mode, and the generation of the library's own
 * workspaces (a workspace that grows invalidates every graph). The data is
 * read when the graph runs, as it is by a direct call.
 * LS_CUDA_GRAPH=0 turns replay off (for measuring). */
#include "core/knobs.h"
#include "cuda/common/cuda_backend.h"

#include <stdlib.h>
#include <string.h>

#define LSC_GRAPH_SLOTS 8

enum { SEEN = 1, CAPTURED = 2, DIRECT_ONLY = 3 };

typedef struct graph_slot {
    uintptr_t key[LSC_GRAPH_KEY];
    int state;
    unsigned gen;
    unsigned long long last_use;
    cudaGraphExec_t exec;
} graph_slot;

struct lsc_graphs {
    graph_slot slot[LSC_GRAPH_SLOTS];
    unsigned long long tick;
};

static void slot_clear(graph_slot *s)
{
    if (s->exec)
        cudaGraphExecDestroy(s->exec);
    memset(s, 0, sizeof *s);
}

void lsc_graphs_free(ls_cuda_ctx *c)
{
    if (!c->graphs)
        return;
    for (int i = 0; i < LSC_GRAPH_SLOTS; i++)
        slot_clear(&c->graphs->slot[i]);
    free(c->graphs);
    c->graphs = NULL;
}

static int replay_enabled(void)
{
    return ls_knob_int(LS_KNOB_CUDA_GRAPH) != 0;
}

/* The slot holding key (current generation), or the one to reuse for it:
 * an empty slot, else the least recently used. */
static graph_slot *slot_for(struct lsc_graphs *g, const uintptr_t *key, unsigned gen, int *found)
{
    graph_slot *victim = NULL;
    *found = 0;
    for (int i = 0; i < LSC_GRAPH_SLOTS; i++) {
        graph_slot *s = &g->slot[i];
        if (s->state && !memcmp(s->key, key, sizeof s->key)) {
            if (s->gen == gen) {
                *found = 1;
                return s;
            }
            slot_clear(s); /* built over a workspace that has since moved */
        }
    }
    for (int i = 0; i < LSC_GRAPH_SLOTS; i++) {
        graph_slot *s = &g->slot[i];
        if (!victim || !s->state || (victim->state && s->last_use < victim->last_use))
            victim = s;
        if (!s->state)
            break;
    }
    slot_clear(victim);
    return victim;
}

/* fn's work on c->stream captured into s->exec; s->exec stays NULL when it
 * cannot be captured, and then none of it ran. */
static void capture(ls_cuda_ctx *c, graph_slot *s, lsc_enqueue_fn fn, void *arg, char *err,
                    size_t errlen)
{
    cudaGraph_t graph = NULL;
    /* relaxed: a first use inside fn may still allocate or set attributes */
    if (cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    int st = fn(arg, err, errlen);
    cudaError_t e = cudaStreamEndCapture(c->stream, &graph);
    if (st == 0 && e == cudaSuccess && graph &&
        cudaGraphInstantiateWithFlags(&s->exec, graph, cudaGraphInstantiateFlagUseNodePriority) !=
            cudaSuccess)
        s->exec = NULL;
    if (graph)
        cudaGraphDestroy(graph);
    (void)cudaGetLastError();
}

int lsc_graph_run(ls_cuda_ctx *c, int order, const uintptr_t key[LSC_GRAPH_KEY],
                  lsc_enqueue_fn fn, void *arg, char *err, size_t errlen)
{
    int st = 0, found = 0;
    enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    /* a stream the caller is capturing records our kernels into its graph */
    if (!replay_enabled() || order > c->tune->graph_max_n ||
        cudaStreamIsCapturing(c->stream, &cs) != cudaSuccess || cs != cudaStreamCaptureStatusNone) {
        (void)cudaGetLastError();
        return fn(arg, err, errlen);
    }
    if (!c->graphs && !(c->graphs = calloc(1, sizeof *c->graphs)))
        return fn(arg, err, errlen);
    graph_slot *s = slot_for(c->graphs, key, c->ws_gen, &found);
    s->last_use = ++c->graphs->tick;
    if (!found) {
        memcpy(s->key, key, sizeof s->key);
        s->state = SEEN;
        s->gen = c->ws_gen;
        return fn(arg, err, errlen);
    }
    if (s->state == SEEN) {
        capture(c, s, fn, arg, err, errlen);
        s->gen = c->ws_gen; /* what the capture itself allocated is in the graph */
        s->state = s->exec ? CAPTURED : DIRECT_ONLY;
    }
    if (s->state == DIRECT_ONLY) /* or a failed capture: its work never ran */
        return fn(arg, err, errlen);
    LSC_CUDA(cudaGraphLaunch(s->exec, c->stream));
done:
    return st;
}
