/* berthd's pieces on their own: reading a submission field by field, the journal document
 * round trip (the journal itself: test_journal.c), progress-file tailing (partial and
 * malformed lines), the token file, signal names and the NVML-absent path. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "live/daemon/auth.h"
#include "live/jobs/ljob.h"
#include "live/exec/nvml.h"
#include "live/jobs/report.h"
#include "live/jobs/tally.h"
#include "live/daemon/socket_rule.h"
#include "tmpfile.h"

static struct berth__ljob *submit(const char *body, struct berth_err *err)
{
    json_t *o = json_loads(body, 0, NULL);
    struct berth__ljob *j = NULL;
    if (berth__ljob_from_submit(o, "alice", 1001, 1001, &j, err))
        j = NULL;
    json_decref(o);
    return j;
}

static void test_submit_fields(void)
{
    static const struct {
        const char *body, *field;
    } bad[] = {
        {"{}", "argv: required"},
        {"{\"argv\":\"ls\"}", "argv: expected a non-empty array"},
        {"{\"argv\":[\"\"]}", "argv[0]: expected a program name"},
        {"{\"argv\":[\"a\",2]}", "argv[1]: expected a string"},
        {"{\"argv\":[\"a\"],\"gpus\":1.5}", "gpus: expected a whole number"},
        {"{\"argv\":[\"a\"],\"gpus\":65}", "gpus: expected at most 64"},
        {"{\"argv\":[\"a\"],\"gpus\":2,\"min_gpus\":3}", "min_gpus: expected at most gpus"},
        {"{\"argv\":[\"a\"],\"gpus\":2,\"max_gpus\":1}", "max_gpus: expected at least gpus"},
        {"{\"argv\":[\"a\"],\"gpu_share\":0}", "gpu_share: expected a number"},
        {"{\"argv\":[\"a\"],\"priority\":\"high\"}", "priority: expected a whole number"},
        {"{\"argv\":[\"a\"],\"est_s\":0}", "est_s: expected a number"},
        {"{\"argv\":[\"a\"],\"shell\":1}", "shell: expected true or false"},
        {"{\"argv\":[\"a\",\"b\"],\"shell\":true}", "argv: with shell: true"},
        {"{\"argv\":[\"a\"],\"env\":{\"A=B\":\"x\"}}", "env.A=B: expected a variable name"},
        {"{\"argv\":[\"a\"],\"queue\":7}", "queue: expected a string"},
        {"{\"argv\":[\"a\"],\"gpus\":0,\"max_gpus\":2}", "max_gpus: a CPU-only job"},
        {"{\"argv\":[\"a\"],\"nope\":1}", "nope: unknown field"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct berth_err err = {0};
        CHECK(submit(bad[i].body, &err) == NULL);
        CHECK_I64(err.code, BERTH_EINPUT);
        CHECK_HAS(err.msg, bad[i].field);
    }
    struct berth_err err = {0};
    struct berth__ljob *j = submit("{\"argv\":[\"echo hi\"],\"shell\":true,\"gpus\":1,"
                                   "\"gpu_share\":0.25,\"checkpoint_signal\":\"USR1\","
                                   "\"env\":{\"A\":\"1\"},\"hold\":true}",
                                   &err);
    CHECK(j != NULL);
    if (!j)
        return;
    CHECK_STR(j->argv[0], "/bin/sh");
    CHECK_STR(j->argv[1], "-c");
    CHECK_STR(j->argv[2], "echo hi");
    CHECK(j->argv[3] == NULL);
    CHECK_I64(j->spec.gpu_share_milli, 250);
    CHECK_I64(j->ckpt_sig, SIGUSR1);
    CHECK_I64(j->grace_us, 30 * BERTH_US_PER_S); /* the default */
    CHECK_I64(j->spec.duration_us, 3600 * BERTH_US_PER_S);
    CHECK_STR(j->env[0], "A=1");
    CHECK_STR(j->cwd, "/");
    CHECK_STR(j->name, "echo hi");
    CHECK_I64(j->state, BERTH_L_HELD);
    berth__ljob_free(j);
}

/* The journal document carries everything recovery needs. */
static void test_journal_doc_roundtrip(void)
{
    struct berth_err err = {0};
    struct berth__ljob *j = submit("{\"argv\":[\"train\",\"--lr\",\"0.1\"],\"gpus\":2,"
                                   "\"min_gpus\":1,\"max_gpus\":4,\"gpu_type\":\"a100\","
                                   "\"priority\":5,\"grace_s\":2.5,\"total_steps\":1000,"
                                   "\"queue\":\"q1\",\"cwd\":\"/tmp\"}",
                                   &err);
    CHECK(j != NULL);
    if (!j)
        return;
    berth__ljob_set_id(j, 42);
    snprintf(j->token, sizeof j->token, "abc");
    j->attempt = j->launched = 3;
    j->proc = 1;
    j->then = BERTH_THEN_REQUEUE;
    j->nslots = j->npslots = 2;
    CHECK_I64(berth__ljob_slots(j), 0); /* made when a job first runs */
    j->slots[0] = j->pslots[0] = (struct berth__slot){0, 1};
    j->slots[1] = j->pslots[1] = (struct berth__slot){1, 0};
    CHECK(!berth__ljob_note(j, 7, BERTH_L_RUNNING, "started"));
    json_t *o = berth__ljob_json(j, 1);
    struct berth__ljob *k = NULL;
    CHECK(!berth__ljob_from_journal(o, &k, &err));
    json_decref(o);
    if (k) {
        CHECK_I64(k->id, 42);
        CHECK_STR(k->argv[2], "0.1");
        CHECK_I64(k->spec.num_gpus, 2);
        CHECK_I64(k->spec.min_gpus, 1);
        CHECK_I64(k->spec.max_gpus, 4);
        CHECK_STR(berth_jobspec_extra(&k->spec)->gpu_type, "a100");
        CHECK_STR(k->spec.queue, "q1");
        CHECK_I64(k->spec.priority, 5);
        CHECK_I64(k->spec.total_steps, 1000);
        CHECK_I64(k->grace_us, 2500000);
        CHECK_STR(k->token, "abc");
        CHECK_I64(k->attempt, 3);
        CHECK_I64(k->proc, 1);
        CHECK_I64(k->then, BERTH_THEN_REQUEUE);
        CHECK_I64(k->nslots, 2);
        CHECK_I64(k->slots[1].server, 1);
        CHECK_I64(k->npslots, 2);
        CHECK_I64(k->nhist, 1);
        CHECK_STR(k->hist[0].note, "started");
        CHECK_I64(k->state, BERTH_L_RUNNING);
    }
    berth__ljob_free(k);
    berth__ljob_free(j);
}

/* A journal written by an older berthd (commit 6eb48c2: no time limit, no run time, no array,
 * no dependencies) reads back with those fields at their defaults; and the new fields make
 * the round trip. */
static void test_journal_compat(void)
{
    static const char *old =
        "{\"id\":9,\"name\":\"train\",\"user\":\"alice\",\"state\":\"pending\","
        "\"argv\":[\"train\"],\"cwd\":\"/tmp\",\"gpus\":2,\"min_gpus\":2,\"max_gpus\":2,"
        "\"gpu_type\":\"\",\"job_type\":\"\",\"gpu_share\":1.0,\"gpu_mem_mib\":0,\"queue\":"
        "\"q\",\"priority\":0,\"checkpoint_signal\":\"SIGTERM\",\"grace_s\":30.0,\"est_s\":"
        "3600.0,\"total_steps\":0,\"cpus\":0.0,\"mem_mib\":0,\"single_server\":false,"
        "\"submit_us\":1700000000000000,\"start_us\":null,\"end_us\":null,\"exit_code\":null,"
        "\"exit_signal\":null,\"attempt\":0,\"resume\":false,\"slots\":[],\"progress\":{"
        "\"step\":null,\"metric\":null,\"time_us\":null},\"history\":[{\"time_us\":"
        "1700000000000000,\"state\":\"pending\",\"note\":\"submitted by alice\"}],\"env\":[],"
        "\"uid\":1001,\"gid\":1001,\"token\":\"t\",\"launched\":0,\"then\":0,\"proc\":false,"
        "\"pslots\":[],\"shim_pid\":0,\"shim_start\":0,\"all_slots\":[]}";
    struct berth_err err = {0};
    json_t *o = json_loads(old, 0, NULL);
    struct berth__ljob *k = NULL;
    CHECK(o && !berth__ljob_from_journal(o, &k, &err));
    json_decref(o);
    if (k) {
        CHECK_I64(k->id, 9);
        CHECK_I64(berth_jobspec_extra(&k->spec)->time_limit_us, 0);
        CHECK_I64(k->ran_us, 0);
        CHECK_I64(k->attempt_us, 0);
        CHECK_I64(k->array_id, 0);
        CHECK_I64(k->ndeps, 0);
        CHECK_I64(k->state, BERTH_L_PENDING);
        CHECK_STR(k->spec.queue, "q");
    }
    berth__ljob_free(k);
    struct berth__ljob *j = submit("{\"argv\":[\"x\"],\"time_limit_s\":90.5,\"afterok\":[3,4],"
                                   "\"afterany\":[5]}",
                                   &err);
    CHECK(j != NULL);
    if (!j)
        return;
    berth__ljob_set_id(j, 10);
    j->array_id = 8;
    j->array_task = 2;
    j->array_n = 4;
    j->array_max = 2;
    j->ran_us = 1234567;
    j->attempt_us = 99;
    o = berth__ljob_json(j, 1);
    CHECK(!berth__ljob_from_journal(o, &k, &err));
    json_decref(o);
    if (k) {
        CHECK_I64(berth_jobspec_extra(&k->spec)->time_limit_us, 90500000);
        CHECK_I64(k->ran_us, 1234567);
        CHECK_I64(k->attempt_us, 99);
        CHECK_I64(k->array_id, 8);
        CHECK_I64(k->array_task, 2);
        CHECK_I64(k->array_n, 4);
        CHECK_I64(k->array_max, 2);
        CHECK_I64(k->ndeps, 3);
        CHECK_I64(k->deps[1].job, 4);
        CHECK_I64(k->deps[1].type, BERTH_DEP_OK);
        CHECK_I64(k->deps[2].type, BERTH_DEP_ANY);
    }
    berth__ljob_free(k);
    berth__ljob_free(j);
    /* an array parses into its indices and throttle */
    j = submit("{\"argv\":[\"x\"],\"array\":\"1,3,10-20:5%2\"}", &err);
    CHECK(j && j->narray == 5 && j->array_idx[2] == 10 && j->array_idx[4] == 20 &&
          j->array_max == 2);
    berth__ljob_free(j);
}

/* Lines: a good one, a malformed one (logged as FILE:2), one with a bad step (FILE:3), a good
 * one, then a partial last line that counts only once finished. Work is in steps (100). */
static void test_progress_tail(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth__ljob lj = {0};
    lj.spec.total_steps = 100;
    struct berth__job ej = {0};
    ej.state = BERTH_JOB_RUNNING;
    ej.work = 100;
    char p[200];
    snprintf(p, sizeof p, "%s",
             tmp_write(&t, "progress.jsonl",
                       "{\"step\": 10, \"time\": 1000}\nnot json\n{\"step\": -4}\n"
                       "{\"step\": 30, \"metric\": 0.5, \"time\": 1002}\n{\"step\": 4"));
    char logp[200];
    snprintf(logp, sizeof logp, "%s", tmp_path(&t, "log"));
    FILE *log = fopen(logp, "w+");
    CHECK_I64(berth__report_tail(p, &lj, &ej, 5, log), 2);
    CHECK_I64(lj.step, 30);
    CHECK_DBL(lj.metric, 0.5, 0);
    CHECK_DBL(ej.done, 30, 0);
    /* 20 steps in 2 s: 1e-5 steps per microsecond */
    CHECK_DBL(ej.rate, 20.0 / 2e6, 1e-15);
    CHECK_I64(ej.progress_at, 5);
    CHECK_I64(lj.prog_line, 4);
    FILE *f = fopen(p, "a");
    fputs("5}\n", f);
    fclose(f);
    CHECK_I64(berth__report_tail(p, &lj, &ej, 6, log), 1);
    CHECK_I64(lj.step, 45);
    CHECK_I64(berth__report_tail(p, &lj, &ej, 7, log), 0); /* nothing new */
    char text[600] = "";
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = '\0';
    fclose(log);
    CHECK_HAS(text, "progress.jsonl:2:");
    CHECK_HAS(text, "progress.jsonl:3: progress line skipped: step: expected a whole number");
    tmp_close(&t);
}

static void test_tokens(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth__auth *a = NULL;
    /* single-user mode (berthd is not root): every token names berthd's own account */
    struct berth__account self = {.uid = 4242, .gid = 4343, .name = "alice", .home = "/h"};
    struct berth__auth_opts single = {0, &self, 0};
    CHECK(!berth__auth_load(tmp_write(&t, "tok",
                                      "# users\n0123456789abcdef alice\n"
                                      "fedcba9876543210 alice admin # boss\n"),
                            &single, &a, &err));
    struct berth__caller who = {0};
    CHECK(!berth__auth_user(a, "fedcba9876543210", &who));
    CHECK_STR(who.user, "alice");
    CHECK_I64(who.admin, 1);
    CHECK_I64(who.uid, 4242);
    CHECK(!berth__auth_user(a, "0123456789abcdef", &who));
    CHECK_I64(who.admin, 0);
    CHECK(berth__auth_user(a, "0123456789abcdeg", &who) < 0);
    /* the Unix socket: berthd's own account (or root) only, admin when a token line says */
    CHECK(!berth__auth_peer(a, 4242, &who));
    CHECK_STR(who.user, "alice");
    CHECK_I64(who.local, 1);
    CHECK_I64(who.admin, 1);
    CHECK(berth__auth_peer(a, 4243, &who) < 0);
    CHECK_I64(berth__auth_has_token(a, 4242), 1); /* --socket-requires-token */
    CHECK_I64(berth__auth_has_token(a, 4243), 0);
    berth__auth_free(a);
    a = NULL;
    CHECK(berth__auth_load(tmp_write(&t, "other", "0123456789abcdef bob\n"), &single, &a, &err) ==
          BERTH_EINPUT);
    CHECK_HAS(err.msg, "other:1: user 'bob': berthd runs as 'alice', not root");
    CHECK(berth__auth_load(tmp_write(&t, "bad", "0123456789abcdef alice\nshort alice\n"), &single,
                           &a, &err) == BERTH_EINPUT);
    CHECK_HAS(err.msg, "bad:2: token: expected at least 16 characters");
    CHECK(berth__auth_load(tmp_write(&t, "bad2", "0123456789abcdef alice root\n"), &single, &a,
                           &err) == BERTH_EINPUT);
    CHECK_HAS(err.msg, "bad2:1: expected TOKEN USER [admin]");
    /* multi-user mode: USERs are accounts of this machine (root always is one) */
    struct berth__auth_opts multi = {1, &self, 0};
    CHECK(!berth__auth_load(tmp_write(&t, "multi", "0123456789abcdef root\n"), &multi, &a, &err));
    CHECK(!berth__auth_user(a, "0123456789abcdef", &who));
    CHECK_I64(who.uid, 0);
    CHECK(!berth__auth_peer(a, 0, &who)); /* root on the socket is an admin */
    CHECK_I64(who.admin, 1);
    berth__auth_free(a);
    a = NULL;
    CHECK(berth__auth_load(tmp_write(&t, "nouser", "0123456789abcdef no-such-user-berth\n"), &multi,
                           &a, &err) == BERTH_EINPUT);
    CHECK_HAS(err.msg, "nouser:1: user 'no-such-user-berth' is not a Unix account");
    /* a token file others may read is refused, as ssh and munge refuse theirs */
    struct berth__auth_opts strict = {0, &self, 1};
    const char *loose = tmp_write(&t, "loose", "0123456789abcdef alice\n");
    chmod(loose, 0644);
    CHECK(berth__auth_load(loose, &strict, &a, &err) == BERTH_EINPUT);
    CHECK_HAS(err.msg, "mode 644 lets other accounts read or change it");
    CHECK_HAS(err.msg, "chmod 600");
    char tok[40], tok2[40];
    CHECK(!berth__auth_new_token(tok, sizeof tok));
    CHECK(!berth__auth_new_token(tok2, sizeof tok2));
    CHECK_I64(strlen(tok), 32);
    CHECK(strcmp(tok, tok2) != 0);
    tmp_close(&t);
}

static void test_signals_and_nvml(void)
{
    CHECK_I64(berth__signal_find("SIGTERM"), SIGTERM);
    CHECK_I64(berth__signal_find("usr2"), SIGUSR2);
    CHECK_I64(berth__signal_find("10"), -1); /* numbers differ between architectures */
    CHECK_I64(berth__signal_find("19"), -1);
    CHECK_I64(berth__signal_find("SIGFOO"), -1);
    CHECK_STR(berth__signal_name(SIGUSR1), "SIGUSR1");
    char ty[32];
    struct berth_err err = {0};
    struct berth_cluster *inv = NULL;
    CHECK_I64(berth__nvml_inventory("/nonexistent/libnvidia-ml.so.1", &inv, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "not found");
    static const char *const models[][2] = {{"NVIDIA A100-SXM4-80GB", "a100"},
                                            {"Tesla V100-SXM2-16GB", "v100"},
                                            {"NVIDIA H100 80GB HBM3", "h100"},
                                            {"NVIDIA GeForce RTX 4090", "4090"},
                                            {"Graphics Device", "graphics"}};
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        berth__nvml_type_name(models[i][0], ty, sizeof ty);
        CHECK_STR(ty, models[i][1]);
    }
}

/* The fake NVML library (tests/live/fake_nvml.c): two A100s of 80 GiB, then a T4 of 15 GiB,
 * then two A100s of 40 GiB: consecutive GPUs of one model and memory are one server, so
 * three servers, each GPU's memory known. A GPU whose memory NVML cannot tell is of unknown
 * memory (0), and no driver is an error naming it. */
static void test_nvml_fake(void)
{
    const char *lib = getenv("BERTH_FAKE_NVML_LIB");
    if (!lib) {
        printf("SKIP nvml_fake: BERTH_FAKE_NVML_LIB not set (run through ctest)\n");
        return;
    }
    struct berth_err err = {0};
    setenv("BERTH_FAKE_NVML",
           "NVIDIA A100-SXM4-80GB=81920;NVIDIA A100-SXM4-80GB=81920;Tesla T4=15360;"
           "NVIDIA A100-SXM4-40GB=40960;NVIDIA A100-SXM4-40GB=40960",
           1);
    struct berth__nvml_gpu g[8];
    size_t n = 0;
    CHECK_I64(berth__nvml_gpus(lib, g, 8, &n, &err), 0);
    CHECK_I64(n, 5);
    CHECK_STR(g[2].type, "t4");
    CHECK_I64(g[2].mem_mib, 15360);
    struct berth_cluster *c = NULL;
    CHECK_I64(berth__nvml_inventory(lib, &c, &err), 0);
    CHECK(c != NULL);
    if (c) {
        CHECK_I64(c->nsrv, 3);
        CHECK_I64(c->srv[0].ngpus, 2);
        CHECK_I64(c->srv[0].gpu_mem_mib, 81920);
        CHECK_STR(c->types[c->srv[1].type].name, "t4");
        CHECK_I64(c->srv[1].gpu_mem_mib, 15360);
        CHECK_I64(c->srv[2].ngpus, 2);
        CHECK_I64(c->srv[2].gpu_mem_mib, 40960);
        CHECK(c->has_gpu_mem);
        berth_cluster_free(c);
    }
    setenv("BERTH_FAKE_NVML", "Tesla V100-SXM2-16GB=0", 1); /* memory unknown */
    CHECK_I64(berth__nvml_gpus(lib, g, 8, &n, &err), 0);
    CHECK_I64(g[0].mem_mib, 0);
    CHECK_I64(berth__nvml_gpus(lib, g, 0, &n, &err), BERTH_EIO); /* more than fit */
    CHECK_HAS(err.msg, "found 1 GPUs");
    unsetenv("BERTH_FAKE_NVML"); /* the fake's "driver not loaded" */
    CHECK_I64(berth__nvml_gpus(lib, g, 8, &n, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "nvmlInit failed");
}

/* NVLink islands from NVML's P2P status, through the fake (BERTH_FAKE_NVLINK: group sizes in
 * device order): 8 H100 in two NVLink quads are one server of nvl 4; PCIe only (every GPU
 * its own group) nvl 1; one NVSwitch group of 8, or no answer from NVML (variable unset:
 * the call fails), nvl 0 (one island, the default); groups of 3 and 5, which the model's
 * equal runs cannot hold, nvl 0 as well. Then berth__nvml_server_nvl's hand cases. */
static void test_nvml_nvlink(void)
{
    const char *lib = getenv("BERTH_FAKE_NVML_LIB");
    if (!lib) {
        printf("SKIP nvml_nvlink: BERTH_FAKE_NVML_LIB not set (run through ctest)\n");
        return;
    }
    char eight[8 * 32] = "";
    for (int i = 0; i < 8; i++)
        strcat(eight, i ? ";NVIDIA H100 80GB HBM3=81559" : "NVIDIA H100 80GB HBM3=81559");
    setenv("BERTH_FAKE_NVML", eight, 1);
    static const struct {
        const char *groups; /* NULL: unset */
        int32_t nvl;
    } cases[] = {{"4,4", 4}, {"1,1,1,1,1,1,1,1", 1}, {"8", 0}, {NULL, 0}, {"3,5", 0}, {"2,2,4", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].groups)
            setenv("BERTH_FAKE_NVLINK", cases[i].groups, 1);
        else
            unsetenv("BERTH_FAKE_NVLINK");
        struct berth_err err = {0};
        struct berth_cluster *c = NULL;
        CHECK_I64(berth__nvml_inventory(lib, &c, &err), 0);
        CHECK(c != NULL);
        if (!c)
            continue;
        CHECK_I64(c->nsrv, 1);
        CHECK_I64(c->srv[0].ngpus, 8);
        CHECK_I64(c->srv[0].nvl, cases[i].nvl);
        CHECK_I64(berth_cluster_has_topology(c), cases[i].nvl > 0);
        berth_cluster_free(c);
    }
    unsetenv("BERTH_FAKE_NVLINK");
    unsetenv("BERTH_FAKE_NVML");
    struct berth__nvml_gpu g[6] = {0};
    const int isl[][6] = {{0, 0, 2, 2, 4, 4},
                          {0, 0, 0, 3, 3, 3},
                          {0, 1, 0, 1, 4, 5},
                          {0, 0, 2, 2, 0, 0},
                          {-1, -1, -1, -1, -1, -1}};
    const int32_t want[] = {2, 3, 0, 0, 0};
    for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
        for (int i = 0; i < 6; i++)
            g[i].island = isl[c][i];
        CHECK_I64(berth__nvml_server_nvl(g, 6), want[c]);
    }
    CHECK_I64(berth__nvml_server_nvl(g, 1), 0); /* one GPU: one island */
}

/* Jobs by state and queue: without a queues file, at most BERTH_TALLY_QUEUES names fit for a
 * label, the first seen; the others, odd names and no queue count under _other; a state
 * change moves one count. */
static void test_tally(void)
{
    struct berth__tally t;
    CHECK_I64(berth__tally_init(&t, NULL, 0), 0);
    const uint16_t other = BERTH_TALLY_QUEUES;
    uint16_t a = berth__tally_slot(&t, "research");
    CHECK_I64(a, 0);
    CHECK_I64(berth__tally_slot(&t, "research"), 0);
    CHECK_I64(berth__tally_slot(&t, ""), other);
    CHECK_I64(berth__tally_slot(&t, "a b"), other);    /* a blank */
    CHECK_I64(berth__tally_slot(&t, "q\"x"), other);   /* a quote */
    CHECK_I64(berth__tally_slot(&t, "_other"), other); /* ours */
    CHECK_I64(berth__tally_slot(&t, "x123456789012345678901234567890123"), other);
    char q[16];
    for (int i = 1; i < BERTH_TALLY_QUEUES; i++) {
        snprintf(q, sizeof q, "team-%d", i);
        CHECK_I64(berth__tally_slot(&t, q), i);
    }
    CHECK_I64(berth__tally_slot(&t, "one-too-many"), other); /* full */
    CHECK_STR(berth__tally_name(&t, other), "_other");
    CHECK_STR(berth__tally_name(&t, a), "research");
    berth__tally_move(&t, a, -1, BERTH_L_PENDING);
    berth__tally_move(&t, a, -1, BERTH_L_PENDING);
    berth__tally_move(&t, a, BERTH_L_PENDING, BERTH_L_RUNNING);
    CHECK_I64(t.n[a][BERTH_L_PENDING], 1);
    CHECK_I64(t.n[a][BERTH_L_RUNNING], 1);
    /* a job's state changes move its count (ljob_note) */
    struct berth__ljob j;
    memset(&j, 0, sizeof j);
    j.state = BERTH_L_RUNNING;
    j.tally = &t;
    j.tally_slot = a;
    CHECK_I64(berth__ljob_note(&j, 1, BERTH_L_COMPLETED, "done"), 0);
    CHECK_I64(t.n[a][BERTH_L_RUNNING], 0);
    CHECK_I64(t.n[a][BERTH_L_COMPLETED], 1);
    CHECK_I64(berth__ljob_note(&j, 2, BERTH_L_COMPLETED, "a note, no change"), 0);
    CHECK_I64(t.n[a][BERTH_L_COMPLETED], 1);
    free(j.hist);
    berth__tally_free(&t);
}

/* With a queues file: its queues own the labels, in file order and all of them (20 > 16),
 * whatever came first; an undeclared queue ("*" takes it) and "_other" count under _other;
 * no queue is "default" when the file declares it. */
static void test_tally_declared(void)
{
    char names[22][16];
    const char *decl[22];
    for (int i = 0; i < 20; i++) {
        snprintf(names[i], sizeof names[i], "ops-%d", i);
        decl[i] = names[i];
    }
    decl[20] = "*";
    decl[21] = "default";
    struct berth__tally t;
    CHECK_I64(berth__tally_init(&t, decl, 22), 0);
    CHECK_I64(t.cap, 22);
    CHECK_I64(t.nnames, 21); /* "*" takes none */
    const uint16_t other = 22;
    CHECK_I64(berth__tally_slot(&t, "junk-1"), other); /* a squatter first */
    CHECK_I64(berth__tally_slot(&t, "junk-2"), other);
    CHECK_I64(berth__tally_slot(&t, "ops-0"), 0);
    CHECK_I64(berth__tally_slot(&t, "ops-19"), 19);
    CHECK_STR(berth__tally_name(&t, 19), "ops-19");
    CHECK_I64(berth__tally_slot(&t, ""), 20);
    CHECK_I64(berth__tally_slot(&t, NULL), 20);
    CHECK_STR(berth__tally_name(&t, 20), "default");
    CHECK_I64(berth__tally_slot(&t, "*"), other);
    CHECK_STR(berth__tally_name(&t, other), "_other");
    berth__tally_move(&t, 19, -1, BERTH_L_PENDING);
    berth__tally_move(&t, other, -1, BERTH_L_PENDING);
    CHECK_I64(t.n[19][BERTH_L_PENDING], 1);
    CHECK_I64(t.n[other][BERTH_L_PENDING], 1);
    berth__tally_free(&t);
    /* a file without "default": no queue is _other; "_other" declared takes no slot */
    const char *two[] = {"a", "_other"};
    CHECK_I64(berth__tally_init(&t, two, 2), 0);
    CHECK_I64(t.nnames, 1);
    CHECK_I64(berth__tally_slot(&t, ""), 2);
    CHECK_I64(berth__tally_slot(&t, "_other"), 2);
    berth__tally_free(&t);
}

/* Who may use the Unix socket (socket_rule.h): the list by uid and by group (primary or
 * other), root, berthd's own account and admins always; a token line when asked for. */
static void test_socket_rule(void)
{
    struct berth_err err = {0};
    struct berth__socket_rule *r = NULL;
    CHECK_I64(berth__socket_rule_parse(NULL, 0, &r, &err), 0);
    CHECK(r == NULL); /* nothing narrows: everyone */
    CHECK_I64(berth__socket_rule_check(r, &(struct berth__caller){.uid = 4242}, 0, 1, NULL, 0), 0);
    CHECK_I64(berth__socket_rule_parse(",root", 0, &r, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "--socket-users: expected account names and @groups");
    CHECK_I64(berth__socket_rule_parse("root,@", 0, &r, &err), BERTH_EINPUT);
    CHECK_I64(berth__socket_rule_parse("no-such-user-berth", 0, &r, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "--socket-users: 'no-such-user-berth' is not a Unix account");
    CHECK_I64(berth__socket_rule_parse("@no-such-group-berth", 0, &r, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "--socket-users: @no-such-group-berth: no such group");
    CHECK_I64(berth__socket_rule_parse("root, @root", 0, &r, &err), 0);
    char why[512];
    struct berth__caller who = {.user = "mallory", .uid = 4242, .gid = 4343};
    CHECK_I64(berth__socket_rule_check(r, &who, 1, 1000, why, sizeof why), -1);
    CHECK_HAS(why, "caller: account 'mallory' may not use berthd's Unix socket: it is not in "
                   "--socket-users");
    CHECK_I64(berth__socket_rule_check(r, &who, 0, 4242, why, sizeof why), 0); /* berthd's own */
    who.admin = 1;
    CHECK_I64(berth__socket_rule_check(r, &who, 0, 1000, why, sizeof why), 0); /* an admin */
    who.admin = 0;
    who.gid = 0; /* its primary group is root, listed */
    CHECK_I64(berth__socket_rule_check(r, &who, 0, 1000, why, sizeof why), 0);
    berth__socket_rule_free(r);
    CHECK_I64(berth__socket_rule_parse(NULL, 1, &r, &err), 0); /* a token line needed */
    who.gid = 4343;
    CHECK_I64(berth__socket_rule_check(r, &who, 1, 1000, why, sizeof why), 0);
    CHECK_I64(berth__socket_rule_check(r, &who, 0, 1000, why, sizeof why), -1);
    CHECK_HAS(why, "with --socket-requires-token only accounts a line of the token file names");
    who.uid = 0; /* root is exempt */
    CHECK_I64(berth__socket_rule_check(r, &who, 0, 1000, why, sizeof why), 0);
    berth__socket_rule_free(r);
}

static const struct check_test tests[] = {
    {"tally", test_tally},
    {"tally_declared", test_tally_declared},
    {"socket_rule", test_socket_rule},
    {"submit_fields", test_submit_fields},
    {"journal_doc_roundtrip", test_journal_doc_roundtrip},
    {"journal_compat", test_journal_compat},
    {"progress_tail", test_progress_tail},
    {"tokens", test_tokens},
    {"signals_and_nvml", test_signals_and_nvml},
    {"nvml_fake", test_nvml_fake},
    {"nvml_nvlink", test_nvml_nvlink},
};

CHECK_MAIN(tests)
