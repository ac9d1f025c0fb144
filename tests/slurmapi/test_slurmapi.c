/* Unit tests of src/slurmapi without a cluster: Slurm's GRES/TRES strings as 22.05 writes
 * them (copied from scontrol/libslurm output on the mini cluster), the argv script, the
 * restart-failure rule, and the stubs' answer when built without libslurm. The calls
 * against a live cluster are in tests/slurm/slurm_api_test.c (tests/cli_slurm.sh). */
#include <stdlib.h>

#include "check.h"
#include "slurmapi/slurm_api.h"

static void test_node_gres(void)
{
    struct berth__slurm_node n = {.name = "n3"};
    struct berth_err e;
    /* n3 of tests/slurm/cluster.sh: 8 a100 and 800 MPS units; 2 GPUs and 50 MPS in use */
    CHECK_I64(berth__slurm_parse_node_gres("gpu:a100:8(S:0),mps:a100:800(S:0)", false, &n, &e), 0);
    CHECK_I64(
        berth__slurm_parse_node_gres("gpu:a100:2(IDX:0-1),mps:a100:50(0/100,50/100)", true, &n, &e),
        0);
    CHECK_I64(n.n_gpu_types, 1);
    CHECK_STR(n.gpus[0].type, "a100");
    CHECK_I64(n.gpus[0].count, 8);
    CHECK_I64(n.gpus[0].used, 2);
    CHECK_I64(n.mps, 800);
    CHECK_I64(n.mps_used, 50);

    /* two types, untyped count, shards, a non-GPU GRES that is ignored, "(null)" */
    struct berth__slurm_node m = {.name = "x"};
    CHECK_I64(berth__slurm_parse_node_gres("gpu:v100:4,gpu:2,shard:a100:32,nic:1", false, &m, &e),
              0);
    CHECK_I64(berth__slurm_parse_node_gres("(null)", true, &m, &e), 0);
    CHECK_I64(m.n_gpu_types, 2);
    CHECK_STR(m.gpus[0].type, "v100");
    CHECK_I64(m.gpus[0].count, 4);
    CHECK_STR(m.gpus[1].type, "");
    CHECK_I64(m.gpus[1].count, 2);
    CHECK_I64(m.shards, 32);
    CHECK_I64(m.gpus[0].used + m.gpus[1].used + m.shard_gpus_used, 0);

    /* shards in use: 22.05 counts GPUs lending shards, 24.11 counts shards per GPU */
    struct berth__slurm_node s22 = {.name = "s22"}, s24 = {.name = "s24"};
    CHECK_I64(berth__slurm_parse_node_gres("gpu:a100:8,shard:a100:32", false, &s22, &e), 0);
    CHECK_I64(berth__slurm_parse_node_gres(
                  "gpu:a100:0(IDX:N/A),mps:a100:0(IDX:N/A),shard:a100:2(IDX:0-1)", true, &s22, &e),
              0);
    CHECK_I64(s22.shard_gpus_used, 2);
    CHECK_I64(berth__slurm_parse_node_gres("gpu:a100:8,shard:a100:32", false, &s24, &e), 0);
    CHECK_I64(
        berth__slurm_parse_node_gres(
            "gpu:a100:2(IDX:1-2),shard:a100:6(2/4,0/4,4/4,0/4,0/4,0/4,0/4,0/4)", true, &s24, &e),
        0);
    CHECK_I64(s24.shard_gpus_used, 2);
    CHECK_I64(s24.gpus[0].used, 2);
    CHECK_I64(s24.shards, 32);
    /* a breakdown that is not numbers is read as 22.05's count */
    struct berth__slurm_node sx = {.name = "sx"};
    CHECK_I64(berth__slurm_parse_node_gres("shard:a100:32", false, &sx, &e), 0);
    CHECK_I64(berth__slurm_parse_node_gres("shard:a100:3(x/4)", true, &sx, &e), 0);
    CHECK_I64(sx.shard_gpus_used, 3);

    /* bad: a count that is not a number, GPUs in use of a type the node lacks */
    struct berth__slurm_node b = {.name = "b"};
    CHECK_I64(berth__slurm_parse_node_gres("gpu:v100:x4:1", false, &b, &e), BERTH_EINPUT);
    CHECK_HAS(e.msg, "gpu:v100:x4:1");
    CHECK_I64(berth__slurm_parse_node_gres("gpu:k80:1(IDX:0)", true, &n, &e), BERTH_EINPUT);
    CHECK_HAS(e.msg, "not configured");
}

static void test_tres(void)
{
    struct berth__slurm_ask a = {0};
    struct berth_err e;
    /* --gres=gpu:v100:3 --gpus=2 --gpus-per-task=1 as 22.05 stores them */
    CHECK_I64(berth__slurm_parse_tres("gres:gpu:v100:3", 'n', &a, &e), 0);
    CHECK_I64(berth__slurm_parse_tres("gres/gpu=2", 'j', &a, &e), 0);
    CHECK_I64(berth__slurm_parse_tres("cpu:2,gres:gpu:1", 't', &a, &e), 0);
    CHECK_I64(a.gpus_per_node, 3);
    CHECK_I64(a.gpus_per_job, 2);
    CHECK_I64(a.gpus_per_task, 1);
    CHECK_STR(a.gpu_type, "v100");

    struct berth__slurm_ask s = {0};
    CHECK_I64(berth__slurm_parse_tres("gres:shard:3;gres:mps:50", 'n', &s, &e), 0);
    CHECK_I64(s.shards_per_node, 3);
    CHECK_I64(s.mps_per_node, 50);
    CHECK_I64(s.gpus_per_node, 0);
    CHECK_I64(berth__slurm_parse_tres(NULL, 'n', &s, &e), 0);
    CHECK_I64(berth__slurm_parse_tres("gres:gpu:a:b:c", 'n', &s, &e), BERTH_EINPUT);
}

static void test_format_gres(void)
{
    char buf[64];
    struct berth_err e;
    CHECK_I64(berth__slurm_format_gres(buf, sizeof buf, 4, "a100", 0, &e), 0);
    CHECK_STR(buf, "gres:gpu:a100:4");
    CHECK_I64(berth__slurm_format_gres(buf, sizeof buf, 2, NULL, 0, &e), 0);
    CHECK_STR(buf, "gres:gpu:2");
    CHECK_I64(berth__slurm_format_gres(buf, sizeof buf, 0, "", 3, &e), 0);
    CHECK_STR(buf, "gres:shard:3");
    CHECK_I64(berth__slurm_format_gres(buf, sizeof buf, 0, NULL, 0, &e), 0);
    CHECK_STR(buf, "");
    CHECK_I64(berth__slurm_format_gres(buf, sizeof buf, 1, NULL, 1, &e), BERTH_EINPUT);
    CHECK_I64(berth__slurm_format_gres(buf, sizeof buf, 1, "a:b", 0, &e), BERTH_EINPUT);
    CHECK_I64(berth__slurm_format_gres(buf, 8, 1, "a100", 0, &e), BERTH_EINPUT);
}

static void test_argv_script(void)
{
    char buf[128];
    struct berth_err e;
    const char *argv[] = {"python3", "train.py", "--name", "it's", NULL};
    CHECK_I64(berth__slurm_argv_script(buf, sizeof buf, argv, &e), 0);
    CHECK_STR(buf, "#!/bin/sh\nexec 'python3' 'train.py' '--name' 'it'\\''s'\n");
    const char *none[] = {NULL};
    CHECK_I64(berth__slurm_argv_script(buf, sizeof buf, none, &e), BERTH_EINPUT);
    CHECK_I64(berth__slurm_argv_script(buf, 20, argv, &e), BERTH_EINPUT);
    CHECK_HAS(e.msg, "longer than 19 bytes");
}

static void test_failed_restart(void)
{
    struct berth__slurm_job j = {.state = BERTH_SLURM_JOB_FAILED, .restarts = 1};
    j.start_us = 100 * BERTH_US_PER_S;
    j.end_us = j.start_us + 1 * BERTH_US_PER_S; /* failed 1 s after its restart */
    CHECK(berth__slurm_job_failed_restart(&j));
    j.end_us = j.start_us + 60 * BERTH_US_PER_S; /* ran a minute: a real failure */
    CHECK(!berth__slurm_job_failed_restart(&j));
    j.end_us = j.start_us + 1 * BERTH_US_PER_S;
    j.restarts = 0; /* never restarted: a real failure */
    CHECK(!berth__slurm_job_failed_restart(&j));
}

static void test_built(void)
{
    struct berth__slurm *s = NULL;
    struct berth_err e = {0};
    if (berth__slurm_built()) {
        /* a configuration file that does not exist: libslurm cannot reach a controller.
         * slurm_init is process-global, so this is the only open in this program. */
        printf("     (built with libslurm; the live calls run in tests/cli_slurm.sh)\n");
        return;
    }
    CHECK_I64(berth__slurm_open(&s, NULL, &e), BERTH_EUNSUPPORTED);
    CHECK(s == NULL);
    CHECK_HAS(e.msg, "built without libslurm");
    uint32_t id = 1;
    struct berth__slurm_submit sub = {.workdir = "/tmp"};
    CHECK_I64(berth__slurm_submit_held(s, &sub, &id, &e), BERTH_EUNSUPPORTED);
    CHECK_I64(id, 0);
    CHECK_I64(berth__slurm_cancel(s, 1, &e), BERTH_EUNSUPPORTED);
}

/* A job array's indices as Slurm's ranges (berth sweep --slurm submits the cells not done). */
static void test_format_indices(void)
{
    char b[64];
    struct berth_err e = {0};
    const size_t a[] = {0, 1, 2, 3, 5, 9, 10};
    CHECK_I64(berth__slurm_format_indices(b, sizeof b, a, 7, &e), 0);
    CHECK_STR(b, "0-3,5,9-10");
    const size_t one[] = {7};
    CHECK_I64(berth__slurm_format_indices(b, sizeof b, one, 1, &e), 0);
    CHECK_STR(b, "7");
    const size_t bad[] = {3, 2};
    CHECK_I64(berth__slurm_format_indices(b, sizeof b, bad, 2, &e), BERTH_EINTERNAL);
    const size_t many[] = {1, 3, 5, 7, 9, 11, 13, 15};
    CHECK_I64(berth__slurm_format_indices(b, 8, many, 8, &e), BERTH_EINPUT);
    CHECK_HAS(e.msg, "more than 7 bytes");
}

/* An array's pending indices as slurmctld writes them (array_task_str), golden by hand; the
 * throttle is not an index; at most max are taken; a bad range is named. */
static void test_parse_indices(void)
{
    uint32_t idx[16];
    size_t n = 99;
    struct berth_err e = {0};
    CHECK_I64(berth__slurm_parse_indices("0-3,7,10-14:2%2", idx, 16, &n, &e), 0);
    const uint32_t want[] = {0, 1, 2, 3, 7, 10, 12, 14};
    CHECK_I64(n, 8);
    for (size_t i = 0; i < 8 && i < n; i++)
        CHECK_I64(idx[i], want[i]);
    CHECK_I64(berth__slurm_parse_indices("", idx, 16, &n, &e), 0);
    CHECK_I64(n, 0);
    CHECK_I64(berth__slurm_parse_indices("5-100", idx, 4, &n, &e), 0);
    CHECK_I64(n, 4);
    CHECK_I64(idx[3], 8);
    CHECK_I64(berth__slurm_parse_indices("1,x-3", idx, 16, &n, &e), BERTH_EINPUT);
    CHECK_HAS(e.msg, "bad range 'x-3'");
    CHECK_I64(berth__slurm_parse_indices("4-2", idx, 16, &n, &e), BERTH_EINPUT);
    CHECK_I64(berth__slurm_parse_indices("1-3:0", idx, 16, &n, &e), BERTH_EINPUT);
    CHECK_I64(berth__slurm_parse_indices("1,,2", idx, 16, &n, &e), BERTH_EINPUT);
}

/* sbatch's command-line --signal as cli_filter.lua leaves it in the comment: the word
 * berth-signal=VALUE wherever it is; "0@0" and no word are none; a bad value is named. */
static void test_comment_signal(void)
{
    struct berth_err e;
    char sig[16];
    uint32_t lead = 0;
    bool batch = false;
    CHECK_I64(berth__slurm_comment_signal("berth-signal=B:USR1@50 my run", sig, sizeof sig, &lead,
                                          &batch, &e),
              1);
    CHECK_STR(sig, "USR1");
    CHECK_I64(lead, 50);
    CHECK_I64(batch, 1);
    CHECK_I64(
        berth__slurm_comment_signal("a berth-signal=USR2@7", sig, sizeof sig, &lead, &batch, &e),
        1);
    CHECK_STR(sig, "USR2");
    CHECK_I64(lead, 7);
    CHECK_I64(batch, 0);
    CHECK_I64(berth__slurm_comment_signal("berth-signal=0@0", sig, sizeof sig, &lead, &batch, &e),
              0);
    CHECK_I64(berth__slurm_comment_signal("", sig, sizeof sig, &lead, &batch, &e), 0);
    CHECK_I64(berth__slurm_comment_signal(NULL, sig, sizeof sig, &lead, &batch, &e), 0);
    CHECK_I64(berth__slurm_comment_signal("berth:ab12:3", sig, sizeof sig, &lead, &batch, &e), 0);
    CHECK_I64(
        berth__slurm_comment_signal("berth-signal=USR1@x", sig, sizeof sig, &lead, &batch, &e),
        BERTH_EINPUT);
    CHECK_HAS(e.msg, "comment berth-signal: expected [B:]SIG[@SECS], found 'USR1@x'");
}

/* Node lists as Slurm writes them: plain names, bracketed ranges keeping zero padding,
 * several groups; and the malformed ones refused. */
static void test_hostlist(void)
{
    char out[8][BERTH_SLURM_NAME_MAX];
    size_t n = 0;
    struct berth_err e = {0};
    CHECK_I64(berth__slurm_hostlist("n1,n[3-4],gpu[08-10,7]", out, 8, &n, &e), 0);
    CHECK_I64(n, 7);
    if (n == 7) {
        CHECK_STR(out[0], "n1");
        CHECK_STR(out[1], "n3");
        CHECK_STR(out[2], "n4");
        CHECK_STR(out[3], "gpu08");
        CHECK_STR(out[5], "gpu10");
        CHECK_STR(out[6], "gpu7");
    }
    CHECK_I64(berth__slurm_hostlist("", out, 8, &n, &e), 0);
    CHECK_I64(n, 0);
    CHECK_I64(berth__slurm_hostlist("n[1-2", out, 8, &n, &e), BERTH_EINPUT);
    CHECK_I64(berth__slurm_hostlist("n[3-1]", out, 8, &n, &e), BERTH_EINPUT);
    CHECK_I64(berth__slurm_hostlist("n[x]", out, 8, &n, &e), BERTH_EINPUT);
    CHECK_I64(berth__slurm_hostlist("n[1-9]", out, 8, &n, &e), BERTH_EINPUT);
}

static void test_parse_signal(void)
{
    struct berth_err e;
    char sig[16];
    uint32_t lead = 0;
    bool batch = false;
    /* several options on one line; the last --signal counts; sbatch's default lead is 60 */
    CHECK_I64(berth__slurm_parse_signal("#!/bin/sh\n#SBATCH --time=1\n"
                                        "#SBATCH --signal=USR2 --gres=gpu:1\n"
                                        "#SBATCH --signal=B:USR1@50\nsleep 1\n",
                                        sig, sizeof sig, &lead, &batch, &e),
              1);
    CHECK_STR(sig, "USR1");
    CHECK_I64(lead, 50);
    CHECK_I64(batch, 1);
    CHECK_I64(berth__slurm_parse_signal("#SBATCH --signal SIGTERM # why\n", sig, sizeof sig, &lead,
                                        &batch, &e),
              1);
    CHECK_STR(sig, "TERM");
    CHECK_I64(lead, 60);
    CHECK_I64(batch, 0);
    CHECK_I64(
        berth__slurm_parse_signal("#SBATCH --signal=R:10@5\n", sig, sizeof sig, &lead, &batch, &e),
        1);
    CHECK_STR(sig, "10");
    CHECK_I64(lead, 5);
    /* none: no line, or after the first command (sbatch stops reading there) */
    CHECK_I64(berth__slurm_parse_signal("#!/bin/sh\necho hi\n#SBATCH --signal=USR1@9\n", sig,
                                        sizeof sig, &lead, &batch, &e),
              0);
    CHECK_I64(berth__slurm_parse_signal("", sig, sizeof sig, &lead, &batch, &e), 0);
    CHECK_I64(berth__slurm_parse_signal(NULL, sig, sizeof sig, &lead, &batch, &e), 0);
    /* malformed: said, naming the option */
    CHECK_I64(berth__slurm_parse_signal("#SBATCH --signal=B:USR1@x\n", sig, sizeof sig, &lead,
                                        &batch, &e),
              BERTH_EINPUT);
    CHECK(strstr(e.msg, "--signal") != NULL);
    CHECK_I64(
        berth__slurm_parse_signal("#SBATCH --signal=B:@5\n", sig, sizeof sig, &lead, &batch, &e),
        BERTH_EINPUT);
}

static const struct check_test tests[] = {
    {"parse_signal", test_parse_signal},
    {"comment_signal", test_comment_signal},
    {"hostlist", test_hostlist},
    {"format_indices", test_format_indices},
    {"parse_indices", test_parse_indices},
    {"node_gres", test_node_gres},
    {"tres", test_tres},
    {"format_gres", test_format_gres},
    {"argv_script", test_argv_script},
    {"failed_restart", test_failed_restart},
    {"built", test_built},
};

CHECK_MAIN(tests)
