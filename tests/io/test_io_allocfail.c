/* Allocation failures in the io layer (tests/allocfail.h): every trace format's loader on a
 * small hand-made file (strict, lenient with bad rows, detected), the native writer's round
 * trip, the cluster formats (shorthand, built-in name, JSON, Tiresias, openb, PAI), the
 * throughput models and inference series, the generator and the trace tools. Each scenario
 * fails its 1st, 2nd, ... allocation in turn (every one: they are all small) and must answer
 * BERTH_ENOMEM with a message and free everything; a run that completes must give the same
 * result as one without failures. jansson's allocations are counted too (the cluster JSON,
 * the Philly job log, the stats' JSON). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "berth/berth.h"
#include "berth/trace_tools.h"
#include "allocfail.h"
#include "check.h"
#include "jobspec_eq.h"
#include "tmpfile.h"

static struct tmp T;
static char dir[64]; /* T's folder */

static const char *path_of(const char *name)
{
    static char p[8][200];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

/* ---- trace loaders -------------------------------------------------------------------- */

struct load_case {
    const char *file, *format; /* format NULL: detected */
    int lenient;
    size_t jobs;    /* what the load gives */
    size_t skipped; /* rows left out */
};

static int run_load(void *ctx, struct berth_err *err)
{
    const struct load_case *c = ctx;
    struct berth_load_opts o = {.format = c->format, .lenient = c->lenient};
    struct berth_load_report rep;
    struct berth_trace *t = NULL;
    int rc = berth_trace_load_opts(path_of(c->file), &o, &rep, &t, err);
    if (rc) {
        CHECK(t == NULL);
        return rc;
    }
    allocfail_pause(1);
    CHECK_I64(berth_trace_count(t), c->jobs);
    CHECK_I64(rep.jobs, c->jobs);
    CHECK_I64(rep.skipped, c->skipped);
    allocfail_pause(0);
    berth_trace_free(t);
    return 0;
}

static void drive_load(const char *name, const struct load_case *c)
{
    struct allocfail_case a = {name, run_load, (void *)c, 1, 0, 0, NULL};
    allocfail_drive(&a, NULL);
}

static void test_native(void)
{
    static const struct load_case strict = {"native.csv", "native", 0, 4, 0};
    static const struct load_case auto_ = {"native.csv", NULL, 0, 4, 0};
    static const struct load_case lenient = {"native-bad.csv", "native", 1, 2, 3};
    static const struct load_case big = {"native-big.csv", "native", 0, 300, 0};
    drive_load("native", &strict);
    drive_load("native 300 rows, 75 kB of names", &big);
    drive_load("native detected", &auto_);
    drive_load("native lenient", &lenient);
}

static void test_philly_pollux(void)
{
    static const struct load_case c = {"philly-pollux.csv", "philly-pollux", 0, 3, 0};
    drive_load("philly-pollux", &c);
}

static void test_gavel(void)
{
    static const struct load_case c = {"gavel.trace", "gavel", 0, 3, 0};
    static const struct load_case d = {"gavel.trace", NULL, 0, 3, 0};
    drive_load("gavel", &c);
    drive_load("gavel detected", &d);
}

static void test_helios(void)
{
    static const struct load_case c = {"helios.csv", "helios", 0, 2, 1};
    drive_load("helios", &c);
}

static void test_acme(void)
{
    static const struct load_case c = {"acme.csv", "acme", 0, 2, 1};
    drive_load("acme", &c);
}

static void test_philly(void)
{
    static const struct load_case c = {"cluster_job_log", "philly", 0, 2, 1};
    drive_load("philly job log", &c);
}

static void test_tiresias(void)
{
    static const struct load_case c = {"60_job.csv", "tiresias", 0, 3, 0};
    drive_load("tiresias", &c);
}

static void test_pollux(void)
{
    static const struct load_case c = {"workload-1.csv", "pollux", 0, 2, 0};
    drive_load("pollux", &c);
}

static void test_openb(void)
{
    static const struct load_case c = {"openb_pod_list.csv", "openb", 0, 3, 0};
    drive_load("openb", &c);
}

static void test_pai2020(void)
{
    static const struct load_case c = {"pai", "pai2020", 0, 2, 1};
    drive_load("pai2020", &c);
}

/* ---- the native writer's round trip --------------------------------------------------- */

struct roundtrip {
    const struct berth_trace *src;
    FILE *out; /* opened before: the scenario rewrites it */
};

static int run_roundtrip(void *ctx, struct berth_err *err)
{
    struct roundtrip *r = ctx;
    allocfail_pause(1);
    rewind(r->out);
    CHECK_I64(ftruncate(fileno(r->out), 0), 0);
    allocfail_pause(0);
    int rc =
        berth_trace_write_native(r->out, berth_trace_jobs(r->src), berth_trace_count(r->src), err);
    if (rc)
        return rc;
    allocfail_pause(1);
    CHECK_I64(fflush(r->out), 0);
    allocfail_pause(0);
    struct berth_trace *back = NULL;
    rc = berth_trace_load(path_of("written.csv"), "native", &back, err);
    if (rc)
        return rc;
    allocfail_pause(1);
    CHECK_I64(berth_trace_count(back), berth_trace_count(r->src));
    for (size_t i = 0; i < berth_trace_count(back) && i < berth_trace_count(r->src); i++)
        CHECK(same_job(&berth_trace_jobs(back)[i], &berth_trace_jobs(r->src)[i]));
    allocfail_pause(0);
    berth_trace_free(back);
    return 0;
}

static void test_native_roundtrip(void)
{
    struct berth_trace *src = NULL;
    struct berth_err err = {0};
    CHECK_I64(berth_trace_load(path_of("native.csv"), "native", &src, &err), 0);
    struct roundtrip r = {src, fopen(path_of("written.csv"), "w")};
    CHECK(r.out != NULL);
    if (src && r.out) {
        struct allocfail_case a = {"native write and read back", run_roundtrip, &r, 1, 0, 0, NULL};
        allocfail_drive(&a, NULL);
    }
    if (r.out)
        fclose(r.out);
    berth_trace_free(src);
}

/* ---- clusters ------------------------------------------------------------------------- */

struct cluster_case {
    const char *spec; /* a shorthand or a name, or a file in T's folder (file = 1) */
    int file;
    int32_t gpus;
    size_t servers;
};

static int run_cluster(void *ctx, struct berth_err *err)
{
    const struct cluster_case *c = ctx;
    struct berth_cluster *cl = NULL;
    int rc = berth_cluster_parse(c->file ? path_of(c->spec) : c->spec, &cl, err);
    if (rc) {
        CHECK(cl == NULL);
        return rc;
    }
    allocfail_pause(1);
    CHECK_I64(berth_cluster_gpus(cl), c->gpus);
    CHECK_I64(berth_cluster_servers(cl), c->servers);
    allocfail_pause(0);
    berth_cluster_free(cl);
    return 0;
}

static void drive_cluster(const char *name, const struct cluster_case *c)
{
    struct allocfail_case a = {name, run_cluster, (void *)c, 1, 0, 0, NULL};
    allocfail_drive(&a, NULL);
}

static void test_clusters(void)
{
    static const struct cluster_case shorthand = {"2x4:v100,1x8:a100,3x2:k80", 0, 22, 6};
    static const struct cluster_case builtin = {"gavel", 0, 108, 27};
    static const struct cluster_case json = {"cluster.json", 1, 70, 10};
    static const struct cluster_case tiresias = {"cluster_spec.csv", 1, 16, 4};
    static const struct cluster_case openb = {"openb_node_list.csv", 1, 10, 3};
    static const struct cluster_case pai = {"pai_machine_spec.csv", 1, 4, 2};
    drive_cluster("cluster shorthand", &shorthand);
    drive_cluster("cluster built-in", &builtin);
    drive_cluster("cluster JSON", &json);
    drive_cluster("cluster tiresias", &tiresias);
    drive_cluster("cluster openb", &openb);
    drive_cluster("cluster pai2020", &pai);
}

/* ---- throughput models and inference series ------------------------------------------- */

static int run_tput_builtin(void *ctx, struct berth_err *err)
{
    (void)ctx;
    struct berth_tput *m = NULL;
    int rc = berth_tput_builtin(&m, err);
    if (rc)
        return rc;
    rc = berth_tput_set_spread(m, NULL, 0.5, err);
    allocfail_pause(1);
    CHECK(berth_tput_class_count(m) > 0);
    allocfail_pause(0);
    berth_tput_free(m);
    return rc;
}

static int run_tput_gavel(void *ctx, struct berth_err *err)
{
    (void)ctx;
    struct berth_tput *m = NULL;
    int rc = berth_tput_load_gavel(path_of("tput.json"), &m, err);
    if (rc)
        return rc;
    rc = berth_tput_add_lucid_pairs(m, path_of("colocate_info.csv"), err);
    if (!rc) {
        allocfail_pause(1);
        CHECK_I64(berth_tput_class_count(m), 5);
        CHECK_I64(berth_tput_type_count(m), 2);
        allocfail_pause(0);
    }
    berth_tput_free(m);
    return rc;
}

static int run_infer(void *ctx, struct berth_err *err)
{
    const char *spec = ctx;
    struct berth_infer *s = NULL;
    int rc = berth_infer_open(!strncmp(spec, "diurnal", 7) ? spec : path_of(spec), &s, err);
    if (rc)
        return rc;
    allocfail_pause(1);
    CHECK(berth_infer_at(s, 0, 10) >= 0);
    allocfail_pause(0);
    berth_infer_free(s);
    return 0;
}

static void test_models(void)
{
    struct allocfail_case a[] = {
        {"tput built-in", run_tput_builtin, NULL, 1, 0, 0, NULL},
        {"tput gavel + lucid pairs", run_tput_gavel, NULL, 1, 0, 0, NULL},
        {"infer diurnal", run_infer, "diurnal:0.8,0.2", 1, 0, 0, NULL},
        {"infer file", run_infer, "infer.csv", 1, 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof a / sizeof *a; i++)
        allocfail_drive(&a[i], NULL);
}

/* ---- the generator and the trace tools ------------------------------------------------ */

static int run_gen_tools(void *ctx, struct berth_err *err)
{
    (void)ctx;
    struct berth_gen_opts g;
    berth_gen_opts_init(&g);
    g.profile = "philly";
    g.jobs = 12;
    g.seed = 7;
    struct berth_trace *t = NULL, *s = NULL;
    int rc = berth_gen(&g, &t, err);
    if (rc)
        return rc;
    struct berth_trace_stats st;
    rc = berth_trace_stats(t, &st, err);
    if (!rc) {
        char *json = berth_trace_stats_json(&st, "gen", 1);
        if (!json)
            rc = berth_err_set(err, BERTH_ENOMEM, "stats: out of memory");
        free(json);
        berth_trace_stats_free(&st);
    }
    if (!rc) {
        struct berth_slice_opts o;
        berth_slice_opts_init(&o);
        o.count = 5;
        o.rebase = 1;
        rc = berth_trace_slice(t, &o, &s, err);
    }
    if (!rc) {
        allocfail_pause(1);
        CHECK_I64(berth_trace_count(s), 5);
        allocfail_pause(0);
    }
    berth_trace_free(s);
    berth_trace_free(t);
    return rc;
}

static void test_gen_tools(void)
{
    struct allocfail_case a = {"gen, stats, slice", run_gen_tools, NULL, 1, 0, 0, NULL};
    allocfail_drive(&a, NULL);
}

/* ---- the harness itself ----------------------------------------------------------------- */

/* Scenarios with the bugs the driver is there to find; each must make it fail. */
static void *kept[64]; /* what the leaking one leaks stays reachable (for LeakSanitizer) */
static size_t nkept;

static int run_leaks(void *ctx, struct berth_err *err)
{
    (void)ctx;
    char *a = malloc(16), *b = a ? strdup("x") : NULL;
    if (!b) {
        if (a && nkept < 64)
            kept[nkept++] = a; /* a leak on the error path */
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    free(b);
    free(a);
    return 0;
}

static int run_swallows(void *ctx, struct berth_err *err)
{
    (void)ctx;
    (void)err;
    for (int i = 0; i < 2; i++) {
        void *volatile p = malloc(16); /* volatile: the compiler may not drop the pair */
        free(p);                       /* a failure here is not noticed */
    }
    return 0;
}

static int run_wrong_code(void *ctx, struct berth_err *err)
{
    (void)ctx;
    char *a = malloc(16);
    if (!a)
        return berth_err_set(err, BERTH_EINPUT, "bad input"); /* not BERTH_ENOMEM */
    free(a);
    return 0;
}

static int run_no_message(void *ctx, struct berth_err *err)
{
    (void)ctx;
    (void)err;
    char *a = malloc(16);
    if (!a)
        return BERTH_ENOMEM; /* err left empty */
    free(a);
    return 0;
}

static void test_harness(void)
{
    const struct allocfail_case bad[] = {
        {"leaks on its error path", run_leaks, NULL, 1, 0, 0, NULL},
        {"swallows a failure", run_swallows, NULL, 1, 0, 0, NULL},
        {"answers bad input", run_wrong_code, NULL, 1, 0, 0, NULL},
        {"sets no message", run_no_message, NULL, 1, 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int before = check_failures;
        fprintf(stderr, "(a scenario that must fail follows: %s)\n", bad[i].name);
        allocfail_drive(&bad[i], NULL);
        int caught = check_failures > before;
        check_failures = before;
        CHECK(caught);
    }
    while (nkept)
        free(kept[--nkept]);
}

/* ---- the samples ---------------------------------------------------------------------- */

static const struct {
    const char *name, *text;
} files[] = {
    {"native.csv", "job_id,arrival_s,duration_s,num_gpus,gpu_type,user,queue,min_gpus,max_gpus,"
                   "gpu_share,x_note\n"
                   "J1,0,100,2,,alice,research,1,4,,a note\n"
                   "J2,10,50,4,,bob,research,,,,\n"
                   "\"J,3\",20,30,1,,alice,prod,,,0.5,\n"
                   "J4,30,10,2,v100,carol,prod,,,,\"x,y\"\n"},
    {"native-bad.csv", "job_id,arrival_s,duration_s,num_gpus\n"
                       "a,0,10,1\n"
                       "b,x,10,1\n"
                       "c,0,-1,1\n"
                       "d,5,10,2\n"
                       "e,5,10,zero\n"},
    {"philly-pollux.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                          "2017-10-01 00:00:00,5,1,5,vc1\n"
                          "2017-10-01 00:01:00,100,4,400,vc2\n"
                          "2017-10-01 00:02:30,7,2,14,vc1\n"},
    {"gavel.trace", "ResNet-50 (batch size 64)\tcmd\twd\t--num_minibatches\t1\t43948\t1\t1.0\t-1\t0"
                    ".0\n"
                    "LM (batch size 20)\tcmd\twd\t--steps\t0\t1000000\t4\t5.0\t1.2\t12.5\n"
                    "CycleGAN\tcmd\twd\t--n_steps\t1\t55992\t8\t0.5\t-1.000000\t3600.000001\n"},
    {"helios.csv", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_"
                   "time,duration,queue\n"
                   "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 "
                   "18:41:01,2020-06-10 04:55:09,36848,0\n"
                   "1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 "
                   "18:41:27,2020-06-09 18:45:36,249,0\n"
                   "1425513,uzqls,vcpDC,0,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 "
                   "18:41:28,2020-06-17 14:15:21,675233,0\n"},
    {"acme.csv", "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_"
                 "time,duration,queue,gpu_time\n"
                 "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 "
                 "00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n"
                 "5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 "
                 "00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0\n"
                 "5778470,u1,1,0,4,Other,COMPLETED,2023-02-28 23:00:00+08:00,2023-02-28 "
                 "23:00:00+08:00,2023-02-28 23:00:10+08:00,10,0,0.0\n"},
    {"cluster_job_log",
     "[\n"
     "  {\"status\": \"Pass\", \"vc\": \"vc1\", \"jobid\": \"app_1\", \"user\": \"alice\",\n"
     "   \"submitted_time\": \"2017-10-01 00:00:10\", \"attempts\": [{\"start_time\": "
     "\"2017-10-01 00:01:00\", \"end_time\": \"2017-10-01 00:02:40\", \"detail\": [{\"ip\": "
     "\"m1\", \"gpus\": [\"gpu0\", \"gpu1\"]}, {\"ip\": \"m2\", \"gpus\": [\"gpu3\"]}]}]},\n"
     "  {\"status\": \"Killed\", \"vc\": \"vc1\", \"jobid\": \"app_3\", \"user\": \"bob\",\n"
     "   \"submitted_time\": \"2017-10-01 00:00:01\", \"attempts\": []},\n"
     "  {\"status\": \"Failed\", \"vc\": \"v\\\\\", \"jobid\": \"app_2\", \"user\": \"b\\\"o}b\",\n"
     "   \"submitted_time\": \"2017-10-01 00:00:05\", \"attempts\": [{\"start_time\": "
     "\"2017-10-01 00:10:00\", \"end_time\": \"2017-10-01 00:15:00\", \"detail\": [{\"ip\": "
     "\"m4\", \"gpus\": [\"gpu0\", \"gpu1\"]}]}]}\n"
     "]\n"},
    {"60_job.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                   "0,1,0,606,vgg19,164,30\n"
                   "1,8,30,133,vgg11,147,23\n"
                   "2,2,53.25,,,0.5,26\n"},
    {"workload-1.csv", "name,time,application,num_replicas,batch_size,duration\n"
                       "cifar10-0,0,cifar10,1,128,1234.5\n"
                       "\"ncf,2\",100,ncf,4,256,60\n"},
    {"openb_pod_list.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                           "creation_time,deletion_time,scheduled_time\n"
                           "p0,12000,16384,1,1000,,LS,Running,100,500,100\n"
                           "p1,6000,12288,1,460,,BE,Running,200,,200\n"
                           "p2,88000,327680,8,1000,nan,Burstable,Succeeded,300,1300,300\n"},
    {"pai/pai_task_table.csv", "j1,worker,2.0,Terminated,100.0,200.0,600.0,29.296875,50.0,V100\n"
                               "j1,ps,1.0,Terminated,90.0,200.0,400.0,2.0,,\n"
                               "j2,tensorflow,1.0,Terminated,1010.0,1600.0,50.0,0.5,25.0,MISC\n"
                               "j6,tensorflow,1.0,Failed,5000.0,5100.0,600.0,4.0,100.0,T4\n"},
    {"pai/pai_job_table.csv", "j1,i1,userA,Terminated,50.0,1000.0\n"
                              "j2,i2,userB,Terminated,1000.0,1600.0\n"
                              "j6,i6,userA,Failed,4990.0,5100.0\n"},
    {"cluster.json",
     "{\"name\": \"two racks of V100 servers and a K80 pool\",\n"
     " \"servers\": [\n"
     "  {\"gpu_type\": \"v100\", \"gpus\": 8, \"count\": 4, \"rack\": \"r1\", \"pool\": "
     "\"training\"},\n"
     "  {\"gpu_type\": \"v100\", \"gpus\": 8, \"count\": 4, \"rack\": \"r2\", \"pool\": "
     "\"training\"},\n"
     "  {\"gpu_type\": \"k80\", \"gpus\": 4, \"count\": 1, \"rack\": \"r3\"},\n"
     "  {\"name\": \"infer-0\", \"gpu_type\": \"t4\", \"gpus\": 2, \"rack\": \"r3\", \"pool\": "
     "\"inference\"}],\n"
     " \"gang_span\": true}\n"},
    {"cluster_spec.csv", "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n"
                         "1,4,4,128,254\n"},
    {"openb_node_list.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                            "n0,32000,262144,0,\n"
                            "n1,128000,786432,8,G3\n"
                            "n3,64000,262144,2,P100\n"},
    {"pai_machine_spec.csv", "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n"
                             "m1,T4,96,512,2\n"
                             "m2,P100,64,512,2\n"},
    {"tput.json", "{\"v100\": {\"('ResNet-50 (batch size 64)', 1)\": {\"null\": 4.2, "
                  "\"('LM (batch size 20)', 1)\": [2.0, 1.5]},\n"
                  "          \"('LM (batch size 20)', 1)\": {\"null\": 110.9},\n"
                  "          \"('LM (batch size 20)', 4)\": {\"null\": 400.0}},\n"
                  " \"k80\": {\"('ResNet-50 (batch size 64)', 1)\": {\"null\": 1.1},\n"
                  "         \"('CycleGAN', 1)\": {\"null\": 3.3}}}\n"},
    {"colocate_info.csv", ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_"
                          "num2,batchsize2,amp2,speed2,gpu_util,gmem_util,gmem\n"
                          "0,MobileNetV3,ImageNet,1,32,0,0.983,ResNet18,CIFAR-10,1,32,0,1.034,64."
                          "789,29.461,5106\n"},
    {"infer.csv", "time_s,servers\n0,3\n3600,5\n7200,2\n"},
};

static const struct check_test tests[] = {
    {"harness", test_harness},
    {"native", test_native},
    {"philly_pollux", test_philly_pollux},
    {"gavel", test_gavel},
    {"helios", test_helios},
    {"acme", test_acme},
    {"philly", test_philly},
    {"tiresias", test_tiresias},
    {"pollux", test_pollux},
    {"openb", test_openb},
    {"pai2020", test_pai2020},
    {"native_roundtrip", test_native_roundtrip},
    {"clusters", test_clusters},
    {"models", test_models},
    {"gen_tools", test_gen_tools},
};

int main(int argc, char **argv)
{
    int args = check_args(argc, argv, tests, sizeof tests / sizeof *tests);
    if (args)
        return args < 0 ? 1 : 0;
    allocfail_route_jansson();
    tmp_open(&T);
    snprintf(dir, sizeof dir, "%s", T.dir);
    CHECK_I64(mkdir(path_of("pai"), 0700), 0);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        tmp_write(&T, files[i].name, files[i].text);
    /* enough rows for the job array to grow several times, and names for two arena chunks */
    FILE *f = fopen(path_of("native-big.csv"), "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "job_id,arrival_s,duration_s,num_gpus,user\n");
        for (int i = 0; i < 300; i++)
            fprintf(f, "j%d,%d,10,1,%0250d\n", i, i, i);
        CHECK_I64(fclose(f), 0);
    }
    int rc = check_main(argc, argv, tests, sizeof tests / sizeof *tests);
    unlink(path_of("pai/pai_task_table.csv"));
    unlink(path_of("pai/pai_job_table.csv"));
    rmdir(path_of("pai"));
    tmp_close(&T);
    return rc;
}
