/* The cluster's insides, shared by the model, policy and engine layers.
 *
 * Every server of a GPU type sits in exactly one bucket list: the list of servers of that
 * type with exactly f idle GPUs. Placement helpers walk buckets instead of servers, so
 * finding "the tightest server with at least g idle GPUs" costs O(GPUs per server), not
 * O(servers). Idle GPUs of a server are the set bits of free_mask (at most 64 per server). */
#ifndef BERTH_MODEL_CLUSTER_INT_H
#define BERTH_MODEL_CLUSTER_INT_H

#include <stdint.h>

#include "berth/cluster.h"
#include "model/job.h"
#include "util/mem.h"
#include "util/undo.h"

#define BERTH_MAX_SERVER_GPUS 64
#define BERTH_MAX_GPU_TYPES   64 /* a job's allowed types are a 64-bit mask */

/* Per-GPU use by fractional jobs on one server (allocated on first fractional use). */
struct berth__shares {
    uint16_t used[BERTH_MAX_SERVER_GPUS]; /* milli-GPUs held by fractional jobs */
    int64_t mem[BERTH_MAX_SERVER_GPUS];   /* GPU memory (MiB) held by fractional jobs */
    int32_t pos[BERTH_MAX_SERVER_GPUS];   /* index in the type's partial list, -1 if absent */
};

/* A GPU partly used by fractional jobs (0 < used < 1000). */
struct berth__partial {
    uint32_t server;
    uint32_t gpu;
};

struct berth__server {
    uint64_t free_mask;           /* bit i set: GPU i is wholly idle */
    int64_t cpu_milli;            /* CPU capacity in 1/1000 cores, 0 = not modelled */
    int64_t mem_mib;              /* host memory capacity, 0 = not modelled */
    int64_t cpu_free;             /* CPU not reserved by running jobs */
    int64_t mem_free;             /* memory not reserved by running jobs */
    int64_t gpu_mem_mib;          /* memory of each GPU, 0 = not modelled */
    struct berth__shares *shares; /* NULL until a fractional job lands here */
    uint16_t ngpus;
    uint16_t nfree;
    uint16_t type;
    uint8_t reserved;   /* held by its pool's owner (inference): all GPUs busy, no job here */
    uint8_t pinned;     /* reserved and hosting its owner's work (berthd's service replicas):
                           a lending policy must not lend it (the simulator never sets it) */
    uint8_t closed;     /* takes no new work (berthd: a draining node): its GPUs are held out as
                           they free, and its partly used GPUs take no new share */
    uint16_t out_want;  /* GPUs busy with work outside the engine (berth__cluster_hold_out) */
    uint64_t out_mask;  /* GPUs held out of placement with no job of the engine on them: the
                           work outside, or all a closed server's GPUs its jobs do not hold */
    int32_t rack;       /* index into racks, -1 when unknown */
    int32_t block;      /* index of its block (model/topo.h), -1 when unknown */
    int32_t island;     /* its multi-node NVLink domain (model/topo.h), -1: none */
    uint8_t nvl;        /* GPUs per NVLink island inside it, 0: all its GPUs are one */
    int32_t pool;       /* index into pools, -1 when unknown */
    int32_t prev, next; /* links in the bucket (type, nfree); -1 ends */
    uint32_t gen;       /* bumped by every change of what is taken here (a placement's cache) */
    const char *name;
};

/* GPUs per NVLink island inside server v when islands cut it (nvl below its GPUs), else 0:
 * the server is one island. */
static inline int berth__server_nvl(const struct berth__server *v)
{
    return v->nvl && v->nvl < v->ngpus ? v->nvl : 0;
}

/* The wholly idle GPUs of island i of v's islands of nvl GPUs (0 < nvl < 64, as
 * berth__server_nvl gives: below the server's at most 64). */
static inline uint64_t berth__island_free(const struct berth__server *v, int nvl, int i)
{
    return v->free_mask & ((UINT64_C(1) << nvl) - 1) << (i * nvl);
}

struct berth__gputype {
    const char *name;
    int32_t total, free;
    int32_t nservers;
    int32_t max_per_server;
    int32_t *head; /* head[f]: first server with exactly f idle GPUs, or -1; f <= max */
    struct berth__partial *partial; /* GPUs of this type partly used by fractional jobs */
    size_t npartial, partial_cap;
};

struct berth_cluster {
    struct berth__server *srv;
    size_t nsrv;
    struct berth__gputype *types;
    size_t ntypes;
    int32_t total, free; /* GPUs; free = wholly idle */
    int32_t reserved_gpus,
        reserved_servers; /* held by their pool's owner (berth__cluster_reserve) */
    int32_t out_gpus;     /* in the servers' out_mask (berth__cluster_hold_out, _close) */
    int64_t frac_idle;    /* idle milli-GPUs on partly used GPUs (0 < used < 1000) */
    int32_t max_per_server;
    int allow_span;
    int has_cpu_mem;  /* some server models CPU or memory */
    int shares_ready; /* berth__cluster_enable_shares has run */
    int has_gpu_mem;  /* some server gives its GPUs' memory */
    uint32_t *owner;  /* per GPU (s * max_per_server + g): the idx of the whole-GPU job
                         holding it, UINT32_MAX none; NULL until berth__cluster_track_owners
                         (model/alloc.h), not copied by a clone */
    /* While set (a plan's trial, sched/plan.h), every take and give saves the old value of
     * each place it writes here first, so the trial can be taken back exactly: bucket order,
     * masks, counts, owners, shares, CPU and memory. Servers' gen is not saved (it only
     * grows, so a cache keyed by it never mistakes a later state for a rolled-back one). */
    struct berth__undo *undo;
    /* While set (berth__cluster_track_changes): the servers whose idle GPUs changed since
     * the consumer last emptied it, each once (a policy keeps a summary per server). */
    struct berth__changes *changes;
    int32_t nclosed;   /* servers closed (berth__cluster_close) */
    int32_t nout_want; /* servers with work outside the engine (berth__cluster_hold_out) */
    const char **racks;
    size_t nracks;
    struct berth__topo *topo; /* NULL: no topology given (model/topo.h) */
    const char **pools;
    size_t npools;
    struct berth__arena names;
};

/* The servers changed since the list was last emptied (model/cluster.h, changes). */
struct berth__changes {
    uint32_t *list; /* room for every server: each is in it at most once */
    size_t n;
    uint8_t *in; /* per server: in the list */
};

/* Starts keeping c->changes (0, or -1 when out of memory). The consumer empties it with
 * berth__cluster_changes_clear once it has read the list. */
int berth__cluster_track_changes(struct berth_cluster *c);
void berth__cluster_changes_clear(struct berth_cluster *c);

/* Saves lvalue lv of cluster c in its undo log, when one is set. */
#define BERTH__CLUSTER_SAVE(c, lv)                                                                 \
    do {                                                                                           \
        if (__builtin_expect((c)->undo != NULL, 0))                                                \
            berth__undo_save((c)->undo, &(lv), sizeof(lv));                                        \
    } while (0)

/* One server (or `count` alike) as a cluster format describes it, before layout. Strings
 * must outlive the builder: copy them with berth__builder_str. */
struct berth__server_spec {
    const char *type, *name, *rack, *pool; /* type required (lower case); others may be NULL */
    int32_t gpus;                          /* 1..64 (0 allowed: a CPU-only server) */
    int64_t cpu_milli, mem_mib;            /* 0 = not modelled */
    size_t src;                            /* index of the entry in its file, for messages */
    int64_t gpu_mem_mib;                   /* memory of each GPU, 0 = not modelled */
    const char *block, *island;            /* topology (model/topo.h); NULL = none */
    int32_t nvl; /* GPUs per NVLink island inside the server, 0 = one island */
};

struct berth__cluster_builder {
    struct berth__server_spec *p;
    size_t n, cap;
    struct berth__arena names;
    int allow_span; /* 1 unless the format says gangs must stay on one server */
    /* topology shorthand (racks=R,blocks=B,nvl=N: berth__builder_shape); 0 = not given */
    int32_t racks, blocks, nvl;
    /* racks are labels only, not a topology (Tiresias' switches: its simulator places by them
     * but never slows a gang for them, so berth's run of its inputs must not either) */
    int racks_are_labels;
    /* how messages name a server's src: 0 "entry N" (src + 1), 1 "servers[N]" (a JSON
     * cluster file's array), 2 "line N" (a file of lines, src its line) */
    int src_kind;
};
/* Gives the servers added so far racks, blocks and NVLink islands from b->racks, b->blocks
 * and b->nvl (the shorthand's racks=R: R racks of consecutive servers, equal in size within
 * one server; blocks=B: B blocks of consecutive racks, or of servers without racks; nvl=N:
 * islands of N GPUs inside each server when N <= its GPUs (N must divide them), else
 * multi-node NVLink domains of N / G consecutive servers of G GPUs, inside one rack). what
 * names the source in messages. */
int berth__builder_shape(struct berth__cluster_builder *b, const char *what, struct berth_err *err);

void berth__builder_init(struct berth__cluster_builder *b);
void berth__builder_free(struct berth__cluster_builder *b);
int berth__builder_add(struct berth__cluster_builder *b, const struct berth__server_spec *s);
/* Looks for two servers among b->p[from..] with the same name (unnamed ones never clash).
 * Returns 1 with their indices in *first and *dup, 0 when names are unique, -1 when out of
 * memory. Each format words its own message from the entries' src. */
int berth__builder_find_duplicate(const struct berth__cluster_builder *b, size_t from,
                                  size_t *first, size_t *dup);
/* Copies s into the builder's arena (lower-cased when lower); NULL when out of memory. */
const char *berth__builder_str(struct berth__cluster_builder *b, const char *s, int lower);
/* Lays the servers out (types in order of first appearance, all idle). what names the
 * source in messages. */
int berth__builder_build(struct berth__cluster_builder *b, const char *what,
                         struct berth_cluster **out, struct berth_err *err);
/* The largest GPU memory (MiB) among the servers of the types in mask (0: every type), or -1
 * when one of them has GPUs of unknown memory (which take any job). */
int64_t berth__cluster_largest_gpu_mem(const struct berth_cluster *c, uint64_t mask);

/* Adds the servers of the shorthand NxG:type[,NxG:type...] to b. */
int berth__cluster_parse_shorthand(const char *spec, struct berth__cluster_builder *b,
                                   struct berth_err *err);
/* 1 when s[0..n) is a valid GPU type name (letters, digits, '-', '_', '.'; 1..31). */
int berth__cluster_type_name_ok(const char *s, size_t n);

/* The GPU types named by spec ("" = any: mask 0; "a" or "a|b|c": the types of c among them,
 * case-insensitive; names c lacks are ignored). Returns 0, or -1 when spec names types and
 * none of them is in c. */
int berth__cluster_type_mask(const struct berth_cluster *c, const char *spec, uint64_t *mask);

/* A deep copy with its own free-GPU state; NULL when out of memory. */
struct berth_cluster *berth__cluster_clone(const struct berth_cluster *c);

/* Marks the GPUs in mask of server s busy (they must be idle) / idle (they must be busy).
 * One bucket move per call, whatever the number of GPUs. */
void berth__cluster_take_mask(struct berth_cluster *c, uint32_t s, uint64_t mask);
void berth__cluster_give_mask(struct berth_cluster *c, uint32_t s, uint64_t mask);
/* Moves server s to the head of its bucket, as a take and a give-back of the same GPUs
 * would, and nothing else: its idle GPUs, owners and gen stay, so caches keyed by them (the
 * wait rule's ends, the preemption summaries of sched/preempt_pick.c) stay valid. */
void berth__cluster_to_front(struct berth_cluster *c, uint32_t s);
/* Reserves wholly idle server s for its pool's owner (an inference pool that lends servers
 * to training): its GPUs leave the free state, so no placement sees them, and it counts in
 * reserved_gpus, not as busy with jobs. -1 (nothing changed) when s is reserved already or
 * anything on it is in use (GPUs, shares, CPU, memory). */
int berth__cluster_reserve(struct berth_cluster *c, uint32_t s);
/* Gives reserved server s back to the free state (-1 when it is not reserved). */
int berth__cluster_unreserve(struct berth_cluster *c, uint32_t s);
/* Work the engine does not schedule holds n of server s's GPUs (berthd: Slurm jobs berth did
 * not place on a node it shares): n of its idle GPUs leave the free state now, as many as are
 * idle, and GPUs its jobs give back make up the rest; a smaller n gives the excess back. */
void berth__cluster_hold_out(struct berth_cluster *c, uint32_t s, int32_t n);
/* Closes server s to new work (on = 1; berthd: a node starts draining) whatever runs there:
 * its idle GPUs are held out at once and those its jobs give back as they leave, and its
 * partly used GPUs take no new share; on = 0 opens it again (only hold_out's GPUs stay out).
 * Placement, the plan's checks and the engine's invariants see held-out GPUs as busy with no
 * job. The simulator never calls either. */
void berth__cluster_close(struct berth_cluster *c, uint32_t s, int on);
/* The same for an allocation's slots, grouped by server. */
void berth__cluster_take_slots(struct berth_cluster *c, const struct berth__slot *sl, int32_t n);
void berth__cluster_give_slots(struct berth_cluster *c, const struct berth__slot *sl, int32_t n);
/* GPU compute held by jobs in milli-GPUs: every GPU not wholly idle, less the room left on
 * partly used ones. */
static inline int64_t berth__cluster_busy_milli(const struct berth_cluster *c)
{
    return 1000 * (int64_t)(c->total - c->free) - c->frac_idle;
}

/* Re-derives every counter and bucket from the free masks and compares; 0 when consistent,
 * else BERTH_EINTERNAL with the first discrepancy in err. */
int berth__cluster_verify(const struct berth_cluster *c, struct berth_err *err);

#endif
