/* Accounting (live/daemon/acct.c) by hand on a job table of two jobs, 4 GPUs:
 *   job 1 (alice, queue q, 2 GPUs): submitted at 1000 s, runs 1010-1110, completed;
 *   job 2 (bob, no queue, 1 GPU): submitted at 1050 s, runs 1100-1150, preempted, runs
 *   again 1160-1200, completed.
 * Over all time: job 1 waited 10 s and ran 100 s (its ran_s), 200 GPU-s = 0.0556 GPU-h; job 2
 * waited 50 s and ran 90 s, 0.025 GPU-h. Over [1100, 1200): job 1 ran 10 s of it (20 GPU-s),
 * job 2 all its 90 s; 100 s x 4 GPUs = 0.1111 GPU-h available, used 110 GPU-s: 27.5 %.
 * Over [1200, 1300): neither (both ended at or before 1200). A filter by user or queue
 * keeps its jobs. */
#include <stdlib.h>

#include "check.h"
#include "live/daemon/daemon.h"

#define S(x) ((berth_us)(x)*BERTH_US_PER_S)

static struct berth__ljob *job(uint64_t id, const char *user, const char *queue, int gpus)
{
    struct berth__ljob *j = calloc(1, sizeof *j);
    j->spec.extra = &j->extra;
    j->user = strdup(user);
    j->name = strdup("x");
    j->spec.queue = strdup(queue);
    j->extra.gpu_type = strdup("");
    j->extra.job_type = strdup("");
    j->spec.num_gpus = gpus;
    j->spec.gpu_share_milli = 1000;
    j->exit_code = 0;
    j->exit_signal = -1;
    berth__ljob_set_id(j, id);
    snprintf(j->ran_type, sizeof j->ran_type, "v100");
    return j;
}

static double num(const json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const json_t *v = o;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, (size_t)atoi(k)) : json_object_get(v, k);
    return json_number_value(v);
}

static void test_windows(void)
{
    struct berth_err err = {0};
    struct berth__daemon d = {0};
    CHECK_I64(berth_cluster_parse("1x4:v100", &d.cluster, &err), 0);
    struct berth__ljob *a = job(1, "alice", "q", 2), *b = job(2, "bob", "", 1);
    berth__ljob_note(a, S(1000), BERTH_L_PENDING, "submitted");
    berth__ljob_note(a, S(1010), BERTH_L_RUNNING, "scheduled");
    berth__ljob_note(a, S(1110), BERTH_L_COMPLETED, "exit 0");
    a->submit_us = S(1000), a->start_us = S(1010), a->end_us = S(1110), a->ran_us = S(100);
    berth__ljob_note(b, S(1050), BERTH_L_PENDING, "submitted");
    berth__ljob_note(b, S(1100), BERTH_L_RUNNING, "scheduled");
    berth__ljob_note(b, S(1150), BERTH_L_PENDING, "preempted");
    berth__ljob_note(b, S(1160), BERTH_L_RUNNING, "scheduled");
    berth__ljob_note(b, S(1200), BERTH_L_COMPLETED, "exit 0");
    b->submit_us = S(1050), b->start_us = S(1100), b->end_us = S(1200), b->ran_us = S(90);
    struct berth__ljob *jobs[] = {a, b};
    d.jobs = jobs;
    d.njobs = 2;

    struct berth__acct_query q = {.limit = 100, .since_us = 0, .until_us = S(2000)};
    json_t *o = berth__daemon_acct(&d, &q);
    CHECK(o != NULL);
    CHECK_DBL(num(o, "totals.jobs"), 2, 0);
    CHECK_DBL(num(o, "jobs.0.wait_s"), 10, 1e-9);
    CHECK_DBL(num(o, "jobs.0.run_s"), 100, 1e-9);
    CHECK_DBL(num(o, "jobs.0.gpu_hours"), 200.0 / 3600, 1e-12);
    CHECK_DBL(num(o, "jobs.1.wait_s"), 50, 1e-9);
    CHECK_DBL(num(o, "jobs.1.run_s"), 90, 1e-9);
    CHECK_DBL(num(o, "totals.by_user.alice.gpu_hours"), 200.0 / 3600, 1e-12);
    CHECK_DBL(num(o, "totals.by_queue.default.jobs"), 1, 0);
    CHECK_DBL(num(o, "totals.by_gpu_type.v100.gpu_hours"), 290.0 / 3600, 1e-12);
    json_decref(o);

    q = (struct berth__acct_query){.limit = 100, .since_us = S(1100), .until_us = S(1200)};
    o = berth__daemon_acct(&d, &q);
    CHECK_DBL(num(o, "jobs.0.run_s"), 10, 1e-9);
    CHECK_DBL(num(o, "jobs.0.gpu_hours"), 20.0 / 3600, 1e-12);
    CHECK_DBL(num(o, "jobs.1.run_s"), 90, 1e-9);
    CHECK_DBL(num(o, "totals.gpu_hours"), 110.0 / 3600, 1e-12);
    CHECK_DBL(num(o, "totals.gpu_hours_available"), 400.0 / 3600, 1e-12);
    CHECK_DBL(num(o, "totals.utilisation"), 110.0 / 400, 1e-12);
    json_decref(o);

    q = (struct berth__acct_query){.limit = 100, .since_us = S(1200), .until_us = S(1300)};
    o = berth__daemon_acct(&d, &q);
    CHECK_DBL(num(o, "totals.jobs"), 0, 0);
    json_decref(o);

    q = (struct berth__acct_query){.limit = 100, .user = "bob"};
    o = berth__daemon_acct(&d, &q);
    CHECK_DBL(num(o, "totals.jobs"), 1, 0);
    CHECK_I64(
        json_integer_value(json_object_get(json_array_get(json_object_get(o, "jobs"), 0), "id")),
        2);
    json_decref(o);
    q = (struct berth__acct_query){.limit = 100, .queue = "q"};
    o = berth__daemon_acct(&d, &q);
    CHECK_DBL(num(o, "totals.jobs"), 1, 0);
    json_decref(o);
    berth__ljob_free(a);
    berth__ljob_free(b);
    berth_cluster_free(d.cluster);
}

static const struct check_test tests[] = {
    {"windows", test_windows},
};

CHECK_MAIN(tests)
