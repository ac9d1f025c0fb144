/* Accounting from berthd's job table, which is the journal's content (every job since the
 * state dir was made, restored at start): per job, as sacct gives it (wait, run time,
 * GPU-hours, state, exit), and totals per user, per queue and per GPU type over a window,
 * as sreport gives them. A job counts when its life overlaps the window; its GPU-hours and
 * run time are the part of its running spells inside the window (from its state history;
 * a job's whole run time when its life lies in the window, which stays exact when its
 * history was trimmed). Cost: O(jobs + their history), under the daemon's lock. */
#include <string.h>

#include "live/daemon/acct.h"
#include "live/jobs/journal.h"
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

/* One accounting answer being built: rows for the jobs of ids above after (limit of them at
 * most), totals over every job that matches. */
struct acct {
    const struct berth__acct_query *q;
    berth_us now, a, b;
    json_t *jobs, *by_user, *by_queue, *by_type;
    double tot_gpuh, tot_runh;
    json_int_t n;
    size_t rows;
    uint64_t last; /* the last row's id */
    int more;      /* a matching job past the limit had no row */
};

static void acct_init(struct acct *A, const struct berth__acct_query *q, berth_us now)
{
    *A = (struct acct){.q = q, .now = now, .a = q->since_us};
    A->b = q->until_us > 0 ? q->until_us : now;
    A->jobs = json_array();
    A->by_user = json_object();
    A->by_queue = json_object();
    A->by_type = json_object();
}

/* j counts when it matches; live: the run time of its attempt running now. 0, or -1 when
 * out of memory. */
static int acct_add(struct acct *A, const struct berth__ljob *j, berth_us live)
{
    const struct berth__acct_query *q = A->q;
    berth_us a = A->a, b = A->b, now = A->now;
    if (!j || j->submit_us >= b || (j->end_us && j->end_us <= a) ||
        (q->user && strcmp(q->user, j->user)) || (q->queue && strcmp(q->queue, j->spec.queue)))
        return 0;
    int whole = j->submit_us >= a && j->end_us && j->end_us <= b;
    berth_us run = whole ? j->ran_us + live : run_within(j, a, b, now);
    berth_us started = j->start_us ? j->start_us : 0;
    berth_us waited = (started ? started : (j->end_us ? j->end_us : now)) - j->submit_us;
    double share = j->spec.gpu_share_milli > 0 && j->spec.gpu_share_milli < 1000
                       ? j->spec.gpu_share_milli / 1000.0
                       : 1.0;
    double gpuh = (double)run / 3.6e9 * j->spec.num_gpus * share;
    const char *type = j->ran_type[0] ? j->ran_type : "-";
    const char *queue = j->spec.queue[0] ? j->spec.queue : "default";
    if (j->id > q->after && A->rows >= q->limit) {
        A->more = q->limit > 0; /* limit 0: the totals alone, no page to follow */
    } else if (j->id > q->after) {
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
        if (!A->jobs || !row || json_array_append_new(A->jobs, row))
            return -1;
        A->rows++;
        A->last = j->id;
    }
    double runh = (double)run / 3.6e9, waith = waited > 0 ? (double)waited / 3.6e9 : 0;
    add_total(A->by_user, j->user, gpuh, runh, waith);
    add_total(A->by_queue, queue, gpuh, runh, waith);
    add_total(A->by_type, type, gpuh, runh, waith);
    A->tot_gpuh += gpuh;
    A->tot_runh += runh;
    A->n++;
    return 0;
}

/* The answer (A's parts go into it), or NULL when out of memory. gpus: the cluster's. */
static json_t *acct_end(struct acct *A, size_t gpus)
{
    berth_us a = A->a, b = A->b;
    /* what the cluster could give in the window: its GPUs over the window's length */
    double avail = (double)gpus * (double)(b - a) / 3.6e9;
    json_t *o = json_pack("{s:I,s:I,s:o,s:o,s:{s:I,s:f,s:f,s:f,s:f,s:o,s:o,s:o}}", "since_us",
                          (json_int_t)a, "until_us", (json_int_t)b, "jobs", A->jobs, "next_after",
                          A->more ? json_integer((json_int_t)A->last) : json_null(), "totals",
                          "jobs", A->n, "gpu_hours", A->tot_gpuh, "run_hours", A->tot_runh,
                          "gpu_hours_available", a > 0 ? avail : 0.0, "utilisation",
                          a > 0 && avail > 0 ? A->tot_gpuh / avail : 0.0, "by_user", A->by_user,
                          "by_queue", A->by_queue, "by_gpu_type", A->by_type);
    return o;
}

json_t *berth__daemon_acct(struct berth__daemon *d, const struct berth__acct_query *q)
{
    struct acct A;
    acct_init(&A, q, berth__wall_us());
    for (size_t i = 0; i < d->njobs; i++) {
        const struct berth__ljob *j = d->jobs[i];
        berth_us live =
            j && j->proc && j->attempt_us && A.now > j->attempt_us ? A.now - j->attempt_us : 0;
        if (acct_add(&A, j, live))
            break;
    }
    return acct_end(&A, berth_cluster_gpus(d->cluster));
}

static int from_doc(void *ctx, uint64_t id, const char *doc, struct berth_err *err)
{
    struct acct *A = ctx;
    json_error_t je;
    json_t *o = json_loads(doc, 0, &je);
    struct berth__ljob *j = NULL;
    if (!o || berth__ljob_from_journal(o, &j, err)) {
        json_decref(o);
        return berth_err_set(err, BERTH_EIO, "journal: job %llu: %s", (unsigned long long)id,
                             o ? err->msg : je.text);
    }
    json_decref(o);
    /* its attempt runs now: from its launch (the journal holds no live supervisor) */
    berth_us live = j->state == BERTH_L_RUNNING && j->attempt_us && A->now > j->attempt_us
                        ? A->now - j->attempt_us
                        : 0;
    int rc = acct_add(A, j, live);
    berth__ljob_free(j);
    return rc ? berth_err_set(err, BERTH_ENOMEM, "acct: out of memory") : 0;
}

int berth__daemon_acct_journal(struct berth__daemon *d, const struct berth__acct_query *q,
                               size_t gpus, json_t **out, struct berth_err *err)
{
    struct acct A;
    acct_init(&A, q, berth__wall_us());
    int rc = berth__journal_scan(d->jn, 0, from_doc, &A, err);
    json_t *o = acct_end(&A, gpus);
    if (rc || !o) {
        json_decref(o);
        return rc ? rc : berth_err_set(err, BERTH_ENOMEM, "acct: out of memory");
    }
    *out = o;
    return 0;
}
