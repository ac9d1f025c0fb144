/* Aryl live: berthd's side of capacity loaning (Lyra's inference cluster lending servers to
 * training). The cluster file's "inference" pool belongs to inference: its servers start
 * reserved (nothing of training's is placed there) and an inference manager says, through
 * the API, how many of them inference needs now (the demand). Each pass hands the demand to
 * the policy, as berth sim hands it the --inference series; a lending policy (aryl,
 * aryl-loan) lends what the demand leaves idle and, when the demand rises, reclaims servers
 * with the fewest preemptions (elastic jobs shrink in place). A reclaimed server is free for
 * inference once the processes there have stopped (their checkpoint signal, then grace):
 * that latency, from the demand's rise to enough free servers, is measured here. Policies
 * that do not lend leave the whole pool to inference.
 *
 * The demand survives restarts (STATE/inference-demand, written atomically before the answer);
 * until an inference manager has spoken, inference keeps every server of its pool. Every
 * change of the demand, of the servers reserved or ready, and every end of a shortfall is
 * recorded in memory (the last BERTH_INFER_HIST of them, lost on a restart): the series
 * `berth sim --inference FILE` replays to predict the live run (tests/berthd_diurnal.sh). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "live/daemon/infer.h"
#include "live/daemon/statefile.h"
#include "model/cluster.h"

static int in_pool(const struct berth_cluster *c, size_t s)
{
    int32_t p = c->srv[s].pool;
    return p >= 0 && !strcasecmp(c->pools[p], "inference");
}

/* Reserved for inference and no process of training left on it. */
static int free_for_inference(const struct berth__daemon *d, size_t s)
{
    const struct berth__server *v = &d->engine->cluster->srv[s];
    if (!v->reserved)
        return 0;
    for (int g = 0; g < v->ngpus; g++)
        if (d->drain[s * BERTH_MAX_SERVER_GPUS + (size_t)g])
            return 0;
    return 1;
}

static void demand_path(const struct berth__daemon *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s/inference-demand", d->state_dir);
}

/* Reads the persisted demand: 0 with *servers set, 1 when there is none, or an error. */
static int demand_load(struct berth__daemon *d, int32_t *servers, struct berth_err *err)
{
    char path[4200], buf[64];
    demand_path(d, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 1 : berth_err_set(err, BERTH_EIO, "%s: %s", path, strerror(errno));
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return berth_err_set(err, BERTH_EIO, "%s: %s", path, strerror(errno));
    buf[n] = 0;
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (errno || end == buf || (*end && *end != '\n') || v < 0 || v > d->infer->servers)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s: expected a number of servers 0..%d (the inference pool), "
                             "found '%.20s'",
                             path, d->infer->servers, buf);
    *servers = (int32_t)v;
    return 0;
}

static int demand_store(struct berth__daemon *d, int32_t servers, struct berth_err *err)
{
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%" PRId32 "\n", servers);
    return berth__state_write(d->state_dir, "inference-demand", buf, (size_t)len, err);
}

int berth__daemon_infer_init(struct berth__daemon *d, berth_us now, struct berth_err *err)
{
    struct berth_cluster *c = d->engine->cluster;
    struct berth__infer *in = d->infer;
    free(in->srv);
    free(in->hist);
    memset(in, 0, sizeof *in);
    in->short_since = BERTH_TIME_NONE;
    in->last_reclaim_us = -1;
    /* the pool's servers, listed once: every tick looks at them alone */
    for (size_t s = 0; s < c->nsrv; s++)
        if (in_pool(c, s)) {
            if (!in->srv && !(in->srv = malloc(c->nsrv * sizeof *in->srv)))
                return berth_err_set(err, BERTH_ENOMEM, "inference: out of memory");
            in->srv[in->servers++] = (uint32_t)s;
            in->gpus += c->srv[s].ngpus;
        }
    if (!in->servers) {
        berth__engine_set_infer_demand(d->engine, -1);
        return 0;
    }
    int32_t dem = in->servers;
    int rc = demand_load(d, &dem, err);
    if (rc < 0)
        return rc;
    /* jobs recovery re-adopted on the pool keep running there: those servers count as lent
     * (the policy reclaims them if the demand asks); the idle ones go back to inference */
    for (int32_t i = 0; i < in->servers; i++) {
        uint32_t s = in->srv[i];
        if (!c->srv[s].reserved && c->srv[s].nfree == c->srv[s].ngpus &&
            berth__cluster_reserve(c, s))
            return berth_err_set(err, BERTH_EINTERNAL, "inference: server %s: cannot reserve",
                                 c->srv[s].name);
    }
    in->demand = dem;
    in->since_us = now;
    berth__engine_set_infer_demand(d->engine, dem);
    berth__drive_touch(&d->drive);
    fprintf(d->log, "berthd: inference pool: %d servers (%d GPUs), demand %d\n", in->servers,
            in->gpus, dem);
    return 0;
}

/* Appends the pool's state now to the history when it differs from the last record, or
 * when a shortfall ended (reclaim_us >= 0). Out of memory: nothing is recorded (counted). */
static void hist_add(struct berth__infer *in, berth_us now, berth_us reclaim_us)
{
    if (!in->hist && !(in->hist = calloc(BERTH_INFER_HIST, sizeof *in->hist)))
        return;
    if (in->nhist && reclaim_us < 0) {
        const struct berth__infer_rec *l = &in->hist[(in->nhist - 1) % BERTH_INFER_HIST];
        if (l->demand == in->demand && l->reserved == in->reserved && l->ready == in->ready)
            return;
    }
    in->hist[in->nhist++ % BERTH_INFER_HIST] = (struct berth__infer_rec){
        .t_us = now,
        .demand = in->demand,
        .reserved = in->reserved,
        .ready = in->ready,
        .reclaim_us = reclaim_us,
    };
}

static void infer_tick(struct berth__daemon *d, berth_us now);

int berth__daemon_infer_set(struct berth__daemon *d, int32_t servers, berth_us now,
                            struct berth_err *err)
{
    struct berth__infer *in = d->infer;
    if (!in->servers)
        return berth_err_set(err, BERTH_EINPUT,
                             "demand_servers: this cluster has no server in pool \"inference\"");
    if (servers < 0 || servers > in->servers)
        return berth_err_set(err, BERTH_EINPUT,
                             "demand_servers: %" PRId32 " is not in 0..%d (the inference pool)",
                             servers, in->servers);
    int rc = servers == in->demand ? 0 : demand_store(d, servers, err);
    if (rc)
        return rc;
    infer_tick(d, now); /* the integrals up to now, at the old demand */
    if (servers != in->demand)
        in->changes++;
    in->demand = servers;
    berth__engine_set_infer_demand(d->engine, servers);
    berth__drive_touch(&d->drive); /* the demand moved: a pass now */
    infer_tick(d, now);
    return 0;
}

/* The reclaim latency and the integrals up to now (each tick, and around a demand change). */
static void infer_tick(struct berth__daemon *d, berth_us now)
{
    struct berth__infer *in = d->infer;
    if (!in->servers)
        return;
    const struct berth_cluster *c = d->engine->cluster;
    int32_t reserved = 0, ready = 0, lent_gpus = 0;
    for (int32_t i = 0; i < in->servers; i++) {
        uint32_t s = in->srv[i];
        reserved += c->srv[s].reserved != 0;
        ready += free_for_inference(d, s);
        lent_gpus += c->srv[s].reserved ? 0 : c->srv[s].ngpus;
    }
    if (now > in->since_us) {
        double dt = (double)(now - in->since_us);
        in->lent_gpu_us += (double)lent_gpus * dt;
        if (in->demand > ready)
            in->short_server_us += (double)(in->demand - ready) * dt;
    }
    in->since_us = now;
    in->reserved = reserved;
    in->ready = ready;
    if (in->demand > ready && in->short_since == BERTH_TIME_NONE) {
        in->short_since = now;
        hist_add(in, now, -1);
    } else if (in->demand <= ready && in->short_since != BERTH_TIME_NONE) {
        berth_us took = now - in->short_since;
        in->last_reclaim_us = took;
        in->max_reclaim_us = took > in->max_reclaim_us ? took : in->max_reclaim_us;
        in->reclaims++;
        in->short_since = BERTH_TIME_NONE;
        hist_add(in, now, took);
        fprintf(d->log,
                "berthd: inference: %d servers free for a demand of %d, %.3f s after it "
                "rose\n",
                ready, in->demand, (double)took / 1e6);
    } else {
        hist_add(in, now, -1);
    }
}

static int hook_tick(struct berth__daemon *d, void *self, berth_us now, struct berth_err *err)
{
    (void)self, (void)err;
    infer_tick(d, now);
    return 0;
}

static void hook_free(void *self)
{
    struct berth__infer *in = self;
    free(in->srv);
    free(in->hist);
    free(in);
}

static const struct berth__daemon_hooks hooks = {
    .name = "inference",
    .tick = hook_tick,
    .free = hook_free,
};

int berth__infer_attach(struct berth__daemon *d, struct berth_err *err)
{
    struct berth__infer *in = calloc(1, sizeof *in);
    if (!in)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = berth__daemon_hook(d, &hooks, in, err);
    if (rc)
        free(in);
    else
        d->infer = in;
    return rc;
}
