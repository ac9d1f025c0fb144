/* Golden simulator results computed by hand: tiny traces whose every start, finish and
 * preemption under each baseline policy was worked out on paper (the derivations are in the
 * comments), so any change in a policy's semantics shows up as a wrong number. */
#include "simtest.h"

/* Case A, one server with 4 GPUs:
 *   J1 arrives 0, runs 100 s on 2 GPUs; J2 10, 50 s, 4 GPUs; J3 20, 30 s, 1 GPU;
 *   J4 30, 10 s, 2 GPUs. */
static const char *case_a = "job_id,arrival_s,duration_s,num_gpus\n"
                            "J1,0,100,2\n"
                            "J2,10,50,4\n"
                            "J3,20,30,1\n"
                            "J4,30,10,2\n";

struct want {
    const char *id;
    double start, finish;
    int preemptions;
};

static void expect(const struct berth_sim_result *r, const struct want *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct berth_job_result *j = simtest_job(r, w[i].id);
        CHECK(j != NULL);
        if (!j)
            continue;
        if ((double)j->first_start_us / 1e6 != w[i].start ||
            (double)j->finish_us / 1e6 != w[i].finish || j->preemptions != w[i].preemptions)
            fprintf(stderr, "  job %s: start %.6f finish %.6f preemptions %d\n", w[i].id,
                    (double)j->first_start_us / 1e6, (double)j->finish_us / 1e6, j->preemptions);
        CHECK_DBL((double)j->first_start_us / 1e6, w[i].start, 1e-9);
        CHECK_DBL((double)j->finish_us / 1e6, w[i].finish, 1e-9);
        CHECK_I64(j->preemptions, w[i].preemptions);
        CHECK_I64(j->run_us, j->spec->duration_us); /* every job runs exactly its duration */
    }
}

static void run_case(const char *csv, const char *cluster, const char *policy, const struct want *w,
                     size_t n, double avg_jct, double makespan, int preemptions)
{
    struct simtest st;
    struct berth_err err = {0};
    int rc = simtest_run(csv, cluster, policy, NULL, &st, &err);
    CHECK_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    expect(&st.r, w, n);
    CHECK_I64(st.r.summary.completed, n);
    CHECK_DBL(st.r.summary.avg_jct_s, avg_jct, 1e-9);
    CHECK_DBL(st.r.summary.makespan_s, makespan, 1e-9);
    CHECK_I64(st.r.summary.preemptions, preemptions);
    simtest_free(&st);
}

/* fifo (strict): J1 0-100. J2 needs all 4 GPUs and blocks J3 and J4 behind it although they
 * fit. J2 100-150; then J3 150-180 and J4 150-160. JCTs 100,140,160,130: avg 132.5. */
static void fifo_strict(void)
{
    const struct want w[] = {
        {"J1", 0, 100, 0}, {"J2", 100, 150, 0}, {"J3", 150, 180, 0}, {"J4", 150, 160, 0}};
    run_case(case_a, "1x4:v100", "fifo", w, 4, 132.5, 180, 0);
}

/* fifo-skip: J1 0-100 (2 idle). J2 cannot fit; J3 fits at 20 and runs 20-50. J4 at 30 needs
 * 2, only 1 idle. At 50 J4 starts (J2 still does not fit): 50-60. At 100 J2: 100-150.
 * JCTs 100,140,30,30: avg 75. */
static void fifo_skip(void)
{
    const struct want w[] = {
        {"J1", 0, 100, 0}, {"J2", 100, 150, 0}, {"J3", 20, 50, 0}, {"J4", 50, 60, 0}};
    run_case(case_a, "1x4:v100", "fifo-skip", w, 4, 75, 150, 0);
}

/* srtf (key: remaining time, preemptive):
 *  10: J2 (50 left) beats J1 (90 left): J1 preempted, J2 takes all 4 GPUs.
 *  20: J3 (30) beats J2 (40): J2 preempted; J3 takes GPU 0, so J2 cannot get its GPUs back.
 *      J2 (4 GPUs) cannot start (3 idle, no worse job running); J1 (90) fits the 3 idle: starts.
 *  30: J4 (10) needs 2, 1 idle: preempts the worst running job worse than it, J1 (80 left).
 *      J1 and J2 wait.   40: J4 done; J1 (80) fits: starts.   50: J3 done; J2 (40) preempts
 *      J1 (70 left) and runs 50-90.   90: J1 runs its last 70 s: 90-160.
 *  JCTs 160, 80, 30, 10: avg 70; preemptions J1 x3 (10, 30, 50), J2 x1 (20). */
static void srtf(void)
{
    const struct want w[] = {
        {"J1", 0, 160, 3}, {"J2", 10, 90, 1}, {"J3", 20, 50, 0}, {"J4", 30, 40, 0}};
    run_case(case_a, "1x4:v100", "srtf", w, 4, 70, 160, 4);
}

/* las (key: attained GPU-seconds, preemptive, quantum 60 s; a (re)started job runs at
 * least one quantum before it can be preempted):
 *  10: J2 (0 GPU-s) would beat J1 (20), but J1 started at 0 and is protected until 60.
 *  20: J3 fits the 2 idle GPUs: 20-50.   30: J4 needs 2, 1 idle, no victim may be taken.
 *  50: J3 done. J2 (4 GPUs) still finds no preemptible victim; J4 fits the 2 idle: 50-60.
 *  60: J4 done; J1's protection ends: J2 (0) beats J1 (120 GPU-s): J1 preempted, J2 60-110.
 * 110: J1 runs its last 40 s: 110-150.
 *  JCTs 150, 100, 30, 30: avg 77.5; one preemption. */
static void las(void)
{
    const struct want w[] = {
        {"J1", 0, 150, 1}, {"J2", 60, 110, 0}, {"J3", 20, 50, 0}, {"J4", 50, 60, 0}};
    run_case(case_a, "1x4:v100", "las", w, 4, 77.5, 150, 1);
}

/* sjf equals fifo-skip on case A (J3 then J4 are also the shortest); case B below tells
 * them apart. */
static void sjf_case_a(void)
{
    const struct want w[] = {
        {"J1", 0, 100, 0}, {"J2", 100, 150, 0}, {"J3", 20, 50, 0}, {"J4", 50, 60, 0}};
    run_case(case_a, "1x4:v100", "sjf", w, 4, 75, 150, 0);
}

/* Case B, a single GPU: J1 arrives 0 and runs 100 s, J2 1 and 50 s, J3 2 and 10 s. */
static const char *case_b = "job_id,arrival_s,duration_s,num_gpus\n"
                            "J1,0,100,1\n"
                            "J2,1,50,1\n"
                            "J3,2,10,1\n";

/* fifo: 0-100, 100-150, 150-160: JCTs 100, 149, 158. */
static void b_fifo(void)
{
    const struct want w[] = {{"J1", 0, 100, 0}, {"J2", 100, 150, 0}, {"J3", 150, 160, 0}};
    run_case(case_b, "1x1:k80", "fifo", w, 3, 407.0 / 3, 160, 0);
}

/* sjf: J1 0-100, then the shorter J3 100-110, then J2 110-160: JCTs 100, 159, 108. */
static void b_sjf(void)
{
    const struct want w[] = {{"J1", 0, 100, 0}, {"J2", 110, 160, 0}, {"J3", 100, 110, 0}};
    run_case(case_b, "1x1:k80", "sjf", w, 3, 367.0 / 3, 160, 0);
}

/* srtf: J2 preempts J1 at 1, J3 preempts J2 at 2; J3 2-12, J2 12-61, J1 61-160.
 * JCTs 160, 60, 10. */
static void b_srtf(void)
{
    const struct want w[] = {{"J1", 0, 160, 1}, {"J2", 1, 61, 1}, {"J3", 2, 12, 0}};
    run_case(case_b, "1x1:k80", "srtf", w, 3, 230.0 / 3, 160, 2);
}

/* las, quantum 60: J1 starts at 0 and is protected until 60, so J2 and J3 wait. At 60 J2
 * (0) beats J1 (60 GPU-s) and runs its 50 s: 60-110. Then J3 (0) beats J1 (60): 110-120.
 * J1 runs its last 40 s: 120-160. JCTs 160, 109, 118. */
static void b_las(void)
{
    const struct want w[] = {{"J1", 0, 160, 1}, {"J2", 60, 110, 0}, {"J3", 110, 120, 0}};
    run_case(case_b, "1x1:k80", "las", w, 3, 387.0 / 3, 160, 1);
}

/* Case C, heterogeneous and constrained: 1 server of 2 V100 and 1 of 2 K80.
 *   A: 0, 100 s, 2 GPUs, any type -> the first type in cluster order that fits: v100.
 *   B: 0, 50 s, 2 GPUs, must be v100 -> waits for A (100-150), though the K80s are idle.
 *   C: 10, 30 s, 2 GPUs, any type -> the K80s, 10-40.
 * fifo-skip: JCTs 100, 150, 30. Strict fifo holds C behind the blocked B until B starts at
 * 100; then C fits the K80s: 100-130, JCTs 100, 150, 120. */
static const char *case_c = "job_id,arrival_s,duration_s,num_gpus,gpu_type\n"
                            "A,0,100,2,\n"
                            "B,0,50,2,v100\n"
                            "C,10,30,2,\n";

static void c_types(void)
{
    const struct want w[] = {{"A", 0, 100, 0}, {"B", 100, 150, 0}, {"C", 10, 40, 0}};
    run_case(case_c, "1x2:v100,1x2:k80", "fifo-skip", w, 3, 280.0 / 3, 150, 0);
    const struct want s[] = {{"A", 0, 100, 0}, {"B", 100, 150, 0}, {"C", 100, 130, 0}};
    run_case(case_c, "1x2:v100,1x2:k80", "fifo", s, 3, 370.0 / 3, 150, 0);
}

/* Placement is a preference: a 6-GPU gang on 4-GPU servers spans two of them, and the
 * per-job result says how many servers it used. With single_server=1 it could never fit. */
static void c_span(void)
{
    struct simtest st;
    struct berth_err err = {0};
    int rc = simtest_run("job_id,arrival_s,duration_s,num_gpus\nbig,0,10,6\n", "2x4:v100", "fifo",
                         NULL, &st, &err);
    CHECK_I64(rc, 0);
    if (!rc) {
        CHECK_I64(st.r.jobs[0].servers, 2);
        CHECK_DBL(st.r.summary.gpu_util, 0.75, 1e-12); /* 6 of 8 GPUs for the whole span */
        simtest_free(&st);
    }
    rc = simtest_run("job_id,arrival_s,duration_s,num_gpus,single_server\nbig,0,10,6,1\n",
                     "2x4:v100", "fifo", NULL, &st, &err);
    CHECK_I64(rc, BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: column num_gpus: expected at most 4 GPUs");
}

/* The contract's own tiny case: fifo on one GPU, jobs (0, 100) and (10, 50): avg JCT 120 s,
 * makespan 150 s, utilisation 1.0 (the GPU is never idle between first arrival and end). */
static void contract_case(void)
{
    const struct want w[] = {{"1", 0, 100, 0}, {"2", 100, 150, 0}};
    run_case("job_id,arrival_s,duration_s,num_gpus\n1,0,100,1\n2,10,50,1\n", "1x1:v100", "fifo", w,
             2, 120, 150, 0);
}

/* Same-instant events: a completion at t frees GPUs for an arrival at the same t within one
 * pass, and microsecond durations are kept exactly. */
static void same_instant(void)
{
    const struct want w[] = {{"a", 0, 10.000001, 0}, {"b", 10.000001, 12.5, 0}};
    run_case("job_id,arrival_s,duration_s,num_gpus\na,0,10.000001,1\nb,10.000001,2.499999,1\n",
             "1x1:v100", "fifo", w, 2, 6.25, 12.5, 0);
}

/* Case F, fractional GPUs on one server with 2 T4s (fifo-skip):
 *   A 0, 100 s, half a GPU -> GPU 0.   B 0, 50 s, half -> fills GPU 0 (best fit).
 *   C 10, 30 s, 0.6 -> no partly used GPU has room: the idle GPU 1.
 *   D 20, 40 s, 2 whole GPUs -> none wholly idle: waits.   E 20, 10 s, 0.4 -> exactly the
 *   room left on GPU 1: 20-30.   At 40 GPU 1 empties, at 50 B leaves A alone on GPU 0, at 100
 *   both are idle and D runs 100-140. JCTs 100, 50, 30, 120, 10: avg 62.
 *   GPU compute held: 1.0 (0-10), 1.6, 2.0 (20-30), 1.6, 1.0 (40-50), 0.5 (50-100), 2.0
 *   (100-140) = 177 GPU-s of 2 x 140: utilisation 177/280. */
static const char *case_f = "job_id,arrival_s,duration_s,num_gpus,gpu_share\n"
                            "A,0,100,1,0.5\n"
                            "B,0,50,1,0.5\n"
                            "C,10,30,1,0.6\n"
                            "D,20,40,2,\n"
                            "E,20,10,1,0.4\n";

static void f_fractional(void)
{
    const struct want w[] = {
        {"A", 0, 100, 0}, {"B", 0, 50, 0}, {"C", 10, 40, 0}, {"D", 100, 140, 0}, {"E", 20, 30, 0}};
    run_case(case_f, "1x2:t4", "fifo-skip", w, 5, 62, 140, 0);
    struct simtest st;
    struct berth_err err = {0};
    if (simtest_run(case_f, "1x2:t4", "fifo-skip", NULL, &st, &err) == 0) {
        CHECK_DBL(st.r.summary.gpu_util, 177.0 / 280.0, 1e-12);
        simtest_free(&st);
    }
}

/* The same under strict fifo: D (file order before E) blocks E until D has started at 100;
 * then no GPU has room for E until D ends: E 140-150. JCTs 100, 50, 30, 120, 130: avg 86.
 * Compute held: as above but without E's 0.4 in 20-30 and with E's 0.4 in 140-150: 177 of
 * 2 x 150. */
static void f_fractional_strict(void)
{
    const struct want w[] = {{"A", 0, 100, 0},
                             {"B", 0, 50, 0},
                             {"C", 10, 40, 0},
                             {"D", 100, 140, 0},
                             {"E", 140, 150, 0}};
    run_case(case_f, "1x2:t4", "fifo", w, 5, 86, 150, 0);
}

/* Case G, CPU as the binding resource: one server with 4 GPUs and 8 cores (fifo-skip).
 *   P, Q: 0, 100 s, 1 GPU + 3 cores each -> 6 cores used.
 *   R: 0, 50 s, 1 GPU + 3 cores -> 2 cores left: waits although 2 GPUs are idle.
 *   S: 0, 60 s, 1 GPU + 2 cores -> fits: 0-60 (R's shape is blocked, not S's).
 *   At 60 S leaves 2 cores: R still waits. At 100 P and Q leave: R 100-150.
 *   JCTs 100, 100, 150, 60: avg 102.5. */
static void g_cpu(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,cpus\n"
                      "P,0,100,1,3\n"
                      "Q,0,100,1,3\n"
                      "R,0,50,1,3\n"
                      "S,0,60,1,2\n";
    const char *cluster = simtest_write_named(
        "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 4, \"cpus\": 8}]}", ".json");
    const struct want w[] = {
        {"P", 0, 100, 0}, {"Q", 0, 100, 0}, {"R", 100, 150, 0}, {"S", 0, 60, 0}};
    run_case(csv, cluster, "fifo-skip", w, 4, 102.5, 150, 0);
    unlink(cluster);
}

/* Case H, CPU-only jobs beside a GPU job: one server with 2 GPUs and 4 cores (fifo-skip).
 *   C1: 0, 100 s, no GPU, 3 cores -> runs at once, 1 core left.
 *   G:  0, 10 s, 1 GPU + 2 cores -> 1 core left: waits for C1, 100-110.
 *   C2: 0, 50 s, no GPU, 1 core -> fits the last core: 0-50.
 *   JCTs 100, 110, 50: avg 260/3. */
static void h_cpu_only(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,cpus\n"
                      "C1,0,100,0,3\n"
                      "G,0,10,1,2\n"
                      "C2,0,50,0,1\n";
    const char *cluster = simtest_write_named(
        "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 2, \"cpus\": 4}]}", ".json");
    const struct want w[] = {{"C1", 0, 100, 0}, {"G", 100, 110, 0}, {"C2", 0, 50, 0}};
    run_case(csv, cluster, "fifo-skip", w, 3, 260.0 / 3, 110, 0);
    unlink(cluster);
}

/* Case I, GPU memory: one 16,000 MiB GPU shared by fractional jobs (fifo-skip).
 *   A: 0, 100 s, 0.3 of the GPU, 10,000 MiB -> runs.
 *   B: 0, 50 s, 0.3, 8,000 MiB -> compute would fit (0.6) but memory would not (18,000):
 *      waits for A, 100-150.
 *   C: 0, 30 s, 0.3, 6,000 MiB -> fits beside A (16,000 MiB exactly): 0-30.
 *   JCTs 100, 150, 30: avg 280/3. A whole-GPU job asking more memory than any GPU has can
 *   never run and is refused as bad input. */
static void i_gpu_memory(void)
{
    const char *csv = "job_id,arrival_s,duration_s,num_gpus,gpu_share,gpu_mem_mib\n"
                      "A,0,100,1,0.3,10000\n"
                      "B,0,50,1,0.3,8000\n"
                      "C,0,30,1,0.3,6000\n";
    const char *cluster = simtest_write_named(
        "{\"servers\": [{\"gpu_type\": \"t4\", \"gpus\": 1, \"gpu_mem_mib\": 16000}]}", ".json");
    char cpath[80];
    snprintf(cpath, sizeof cpath, "%s", cluster);
    const struct want w[] = {{"A", 0, 100, 0}, {"B", 100, 150, 0}, {"C", 0, 30, 0}};
    run_case(csv, cpath, "fifo-skip", w, 3, 280.0 / 3, 150, 0);
    struct simtest st;
    struct berth_err err = {0};
    int rc = simtest_run("job_id,arrival_s,duration_s,num_gpus,gpu_mem_mib\nbig,0,10,1,20000\n",
                         cpath, "fifo", NULL, &st, &err);
    CHECK_I64(rc, BERTH_EINPUT);
    CHECK_HAS(err.msg, ":2: column gpu_mem_mib: expected at most 16000 MiB");
    unlink(cpath);
}

static const struct check_test tests[] = {
    {"fifo_strict", fifo_strict},
    {"fifo_skip", fifo_skip},
    {"srtf", srtf},
    {"las", las},
    {"sjf_case_a", sjf_case_a},
    {"b_fifo", b_fifo},
    {"b_sjf", b_sjf},
    {"b_srtf", b_srtf},
    {"b_las", b_las},
    {"c_types", c_types},
    {"c_span", c_span},
    {"contract_case", contract_case},
    {"same_instant", same_instant},
    {"f_fractional", f_fractional},
    {"f_fractional_strict", f_fractional_strict},
    {"g_cpu", g_cpu},
    {"h_cpu_only", h_cpu_only},
    {"i_gpu_memory", i_gpu_memory},
};

CHECK_MAIN(tests)
