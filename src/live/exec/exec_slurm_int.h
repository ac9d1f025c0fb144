/* What the slurm executor's files share (private to live/exec/): its state (struct xslurm),
 * the constants more than one file uses, and the calls each file makes of the others. The
 * executor itself is exec_slurm.c; docs/slurm.md has its design. */
#ifndef BERTH_LIVE_EXEC_EXEC_SLURM_INT_H
#define BERTH_LIVE_EXEC_EXEC_SLURM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/exec/exec_local.h"
#include "live/exec/executor.h"
#include "model/cluster.h"
#include "slurmapi/slurm_api.h"

#define ERR_LOG_EVERY (10 * BERTH_US_PER_S) /* an unreachable slurmctld is logged this often */
#define COMMENT       "berth:"              /* comments "berth:TAG:ID" mark berthd's Slurm jobs */
/* an adopted job's Slurm time limit is its --time plus this: berth enforces --time (signal,
 * grace, cancel) before Slurm's checks (every 30 s or so) could race it */
#define SLURM_LIMIT_MARGIN (60 * BERTH_US_PER_S)

struct xslurm {
    const struct berth__exec_host *h;
    const struct berth_cluster *inv; /* the inventory open made (the host's, kept unchanged) */
    struct berth__slurm *s;
    uint32_t *key, *val; /* Slurm job id -> live id (open addressing; UINT32_MAX: refused) */
    size_t cap, n;
    uint64_t gen;                           /* polls that read the job list */
    uint32_t *shards_per_gpu, *mps_per_gpu; /* per server */
    uint32_t kill_wait_s;
    int mapped;   /* the journal's Slurm ids are in the map */
    char tag[24]; /* this berthd's instance (STATE/slurm-instance): comments "berth:TAG:ID" */
    berth_us err_logged;
    /* the last poll, made by slurm_fetch and taken in by slurm_sync */
    int fetched, fetch_rc;
    bool changed;
    struct berth__slurm_job *jobs;
    size_t njobs;
    struct berth_err fetch_err;
    berth_us next_poll, full_at; /* the next poll; the next whole read */
    /* the nodes, read every NODES_EVERY by slurm_prefetch: a node drained, down or not
     * responding is reserved (no placement there) once idle, and given back when it returns */
    struct berth__slurm_node *nodes;
    size_t nnodes;
    int nodes_fetched;
    berth_us nodes_at, nodes_every; /* the next read; --slurm-node-poll */
    berth_us nodes_forced_at;       /* the last read a job Slurm could not start asked for */
    uint8_t *offline;               /* per server: closed by this executor (drained, down) */
    size_t unknown;                 /* Slurm's nodes not in the inventory, at the last read */
    int32_t *outside; /* per server: GPUs Slurm jobs berth did not place hold (held out) */
    int32_t *count;   /* scratch for the same */
    struct berth__slurm_job *later; /* the recovery's list, counted at the next sync (after
                                       the journaled jobs took their GPUs back) */
    /* while recovery's sync reads the job list: the GPUs of each server the journaled
     * attempts hold, and those given to jobs Slurm started while berthd was away (NULL
     * until the first such job, and outside recovery) */
    int recovering;
    uint64_t *rbusy;
    const struct berth__slurm_job *rjobs; /* the list that sync reads */
    size_t nrjobs;
    size_t nlater;
    /* the scope: --slurm-partitions (NULL: all) and the file job_submit.lua reads */
    const char *parts;
    char default_part[BERTH_SLURM_NAME_MAX];
    char scope_path[4200];
    berth_us scope_at, scope_err_logged;
    int comment_refused; /* an admin comment was refused (logged once) */
    /* the array that adopt_array last found not ready, and in which read: its other tasks
     * in the same read are not looked at again */
    uint32_t array_waits;
    uint64_t array_waits_gen;
};

/* exec_slurm.c */
uint32_t berth__xslurm_map_get(const struct xslurm *x, uint32_t key);
int berth__xslurm_map_put(struct xslurm *x, uint32_t key, uint32_t val);
int berth__xslurm_bind(struct xslurm *x, struct berth__ljob *j, uint32_t slurm_id,
                       struct berth_err *err);
void berth__xslurm_decision(struct xslurm *x, const struct berth__ljob *j, const char *what);
void berth__xslurm_try_stop(struct xslurm *x, struct berth__ljob *j, berth_us now);

/* exec_slurm_scope.c */
int berth__xslurm_in_scope(const struct xslurm *x, const char *list);
int berth__xslurm_read_scope(struct xslurm *x, char (**keep)[BERTH_SLURM_NAME_MAX], size_t *nkeep,
                             struct berth_err *err);
int berth__xslurm_in_partitions(const struct xslurm *x, char (*keep)[BERTH_SLURM_NAME_MAX],
                                size_t nkeep, const char *name);
void berth__xslurm_write_scope(struct xslurm *x, berth_us now);

/* exec_slurm_adopt.c */
int berth__xslurm_pick_gpus(struct xslurm *x, const struct berth__ljob *j,
                            const struct berth__slurm_job *sj, struct berth__slot *slots,
                            int32_t *n);
int berth__xslurm_run_as_attempt(struct xslurm *x, struct berth__ljob *j,
                                 const struct berth__slurm_job *sj, const struct berth__slot *slots,
                                 int32_t n, berth_us now);
uint32_t berth__xslurm_claim(struct xslurm *x, const struct berth__slurm_job *sj,
                             const struct berth__slurm_job *jobs, size_t n, berth_us now,
                             struct berth_err *err, int *rc);

/* exec_slurm_nodes.c */
size_t berth__xslurm_server_of(const struct berth_cluster *c, const char *name, size_t i);
void berth__xslurm_apply_nodes(struct xslurm *x);
void berth__xslurm_count_outside(struct xslurm *x, const struct berth__slurm_job *jobs, size_t n);
void berth__xslurm_unstartable(struct xslurm *x, struct berth__ljob *j, berth_us now);

/* exec_slurm_sync.c */
int berth__xslurm_sync(void *self, berth_us now, struct berth_err *err);
void berth__xslurm_prefetch(void *self);

#endif
