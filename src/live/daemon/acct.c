/* Accounting from berthd's job table, which is the journal's content (every job since the
 * state dir was made, restored at start): per job, as sacct gives it (wait, run time,
 * GPU-hours, state, exit), and totals per user, per queue and per GPU type over a window,
 * as sreport gives them. A job counts when its life overlaps the window; its GPU-hours and
 * run time are the part of its running spells inside the window (from its state history;
 * a job's whole run time when its life lies in the window, which stays exact when its
 * history was trimmed). Cost: O(jobs + their history), under the daemon's lock. */
#include <string.h>

#include "live/daemon/daemon.h"
#include "model/cluster.h"

/* The running time of j inside [a, b) from its history's running spells (a spell ends at
 * the next entry in another state, or at now while it runs). */
static berth_us run_within(const struct berth__ljob *j, berth_us a, berth_us b, berth_us now)
{
    berth_us sum = 0, from = -1;
    for (size_t i = 0; i < j->nhist; i++) {
        const struct berth__lhist *h = &j->hist[i];
        if (h->state == BERTH_L_RUNNING && from < 0)
            from = h->t;
        else if (h->state != BERTH_L_RUNNING && from >= 0) {
            berth_us s = from > a ? from : a, e = h->t < b ? h->t : b;
            sum += e > s ? e - s : 0;
            from = -1;
        }
    }
    if (from >= 0) {
        berth_us s = from > a ? from : a, e = now < b ? now : b;
        sum += e > s ? e - s : 0;
    }
    return sum;
}

/* by[name] gains one job of these hours: {"jobs", "gpu_hours", "run_hours", "wait_hours"}. */
static void add_total(json_t *by, const char *name, double gpuh, double runh, double waith)
{
    json_t *t = json_object_get(by, name);
    if (!t) {
        t = json_pack("{s:I,s:f,s:f,s:f}", "jobs", (json_int_t)0, "gpu_hours", 0.0, "run_hours",
                      0.0, "wait_hours", 0.0);
        if (!t || json_object_set_new(by, name, t))
            return;
    }
    json_object_set_new(t, "jobs",
                        json_integer(json_integer_value(json_object_get(t, "jobs")) + 1));
    json_object_set_new(t, "gpu_hours",
                        json_real(json_real_value(json_object_get(t, "gpu_hours")) + gpuh));
    json_object_set_new(t, "run_hours",
                        json_real(json_real_value(json_object_get(t, "run_hours")) + runh));
    json_object_set_new(t, "wait_hours",
                        json_real(json_real_value(json_object_get(t, "wait_hours")) + waith));
}

json_t *berth__daemon_acct(struct berth__daemon *d, const struct berth__acct_query *q)
{
    berth_us now = berth__wall_us();
    berth_us a = q->since_us, b = q->until_us > 0 ? q->until_us : now;
    json_t *jobs = json_array(), *by_user = json_object(), *by_queue = json_object(),
           *by_type = json_object();
    double tot_gpuh = 0, tot_runh = 0;
    json_int_t n = 0;
    for (size_t i = 0; jobs && i < d->njobs; i++) {
        const struct berth__ljob *j = d->jobs[i];
        if (!j || j->submit_us >= b || (j->end_us && j->end_us <= a) ||
            (q->user && strcmp(q->user, j->user)) || (q->queue && strcmp(q->queue, j->spec.queue)))
            continue;
        int whole = j->submit_us >= a && j->end_us && j->end_us <= b;
        berth_us live = j->proc && j->attempt_us && now > j->attempt_us ? now - j->attempt_us : 0;
        berth_us run = whole ? j->ran_us + live : run_within(j, a, b, now);
        berth_us started = j->start_us ? j->start_us : 0;
        berth_us waited = (started ? started : (j->end_us ? j->end_us : now)) - j->submit_us;
        double share = j->spec.gpu_share_milli > 0 && j->spec.gpu_share_milli < 1000
                           ? j->spec.gpu_share_milli / 1000.0
                           : 1.0;
        double gpuh = (double)run / 3.6e9 * j->spec.num_gpus * share;
        const char *type = j->ran_type[0] ? j->ran_type : "-";
        const char *queue = j->spec.queue[0] ? j->spec.queue : "default";
        json_t *row =
            json_pack("{s:I,s:s,s:s,s:s,s:s,s:i,s:s,s:f,s:f,s:f,s:I,s:o,s:o,s:o,s:o}", "id",
                      (json_int_t)j->id, "user", j->user, "queue", queue, "name", j->name, "state",
                      berth__lstate_name(j->state), "gpus", j->spec.num_gpus, "gpu_type", type,
                      "wait_s", waited > 0 ? (double)waited / 1e6 : 0.0, "run_s", (double)run / 1e6,
                      "gpu_hours", gpuh, "submit_us", (json_int_t)j->submit_us, "start_us",
                      started ? json_integer(started) : json_null(), "end_us",
                      j->end_us ? json_integer(j->end_us) : json_null(), "exit_code",
                      j->exit_code >= 0 ? json_integer(j->exit_code) : json_null(), "exit_signal",
                      j->exit_signal >= 0 ? json_integer(j->exit_signal) : json_null());
        if (!row || json_array_append_new(jobs, row))
            break;
        double runh = (double)run / 3.6e9, waith = waited > 0 ? (double)waited / 3.6e9 : 0;
        add_total(by_user, j->user, gpuh, runh, waith);
        add_total(by_queue, queue, gpuh, runh, waith);
        add_total(by_type, type, gpuh, runh, waith);
        tot_gpuh += gpuh;
        tot_runh += runh;
        n++;
    }
    /* what the cluster could give in the window: its GPUs over the window's length */
    double avail = (double)berth_cluster_gpus(d->cluster) * (double)(b - a) / 3.6e9;
    return json_pack("{s:I,s:I,s:o,s:{s:I,s:f,s:f,s:f,s:f,s:o,s:o,s:o}}", "since_us", (json_int_t)a,
                     "until_us", (json_int_t)b, "jobs", jobs, "totals", "jobs", n, "gpu_hours",
                     tot_gpuh, "run_hours", tot_runh, "gpu_hours_available", a > 0 ? avail : 0.0,
                     "utilisation", a > 0 && avail > 0 ? tot_gpuh / avail : 0.0, "by_user", by_user,
                     "by_queue", by_queue, "by_gpu_type", by_type);
}
