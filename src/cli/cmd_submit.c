/* `berth submit`: send a job to berthd, in the habits of sbatch (the command after --,
 * run as argv; the caller's environment and working directory go with it). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"

extern char **environ;

static void help(void)
{
    printf("usage: berth submit [FLAGS] -- COMMAND [ARGS...]\n\n"
           "  -g, --gpus N          GPUs (default 1; 0 = CPU only)\n"
           "  -t, --gpu-type T      GPU type (a100, or a100|v100 for either)\n"
           "      --share F         fraction of one GPU, 0 < F <= 1 (MPS share)\n"
           "      --gpu-mem MIB     GPU memory per GPU\n"
           "      --cpus N          CPU cores for the job (a cgroup limit where berthd has\n"
           "                        cgroups)\n"
           "      --mem MIB         host memory for the job (a cgroup limit likewise)\n"
           "      --min N --max N   elastic range of GPUs\n"
           "  -q, --queue Q         queue (partition)\n"
           "  -p, --priority N      priority (larger = more important)\n"
           "  -s, --signal SIG      checkpoint signal before preemption (default SIGTERM)\n"
           "      --grace S         seconds between that signal and SIGKILL (default 30)\n"
           "      --est S           expected run time in seconds (for sjf, srtf; default 3600)\n"
           "      --steps N         total steps (progress reports then measure work)\n"
           "      --job-type T      model name in the throughput model (e.g. 'ResNet-50\n"
           "                        (batch size 64)'): elastic policies value sizes by it\n"
           "  -n, --name NAME       job name (default: the program)\n"
           "      --cwd DIR         working directory (default: the current one)\n"
           "  -e, --env K=V         add a variable (repeatable)\n"
           "      --no-env          do not send the current environment\n"
           "      --shell           run COMMAND (one string) with /bin/sh -c\n"
           "  -H, --hold            submit held (berth release ID starts it)\n"
           "      --single-server   keep the gang on one server\n"
           "      --server URL      berthd over HTTP (default $BERTH_SERVER; else its Unix\n"
           "                        socket when it answers; else the config file, then\n"
           "                        http://127.0.0.1:8470)\n"
           "      --token TOKEN     bearer token (default $BERTH_TOKEN, then the config file)\n"
           "      --socket PATH     berthd's Unix socket: the job is your account's, no token\n"
           "                        (default $BERTH_SOCKET, the config file, then\n"
           "                        /var/lib/berthd/berthd.sock)\n");
}

static const struct option opts[] = {{"gpus", required_argument, NULL, 'g'},
                                     {"gpu-type", required_argument, NULL, 't'},
                                     {"share", required_argument, NULL, 'S'},
                                     {"gpu-mem", required_argument, NULL, 'M'},
                                     {"cpus", required_argument, NULL, 'c' + 256},
                                     {"mem", required_argument, NULL, 'M' + 256},
                                     {"min", required_argument, NULL, 'm'},
                                     {"max", required_argument, NULL, 'x'},
                                     {"queue", required_argument, NULL, 'q'},
                                     {"priority", required_argument, NULL, 'p'},
                                     {"signal", required_argument, NULL, 's'},
                                     {"grace", required_argument, NULL, 'G'},
                                     {"est", required_argument, NULL, 'E'},
                                     {"steps", required_argument, NULL, 'T'},
                                     {"job-type", required_argument, NULL, 'J'},
                                     {"name", required_argument, NULL, 'n'},
                                     {"cwd", required_argument, NULL, 'C'},
                                     {"env", required_argument, NULL, 'e'},
                                     {"no-env", no_argument, NULL, 'N'},
                                     {"shell", no_argument, NULL, 'h' + 256},
                                     {"hold", no_argument, NULL, 'H'},
                                     {"single-server", no_argument, NULL, '1'},
                                     {"help", no_argument, NULL, 'h'},
                                     CLI_CLIENT_OPTS,
                                     {NULL, 0, NULL, 0}};

/* A number flag as JSON (integer when whole is set). */
static int num(json_t *o, const char *key, const char *flag, const char *v, int whole)
{
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end)
        return cli_usage_error("submit", "%s: expected a number, found '%s'", flag, v);
    json_object_set_new(o, key, whole ? json_integer((json_int_t)x) : json_real(x));
    if (whole && x != (double)(json_int_t)x)
        return cli_usage_error("submit", "%s: expected a whole number, found '%s'", flag, v);
    return 0;
}

static int set_env(json_t *env, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return -1;
    json_object_setn_new(env, kv, (size_t)(eq - kv), json_string(eq + 1));
    return 0;
}

int cmd_submit(int argc, char **argv)
{
    struct cli_client c = {0};
    json_t *b = json_object(), *env = json_object(), *extra = json_array();
    int ch, rc = 0, send_env = 1;
    optind = 1;
    while (!rc && (ch = getopt_long(argc, argv, "+g:t:q:p:s:n:e:Hh", opts, NULL)) != -1) {
        if (cli_client_opt(&c, ch, optarg))
            continue;
        switch (ch) {
        case 'g':
            rc = num(b, "gpus", "--gpus", optarg, 1);
            break;
        case 'S':
            rc = num(b, "gpu_share", "--share", optarg, 0);
            break;
        case 'M':
            rc = num(b, "gpu_mem_mib", "--gpu-mem", optarg, 1);
            break;
        case 'c' + 256:
            rc = num(b, "cpus", "--cpus", optarg, 0);
            break;
        case 'M' + 256:
            rc = num(b, "mem_mib", "--mem", optarg, 1);
            break;
        case 'm':
            rc = num(b, "min_gpus", "--min", optarg, 1);
            break;
        case 'x':
            rc = num(b, "max_gpus", "--max", optarg, 1);
            break;
        case 'p':
            rc = num(b, "priority", "--priority", optarg, 1);
            break;
        case 'G':
            rc = num(b, "grace_s", "--grace", optarg, 0);
            break;
        case 'E':
            rc = num(b, "est_s", "--est", optarg, 0);
            break;
        case 'T':
            rc = num(b, "total_steps", "--steps", optarg, 1);
            break;
        case 't':
            json_object_set_new(b, "gpu_type", json_string(optarg));
            break;
        case 'J':
            json_object_set_new(b, "job_type", json_string(optarg));
            break;
        case 'q':
            json_object_set_new(b, "queue", json_string(optarg));
            break;
        case 's':
            json_object_set_new(b, "checkpoint_signal", json_string(optarg));
            break;
        case 'n':
            json_object_set_new(b, "name", json_string(optarg));
            break;
        case 'C':
            json_object_set_new(b, "cwd", json_string(optarg));
            break;
        case 'e':
            json_array_append_new(extra, json_string(optarg));
            break;
        case 'N':
            send_env = 0;
            break;
        case 'h' + 256:
            json_object_set_new(b, "shell", json_true());
            break;
        case 'H':
            json_object_set_new(b, "hold", json_true());
            break;
        case '1':
            json_object_set_new(b, "single_server", json_true());
            break;
        case 'h':
            help();
            goto out;
        default:
            rc = cli_flag_error("submit", "submit", ch, argv);
        }
    }
    if (rc)
        goto out;
    if (optind >= argc) {
        rc = cli_usage_error("submit", "expected a command after the flags (berth submit -g 1 "
                                       "-- python train.py)");
        goto out;
    }
    if ((rc = cli_client_init(&c, "submit")))
        goto out;
    json_t *av = json_array();
    for (int i = optind; i < argc; i++)
        json_array_append_new(av, json_string(argv[i]));
    json_object_set_new(b, "argv", av);
    if (!json_object_get(b, "cwd")) {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd))
            json_object_set_new(b, "cwd", json_string(cwd));
    }
    for (char **e = environ; send_env && e && *e; e++)
        if (strncmp(*e, "BERTH_TOKEN=", 12))
            set_env(env, *e);
    size_t i;
    json_t *kv;
    json_array_foreach(extra, i, kv) if (set_env(env, json_string_value(kv)))
    {
        rc = cli_usage_error("submit", "--env: expected K=V, found '%s'", json_string_value(kv));
        goto out;
    }
    json_object_set(b, "env", env);
    struct cli_reply r;
    if ((rc = cli_call(&c, "POST", "/v1/jobs", b, &r)))
        goto out;
    if (!(rc = cli_reply_check(&c, &r)))
        printf("Submitted job %lld\n",
               (long long)json_integer_value(json_object_get(r.json, "id")));
    cli_reply_free(&r);
out:
    json_decref(b);
    json_decref(env);
    json_decref(extra);
    return rc;
}
