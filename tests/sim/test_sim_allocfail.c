/* Allocation failures in the engine and the simulator (tests/allocfail.h): a short run of a
 * small trace under one policy of each family (fifo, las, tiresias-dlas, gavel-max-min, aryl
 * lending to and reclaiming from an inference pool, goodput with elastic jobs, salus-fifo,
 * specon) and under every other policy of the registry, with the time series and the
 * invariant checks on, then its summary JSON. Every run that hits the armed failure must
 * answer BERTH_ENOMEM and free everything; every run that completes must give the summary of
 * a run without failures, byte for byte.
 *
 * Scale: a run makes a few hundred to a few thousand counted calls (most in the policies'
 * passes), and each point reruns the whole simulation, so the cost grows with the square of
 * the run. Runs of up to 1000 calls are driven at every call; longer ones with a stride that
 * keeps them to about 500 points each way (printed), after the first 200 calls (the engine's,
 * the policy's and the first passes' set-up, where most distinct failure paths are), which
 * are always driven one by one. The families run a 40-job trace (every per-job array grows
 * past its first size), the rest of the registry the 10-job one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/berth.h"
#include "allocfail.h"
#include "check.h"
#include "tmpfile.h"

static struct tmp T;
static struct berth_cluster *cl;
static struct berth_trace *mixed, *small1; /* every family's trace; 1-GPU jobs for Salus */
static struct berth_trace *longer;         /* 40 jobs: the arrays grow past their first size */
static struct berth_tput *model;
static struct berth_infer *demand;

struct sim_case {
    const char *policy;
    const struct berth_trace *t;
    int tput, infer, mode;
    const char *absorbs; /* the policy has a cache it can do without: a run may absorb the
                            failure of this call */
    char *want;          /* the summary of the run without failures */
    const char *placement;
    int stalls; /* the run ends BERTH_ESTALLED (want: its message) */
};

static int run_sim(void *ctx, struct berth_err *err)
{
    struct sim_case *c = ctx;
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = c->policy;
    o.record_series = 1;
    o.check_invariants = 1;
    o.restart_us = 5 * BERTH_US_PER_S;
    o.mode = c->mode;
    o.tput = c->tput ? model : NULL;
    o.infer = c->infer ? demand : NULL;
    o.placement = c->placement;
    struct berth_sim_result r;
    int rc = berth_sim_run(c->t, cl, &o, &r, err);
    if (rc == BERTH_ESTALLED && c->stalls) { /* the stall rule's probes ran and succeeded */
        allocfail_pause(1);
        if (c->want)
            CHECK_STR(err->msg, c->want);
        else
            c->want = strdup(err->msg);
        allocfail_pause(0);
        return 0;
    }
    if (rc || c->stalls)
        return rc ? rc : berth_err_set(err, BERTH_EINTERNAL, "the run did not stall");
    char *js = berth_summary_json(&r, 0);
    if (!js)
        rc = berth_err_set(err, BERTH_ENOMEM, "summary: out of memory");
    allocfail_pause(1);
    if (js && c->want) {
        if (strcmp(js, c->want))
            fprintf(stderr, "  %s: the summary differs from a run without failures:\n  %s\n",
                    c->policy, js);
        CHECK(!strcmp(js, c->want));
    } else if (js)
        c->want = strdup(js);
    allocfail_pause(0);
    free(js);
    berth_sim_result_free(&r);
    return rc;
}

/* Drives one policy: every call when the run is short, else a stride of about calls / 500. */
static void drive(struct sim_case *c)
{
    char name[96];
    snprintf(name, sizeof name, "%s%s", c->policy, c->mode == BERTH_MODE_ROUNDS ? " (rounds)" : "");
    struct allocfail_case a = {name, run_sim, c, 1, 200, 0, c->absorbs};
    /* count the calls of one run first (it also records the summary to compare with) */
    struct berth_err err = {0};
    allocfail_arm(0, 0);
    int rc = run_sim(c, &err);
    long calls = allocfail_disarm();
    if (rc)
        fprintf(stderr, "  %s: %s\n", c->policy, err.msg);
    CHECK_I64(rc, 0);
    if (calls > 1000)
        a.stride = calls / 500;
    allocfail_drive(&a, NULL);
    free(c->want);
    c->want = NULL;
}

static void test_fifo(void)
{
    struct sim_case c = {"fifo", NULL, 0, 0, BERTH_MODE_DES, NULL, NULL, NULL, 0};
    c.t = longer;
    drive(&c);
}

static void test_las(void)
{
    struct sim_case c = {"las", NULL, 0, 0, BERTH_MODE_DES, NULL, NULL, NULL, 0};
    c.t = longer;
    drive(&c);
}

static void test_tiresias(void)
{
    struct sim_case c = {"tiresias-dlas", NULL, 0, 0, BERTH_MODE_DES, NULL, NULL, NULL, 0};
    c.t = longer;
    drive(&c);
}

static void test_gavel(void)
{
    struct sim_case c = {"gavel-max-min", NULL, 1, 0, BERTH_MODE_ROUNDS, NULL, NULL, NULL, 0};
    c.t = longer;
    drive(&c);
}

static void test_aryl(void)
{
    /* aryl caches each job's rates; without room for the cache it computes them each time,
     * so a run may succeed after a failure (and must then give the same summary) */
    struct sim_case c = {"aryl", NULL, 1, 1, BERTH_MODE_DES, "malloc", NULL, NULL, 0};
    c.t = longer;
    drive(&c);
}

static void test_goodput(void)
{
    struct sim_case c = {"goodput", NULL, 1, 0, BERTH_MODE_DES, NULL, NULL, NULL, 0};
    c.t = longer;
    drive(&c);
}

static void test_salus(void)
{
    struct sim_case c = {"salus-fifo", NULL, 0, 0, BERTH_MODE_DES, NULL, NULL, NULL, 0};
    c.t = small1;
    drive(&c);
}

static void test_specon(void)
{
    struct sim_case c = {"specon", NULL, 1, 0, BERTH_MODE_DES, NULL, NULL, NULL, 0};
    c.t = longer;
    drive(&c);
}

/* The stall rule (sim/stall.c): blox-consolidated places a gang only on a server with exactly
 * its count idle, so d (8 GPUs) and others never start; its probes copy the cluster and the
 * placement, and a failure there must be ENOMEM like any other. las asks a pass every quantum
 * (the rule's second pass), blox-fifo stops at the first job it cannot place (the 2000 h
 * bound). */
static void test_stall(void)
{
    struct sim_case c = {"las", NULL, 0, 0, BERTH_MODE_DES, NULL, NULL, "blox-consolidated", 1};
    c.t = mixed;
    drive(&c);
    struct sim_case b = {"blox-fifo",         NULL, 0, 0, BERTH_MODE_DES, NULL, NULL,
                         "blox-consolidated", 1};
    b.t = mixed;
    drive(&b);
}

/* Two training servers of V100s and one of K80s, and an inference pool of two servers. */
static const char cluster_json[] =
    "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"count\": 2, \"pool\": \"training\"},\n"
    "  {\"gpu_type\": \"k80\", \"gpus\": 4, \"pool\": \"training\"},\n"
    "  {\"gpu_type\": \"v100\", \"gpus\": 4, \"count\": 2, \"pool\": \"inference\"}]}\n";

/* Inelastic and elastic jobs, some with steps of classes the built-in model knows, one bound
 * to a GPU type, arriving in two bursts so that queues form and jobs are preempted. */
static const char mixed_csv[] =
    "job_id,arrival_s,duration_s,num_gpus,min_gpus,max_gpus,job_type,total_steps,gpu_type\n"
    "a,0,600,4,,,,,\n"
    "b,0,300,2,1,4,ResNet-18 (batch size 32),20000,\n"
    "c,10,900,1,,,,,\n"
    "d,20,120,8,,,,,\n"
    "e,30,400,2,2,8,ResNet-50 (batch size 32),5000,\n"
    "f,40,60,1,,,,,k80\n"
    "g,600,200,4,,,,,\n"
    "h,610,50,2,,,LM (batch size 20),3000,\n"
    "i,620,700,1,1,2,,,\n"
    "j,630,30,3,,,,,\n";

static const char small1_csv[] = "job_id,arrival_s,duration_s,num_gpus,gpu_mem_mib,job_type\n"
                                 "a,0,100,1,4096,ResNet-18 (batch size 32)\n"
                                 "b,0,200,1,8192,ResNet-50 (batch size 32)\n"
                                 "c,5,50,1,2048,\n"
                                 "d,10,300,1,12000,\n"
                                 "e,20,20,1,1024,\n"
                                 "f,30,80,1,6000,\n";

/* Every other policy of the registry, on the same traces (Salus' on the 1-GPU one). */
static void test_others(void)
{
    static const char *const done[] = {"fifo", "las",     "tiresias-dlas", "gavel-max-min",
                                       "aryl", "goodput", "salus-fifo",    "specon"};
    for (size_t i = 0; i < berth_policy_count(); i++) {
        const char *name = berth_policy_name(i);
        int skip = 0;
        for (size_t k = 0; k < sizeof done / sizeof *done; k++)
            skip |= !strcmp(name, done[k]);
        if (skip)
            continue;
        struct sim_case c = {name, NULL, 1, 0, BERTH_MODE_DES, NULL, NULL, NULL, 0};
        c.t = strncmp(name, "salus-", 6) ? mixed : small1;
        c.infer = !strncmp(name, "aryl", 4);
        c.absorbs = c.infer ? "malloc" : NULL;
        drive(&c);
    }
}

/* 40 jobs of every kind the mixed trace has, in waves (a fixed pattern, no randomness). */
static const char *longer_csv(void)
{
    static char buf[4096];
    static const int gangs[] = {1, 2, 4, 1, 8, 3, 2, 1};
    size_t n = (size_t)snprintf(buf, sizeof buf,
                                "job_id,arrival_s,duration_s,num_gpus,min_gpus,"
                                "max_gpus,job_type,total_steps,gpu_type\n");
    for (int i = 0; i < 40 && n < sizeof buf; i++) {
        int g = gangs[i % 8], elastic = i % 4 == 1, k80 = i % 7 == 3 && g <= 4;
        n += (size_t)snprintf(buf + n, sizeof buf - n, "l%d,%d,%d,%d,%s,%s,%s,%s,%s\n", i,
                              (i / 10) * 400 + (i % 10) * 7, 40 + (i * 97) % 500, g,
                              elastic ? "1" : "", elastic ? "8" : "",
                              elastic ? "ResNet-18 (batch size 32)" : "", elastic ? "9000" : "",
                              k80 ? "k80" : "");
    }
    return buf;
}

static const struct check_test tests[] = {
    {"fifo", test_fifo},   {"las", test_las},       {"tiresias", test_tiresias},
    {"gavel", test_gavel}, {"aryl", test_aryl},     {"goodput", test_goodput},
    {"salus", test_salus}, {"specon", test_specon}, {"others", test_others},
    {"stall", test_stall},
};

int main(int argc, char **argv)
{
    int args = check_args(argc, argv, tests, sizeof tests / sizeof *tests);
    if (args)
        return args < 0 ? 1 : 0;
    allocfail_route_jansson();
    struct berth_err err = {0};
    tmp_open(&T);
    int rc = berth_cluster_parse(tmp_write(&T, "cluster.json", cluster_json), &cl, &err);
    if (!rc)
        rc = berth_trace_load(tmp_write(&T, "mixed.csv", mixed_csv), "native", &mixed, &err);
    if (!rc)
        rc = berth_trace_load(tmp_write(&T, "small1.csv", small1_csv), "native", &small1, &err);
    if (!rc)
        rc = berth_trace_load(tmp_write(&T, "longer.csv", longer_csv()), "native", &longer, &err);
    if (!rc)
        rc = berth_tput_builtin(&model, &err);
    if (!rc)
        rc = berth_infer_open("diurnal:1,0,0.2,30", &demand, &err);
    if (rc) {
        fprintf(stderr, "test_sim_allocfail: %s\n", err.msg);
        return 1;
    }
    rc = check_main(argc, argv, tests, sizeof tests / sizeof *tests);
    berth_infer_free(demand);
    berth_tput_free(model);
    berth_trace_free(small1);
    berth_trace_free(mixed);
    berth_trace_free(longer);
    berth_cluster_free(cl);
    tmp_close(&T);
    return rc;
}
