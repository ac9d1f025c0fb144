/* The slurm executor's view of slurmctld's nodes: a node drained, down or gone is closed to
 * placement and opened when it returns, a node new to berth's partitions restarts berthd,
 * GPUs held by Slurm jobs berth did not place are held out, and a released job whose node
 * closed is held again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/exec/exec_slurm_int.h"

/* The server named name (index i first: the inventory is in Slurm's node order), or
 * nsrv. */
size_t berth__xslurm_server_of(const struct berth_cluster *c, const char *name, size_t i)
{
    if (i < c->nsrv && !strcmp(c->srv[i].name, name))
        return i;
    for (size_t k = 0; k < c->nsrv; k++)
        if (!strcmp(c->srv[k].name, name))
            return k;
    return c->nsrv;
}

/* Closes (away) or opens server sv, saying why. */
static void set_away(struct xslurm *x, size_t sv, int away, const char *state)
{
    const struct berth__exec_host *h = x->h;
    if (away == x->offline[sv])
        return;
    x->offline[sv] = (uint8_t)away;
    h->close_server(h->ctx, (uint32_t)sv, away);
    if (away)
        berth__exec_log(h, "berthd: slurm node %s is %s: nothing new is placed there\n",
                        x->inv->srv[sv].name, state);
    else
        berth__exec_log(h, "berthd: slurm node %s is back (%s)\n", x->inv->srv[sv].name, state);
    h->pass_due(h->ctx);
}

/* Nodes that left or came back (read by berth__xslurm_prefetch, applied under the lock): a node
 * drained (draining too), down, not responding, in an active reservation (berth's jobs name
 * none, so Slurm would not start them there) or gone from Slurm's list (deleted, or state
 * FUTURE) is closed at once, its running jobs left to finish, and opened again when Slurm
 * lists it back. */
/* Slurm lists nodes the inventory lacks (unknown of them; their number changed since the
 * last read): one that is in berth's partitions now (added to Slurm, or to a partition, since
 * berthd started) makes berthd run itself again, which builds the inventory anew (the
 * engine's set of servers is fixed while it runs; recovery re-adopts every job by node name). */
static void nodes_joined(struct xslurm *x, size_t unknown)
{
    const struct berth_cluster *c = x->inv;
    x->unknown = unknown;
    if (!unknown)
        return;
    char(*keep)[BERTH_SLURM_NAME_MAX] = NULL;
    size_t nkeep = 0;
    struct berth_err e = {0};
    if (x->parts && berth__xslurm_read_scope(x, &keep, &nkeep, &e)) {
        berth__exec_log(x->h, "berthd: %s (nodes new to Slurm are not looked at)\n", e.msg);
        x->unknown = 0; /* looked at again when the number changes */
    }
    for (size_t i = 0; !e.code && i < x->nnodes; i++) {
        const char *name = x->nodes[i].name;
        if (berth__xslurm_server_of(c, name, i) < c->nsrv ||
            !berth__xslurm_in_partitions(x, keep, nkeep, name))
            continue; /* berth's already, or Slurm's alone */
        char why[BERTH_SLURM_NAME_MAX + 96];
        snprintf(why, sizeof why, "slurm node %s joined %s%s", name,
                 x->parts ? "partitions " : "the cluster", x->parts ? x->parts : "");
        x->h->restart(x->h->ctx, why);
        break;
    }
    free(keep);
}

void berth__xslurm_apply_nodes(struct xslurm *x)
{
    const struct berth_cluster *c = x->inv;          /* the engine's copy has the same servers */
    memset(x->count, 0, c->nsrv * sizeof *x->count); /* seen in the list */
    size_t unknown = 0;
    for (size_t i = 0; i < x->nnodes; i++) {
        const struct berth__slurm_node *v = &x->nodes[i];
        size_t sv = berth__xslurm_server_of(c, v->name, i);
        if (sv == c->nsrv) {
            unknown++; /* outside berth's partitions, or new: nodes_joined */
            continue;
        }
        x->count[sv] = 1;
        set_away(x, sv,
                 v->state == BERTH_SLURM_NODE_DOWN || v->drain || !v->responding || v->reserved,
                 v->state_name);
    }
    for (size_t s = 0; s < c->nsrv; s++)
        if (!x->count[s])
            set_away(x, s, 1, "gone from Slurm's node list");
    if (unknown != x->unknown)
        nodes_joined(x, unknown);
}

/* GPUs a Slurm job holds on each of its nodes, as far as its request says (a share of a
 * GPU counts as one). */
static uint32_t gpus_per_node(const struct berth__slurm_job *sj, size_t nnodes)
{
    const struct berth__slurm_ask *a = &sj->ask;
    if (a->gpus_per_node)
        return a->gpus_per_node;
    if (a->gpus_per_job)
        return (uint32_t)((a->gpus_per_job + nnodes - 1) / (nnodes ? nnodes : 1));
    if (a->gpus_per_task)
        return a->gpus_per_task;
    return a->shards_per_node || a->mps_per_node;
}

/* The Slurm jobs berth does not schedule that hold GPUs (placed by Slurm: out of berth's
 * partitions, opted out, another berthd's, started while berthd was away): their GPUs are
 * held out of placement on their nodes, so berth's view counts them busy. */
void berth__xslurm_count_outside(struct xslurm *x, const struct berth__slurm_job *jobs, size_t n)
{
    const struct berth__exec_host *h = x->h;
    const struct berth_cluster *c = x->inv;
    char names[BERTH_L_MAX_SLOTS][BERTH_SLURM_NAME_MAX];
    memset(x->count, 0, c->nsrv * sizeof *x->count);
    for (size_t i = 0; i < n; i++) {
        const struct berth__slurm_job *sj = &jobs[i];
        uint32_t lid = berth__xslurm_map_get(x, sj->id);
        int holds = sj->state == BERTH_SLURM_JOB_RUNNING ||
                    sj->state == BERTH_SLURM_JOB_SUSPENDED || sj->completing;
        size_t nn = 0;
        struct berth_err e = {0};
        if (!holds || (lid && lid != UINT32_MAX) ||
            berth__slurm_hostlist(sj->nodes, names, BERTH_L_MAX_SLOTS, &nn, &e))
            continue;
        uint32_t per = gpus_per_node(sj, nn);
        for (size_t k = 0; k < nn && per; k++) {
            size_t sv = berth__xslurm_server_of(c, names[k], c->nsrv);
            if (sv < c->nsrv)
                x->count[sv] += (int32_t)per;
        }
    }
    for (size_t s = 0; s < c->nsrv; s++) {
        if (x->count[s] == x->outside[s])
            continue;
        berth__exec_log(h, "berthd: slurm node %s: %d GPUs busy with jobs berth did not place\n",
                        c->srv[s].name, x->count[s]);
        x->outside[s] = x->count[s];
        h->hold_out(h->ctx, (uint32_t)s, x->count[s]);
        h->pass_due(h->ctx);
    }
}

/* The first node of j's attempt this executor closed (drained, down, gone), or NULL. */
static const char *closed_node(const struct xslurm *x, const struct berth__ljob *j)
{
    for (int32_t i = 0; i < j->npslots; i++)
        if (j->pslots[i].server < x->inv->nsrv && x->offline[j->pslots[i].server])
            return x->inv->srv[j->pslots[i].server].name;
    return NULL;
}

/* A job berth released that Slurm has not started, and cannot start where berth placed it:
 * a node of it closed since (drained, down, gone: the node poll saw it, or Slurm says
 * ReqNodeNotAvail, and then the nodes are read at once). It is held again; once a poll
 * shows it held, poll says it never started, and the loop queues it to be placed again. */
void berth__xslurm_unstartable(struct xslurm *x, struct berth__ljob *j, berth_us now)
{
    if (!j->proc || j->then != BERTH_THEN_FINISH || !j->slurm_id || j->sl_gone || j->sl_unplaced ||
        j->sl_seen_run || j->sl_state != BERTH_SLURM_JOB_PENDING || j->sl_held ||
        j->sl_completing || j->sl_restarts != j->sl_placed_restarts)
        return;
    const char *away = closed_node(x, j);
    if (!away && j->sl_node_na && now - x->nodes_forced_at >= BERTH_US_PER_S) {
        struct berth_err e = {0};
        x->nodes_forced_at = now;
        free(x->nodes);
        x->nodes = NULL;
        if (!berth__slurm_nodes(x->s, &x->nodes, &x->nnodes, &e)) {
            berth__xslurm_apply_nodes(x);
            x->nodes_at = now + x->nodes_every;
        }
        x->nodes_fetched = 0;
        away = closed_node(x, j);
    }
    if (!away)
        return;
    struct berth_err e = {0};
    if (berth__slurm_hold(x->s, j->slurm_id, &e)) {
        berth__exec_log(x->h, "berthd: job %s: %s\n", j->idstr, e.msg);
        return;
    }
    j->sl_unplaced = 1; /* a start that raced the hold shows RUNNING next poll and clears it */
    berth__ljob_note(j, now, j->state,
                     "Slurm was not seen starting Slurm job %u and node %s is closed: held again",
                     j->slurm_id, away);
    char what[BERTH_SLURM_NAME_MAX + 64];
    snprintf(what, sizeof what, "attempt %d not started on closed node %s: held again", j->attempt,
             away);
    berth__xslurm_decision(x, j, what);
    berth__exec_log(x->h, "berthd: job %s: Slurm job %u not started, node %s closed: held again\n",
                    j->idstr, j->slurm_id, away);
}
