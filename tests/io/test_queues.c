/* The queues file (io/queues_load.c): what a good file means, and bad input naming the
 * file, the line and the key for every kind of mistake. */
#include "simtest.h"
#include "model/queues.h"

static int load(const char *text, const char *cluster, struct berth_queues **q,
                struct berth_err *err)
{
    const char *p = simtest_write(text);
    char path[64];
    snprintf(path, sizeof path, "%s", p);
    struct berth_cluster *c = NULL;
    int rc = berth_cluster_parse(cluster, &c, err);
    if (!rc)
        rc = berth_queues_load(path, c, q, err);
    unlink(path);
    berth_cluster_free(c);
    return rc;
}

static void test_good(void)
{
    struct berth_queues *q = NULL;
    struct berth_err err = {0};
    const char *text = "# a lab's queues\n"
                       "queue research cohort=lab quota=v100:8,a100:2 borrow=v100:4 lend=a100:1 "
                       "share=2 max_gpus=12 max_pending=100\n"
                       "\n"
                       "queue prod cohort=lab quota=v100:8.5   # guaranteed\n"
                       "queue * share=0.5\n"
                       "user alice share=3 max_gpus=4\n"
                       "user * max_pending=50\n"
                       "gpu_weight a100=2 v100=1\n";
    CHECK_I64(load(text, "2x8:v100,1x4:a100", &q, &err), 0);
    if (!q)
        return;
    CHECK_I64(q->nq, 3);
    CHECK_I64(q->ncohorts, 1);
    const struct berth__qdef *r = &q->q[0];
    CHECK_STR(r->name, "research");
    CHECK_I64(r->nominal[0], 8000);
    CHECK_I64(r->nominal[1], 2000);
    CHECK_I64(r->borrow[0], 4000);
    CHECK(r->borrow[1] == BERTH_Q_UNLIMITED);
    CHECK(r->lend[0] == BERTH_Q_UNLIMITED);
    CHECK_I64(r->lend[1], 1000);
    CHECK_DBL(r->share, 2, 0);
    CHECK_I64(r->max_gpus, 12000);
    CHECK_I64(r->max_pending, 100);
    CHECK_I64(q->q[1].nominal[0], 8500);
    CHECK_I64(q->q[1].nominal[1], 0); /* a type it does not name: no quota there */
    CHECK_I64(berth__queues_find(q, "prod"), 1);
    CHECK_I64(berth__queues_find(q, "other"), 2); /* "*" */
    CHECK_I64(berth__queues_find(q, ""), 2);      /* "default", not named: "*" */
    CHECK_DBL(berth__queues_user_share(q, "alice"), 3, 0);
    CHECK_DBL(berth__queues_user_share(q, "bob"), 1, 0);
    CHECK_I64(berth__queues_user_max_gpus(q, "alice"), 4000);
    CHECK_I64(berth__queues_user_max_pending(q, "alice"), 50); /* from "*" */
    CHECK_DBL(q->type_weight[1], 2, 0);
    berth_queues_free(q);
    /* one GPU type: a bare number is its quota */
    CHECK_I64(load("queue a quota=3\n", "2x4:v100", &q, &err), 0);
    CHECK_I64(q->q[0].nominal[0], 3000);
    CHECK_I64(berth__queues_find(q, "b"), -1);
    berth_queues_free(q);
}

static void bad(const char *text, const char *want)
{
    struct berth_queues *q = NULL;
    struct berth_err err = {0};
    CHECK_I64(load(text, "2x8:v100,1x4:a100", &q, &err), BERTH_EINPUT);
    CHECK(q == NULL);
    CHECK_HAS(err.msg, want);
}

static void test_bad(void)
{
    bad("queue a quota=8\n", ":1: quota: expected TYPE:N naming the GPU type (the cluster has "
                             "v100, a100), found \"8\"");
    bad("queue a quota=h100:2\n", ":1: quota: expected a GPU type of the cluster (v100, a100)");
    bad("queue a quota=v100:-1\n", ":1: quota: expected TYPE:N with N a number of GPUs >= 0");
    bad("queue a quota=v100:1.0001\n", ":1: quota: expected TYPE:N with N a number");
    bad("queue a quota=v100:1,v100:2\n", ":1: quota: expected each GPU type once");
    bad("\nqueue a quota=v100:1 borrow=v100:1\n",
        ":2: borrow: expected a cohort= on the same line");
    bad("queue a lend=v100:1\n", ":1: lend: expected a quota= on the same line");
    bad("queue a cohort=c quota=v100:1 lend=v100:2\n",
        ":1: lend: expected at most the quota of v100 (1.000 GPUs), found \"2.000\"");
    bad("queue a colour=red\n", ":1: colour: expected a queue key (cohort, quota, borrow, lend, "
                                "share, max_gpus, max_pending)");
    bad("queue a share=0\n", ":1: share: expected a number > 0");
    bad("queue a share=1 share=2\n", ":1: share: expected each key once");
    bad("queue a\nqueue a\n", ":2: queue a: declared twice (line 1)");
    bad("queue a;b\n", ":1: queue: expected a queue name");
    bad("queue\n", ":1: queue: expected a queue name");
    bad("queue a max_pending=1.5\n", ":1: max_pending: expected a whole number from 0");
    bad("user u share=x\n", ":1: share: expected a number > 0");
    bad("user u max_gpus=-2\n", ":1: max_gpus: expected GPUs >= 0");
    bad("user u colour=red\n", ":1: colour: expected a user key (share, max_gpus, max_pending)");
    bad("gpu_weight k80=2\n", ":1: gpu_weight: expected a GPU type of the cluster");
    bad("gpu_weight v100=-1\n", ":1: v100: expected a usage weight from 0 to 1e6");
    bad("partition a\n", ":1: line: expected queue, user or gpu_weight, found \"partition\"");
    bad("# nothing\n", "expected at least one queue or user line, found none");
    struct berth_queues *q = NULL;
    struct berth_err err = {0};
    struct berth_cluster *c = NULL;
    CHECK_I64(berth_cluster_parse("1x1:v100", &c, &err), 0);
    CHECK_I64(berth_queues_load("/nonexistent/queues", c, &q, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "/nonexistent/queues: cannot read");
    berth_cluster_free(c);
    /* a NUL byte is bad input, not a line cut short */
    const char nul[] = "queue a\0 quota=1\n";
    char path[] = "/tmp/berth-q-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, nul, sizeof nul - 1) == (ssize_t)(sizeof nul - 1));
    close(fd);
    CHECK_I64(berth_cluster_parse("1x1:v100", &c, &err), 0);
    CHECK_I64(berth_queues_load(path, c, &q, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, ":1: expected text, found a NUL byte");
    unlink(path);
    berth_cluster_free(c);
}

static const struct check_test tests[] = {
    {"good", test_good},
    {"bad", test_bad},
};

CHECK_MAIN(tests)
