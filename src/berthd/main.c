/* berthd: the live scheduler daemon (see README.md, docs/api.md). Flags, or a config file
 * of "name value" lines with the same names; `berthd --shim SPEC FD` is the per-attempt
 * supervisor berthd starts itself. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "berth/berth.h"
#include "live/daemon.h"
#include "slurmapi/slurm_api.h"

static struct berth__daemon *running;

static void on_signal(int sig)
{
    (void)sig;
    if (running)
        running->stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: berthd --tokens FILE [--gpus SPEC] [--policy NAME] [--placement P]\n"
               "              [--listen ADDR] [--port N] [--state-dir DIR] [--config FILE]\n"
               "              [--port-file FILE] [--max-body BYTES] [--tick S] [--quantum S]\n"
               "              [--seed N] [--executor local|slurm] [--slurm-conf FILE]\n"
               "              [--throughputs FILE]\n"
               "       berthd --version | --help\n\n"
               "  --tokens FILE     bearer tokens, lines 'TOKEN USER [admin]' (required)\n"
               "  --executor E      local: jobs run on this machine (default); slurm: jobs are\n"
               "                    Slurm jobs berth places on slurmctld's nodes\n"
               "  --slurm-conf FILE slurm: the cluster's slurm.conf (default $SLURM_CONF)\n"
               "  --throughputs F   Gavel throughput JSON the elastic policies value gang\n"
               "                    sizes with (default: berth's built-in catalog)\n"
               "  --gpus SPEC       local: fake GPU inventory, a cluster shorthand such as\n"
               "                    1x4:a100 (default: this machine's GPUs from NVML)\n"
               "  --policy NAME     scheduling policy (berth policies lists them; default fifo)\n"
               "  --placement P     placement helper (default: the policy's)\n"
               "  --listen ADDR     IPv4 address to listen on (default 127.0.0.1)\n"
               "  --port N          TCP port (default 8470; 0 = any free port)\n"
               "  --state-dir DIR   journal and job files (default ./berthd-state)\n"
               "  --config FILE     lines 'NAME VALUE' with the flags' names (flags win)\n"
               "  --port-file FILE  write the port actually bound here once serving\n"
               "  --max-body BYTES  request body limit (default 1048576)\n"
               "  --tick S          scheduler loop period in seconds (default 0.05)\n"
               "  --quantum S       time slice of time-sliced policies such as las (default 60)\n"
               "  --seed N          seed of the policies' random draws (default 1)\n"
               "  --version         print the version and the executors this build has\n");
}

/* The version, and what this build can do: tests and operators check it before they rely on
 * an optional part (the slurm executor needs libslurm at build time). */
static void version(void)
{
    printf("berthd %s\n", BERTH_VERSION);
    if (berth__slurm_built())
        printf("executors: local slurm\n");
    else
        printf("executors: local (slurm: not built, libslurm 22.05 was not found)\n");
}

static const struct option longopts[] = {{"tokens", required_argument, NULL, 't'},
                                         {"gpus", required_argument, NULL, 'g'},
                                         {"policy", required_argument, NULL, 'p'},
                                         {"placement", required_argument, NULL, 'P'},
                                         {"listen", required_argument, NULL, 'l'},
                                         {"port", required_argument, NULL, 'o'},
                                         {"state-dir", required_argument, NULL, 's'},
                                         {"config", required_argument, NULL, 'c'},
                                         {"port-file", required_argument, NULL, 'f'},
                                         {"max-body", required_argument, NULL, 'b'},
                                         {"tick", required_argument, NULL, 'k'},
                                         {"quantum", required_argument, NULL, 'q'},
                                         {"seed", required_argument, NULL, 'S'},
                                         {"executor", required_argument, NULL, 'x'},
                                         {"slurm-conf", required_argument, NULL, 'C'},
                                         {"throughputs", required_argument, NULL, 'T'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {NULL, 0, NULL, 0}};

static int number(const char *flag, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !(x >= lo) || !(x <= hi)) {
        fprintf(stderr, "berthd: --%s: expected a number from %g to %g, found '%s'\n", flag, lo, hi,
                v);
        return 2;
    }
    *out = x;
    return 0;
}

/* Applies one setting (from a flag or the config file). Strings are kept: they live in argv
 * or in the config buffer, which lives as long as main. */
static int apply(struct berth__daemon_opts *o, int ch, const char *v)
{
    double x;
    int rc = 0;
    switch (ch) {
    case 't':
        o->tokens = v;
        break;
    case 'g':
        o->gpus = v;
        break;
    case 'p':
        o->policy = v;
        break;
    case 'x':
        o->executor = v;
        break;
    case 'C':
        o->slurm_conf = v;
        break;
    case 'T':
        o->throughputs = v;
        break;
    case 'P':
        o->placement = v;
        break;
    case 'l': {
        struct in_addr a;
        if (inet_pton(AF_INET, v, &a) != 1) {
            fprintf(stderr, "berthd: --listen: expected an IPv4 address, found '%s'\n", v);
            return 2;
        }
        o->addr = v;
        break;
    }
    case 's':
        o->state_dir = v;
        break;
    case 'f':
        o->port_file = v;
        break;
    case 'o':
        if (!(rc = number("port", v, 0, 65535, &x)))
            o->port = (int)x;
        break;
    case 'b':
        if (!(rc = number("max-body", v, 1024, 1 << 30, &x)))
            o->max_body = (size_t)x;
        break;
    case 'k':
        if (!(rc = number("tick", v, 0.001, 10, &x)))
            o->tick_us = (berth_us)(x * 1e6);
        break;
    case 'q':
        if (!(rc = number("quantum", v, 0.001, 1e6, &x)))
            o->quantum_us = (berth_us)(x * 1e6);
        break;
    case 'S':
        if (!(rc = number("seed", v, 0, 1e18, &x)))
            o->seed = (uint64_t)x;
        break;
    default:
        rc = 2;
    }
    return rc;
}

static int read_config(struct berth__daemon_opts *o, const char *path, char **keep)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "berthd: --config %s: cannot open\n", path);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(buf);
        fprintf(stderr, "berthd: --config %s: cannot read\n", path);
        return 2;
    }
    fclose(f);
    *keep = buf;
    unsigned line = 0;
    char *save = NULL;
    for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        while (*l == ' ' || *l == '\t')
            l++;
        if (!*l || *l == '#')
            continue;
        char *sp = l + strcspn(l, " \t=");
        char *val = sp + strspn(sp, " \t=");
        *sp = '\0';
        char *end = val + strlen(val);
        while (end > val && (end[-1] == ' ' || end[-1] == '\r' || end[-1] == '\t'))
            *--end = '\0';
        const struct option *opt = longopts;
        while (opt->name &&
               (strcmp(opt->name, l) || opt->val == 'c' || opt->val == 'h' || opt->val == 'V'))
            opt++;
        if (!opt->name || !*val) {
            fprintf(stderr, "berthd: %s:%u: expected 'NAME VALUE' with a flag's name, found '%s'\n",
                    path, line, l);
            return 2;
        }
        if (apply(o, opt->val, val))
            return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--shim"))
        return berth__shim_main(argv[2], (int)strtol(argv[3], NULL, 10));
    struct berth__daemon_opts o;
    berth__daemon_opts_init(&o);
    char *cfgbuf = NULL;
    int ch, rc = 0;
    /* the config file first, so flags win whatever their order */
    const char *config = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            config = argv[++i];
        else if (!strncmp(argv[i], "--config=", 9))
            config = argv[i] + 9;
    }
    if (config && (rc = read_config(&o, config, &cfgbuf)))
        goto out;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            goto out;
        }
        if (ch == 'V') {
            version();
            goto out;
        }
        if (ch == 'c') { /* read above; an abbreviation (--conf) would have been missed */
            if (optarg != config) {
                fprintf(stderr, "berthd: write --config FILE in full (the file is read before "
                                "the other flags, so that they win)\n");
                rc = 2;
                goto out;
            }
            continue;
        }
        if (ch == '?' || ch == ':') {
            fprintf(stderr, "berthd: see berthd --help\n");
            rc = 2;
            goto out;
        }
        if ((rc = apply(&o, ch, optarg)))
            goto out;
    }
    if (optind < argc) {
        fprintf(stderr, "berthd: unexpected argument '%s'\n", argv[optind]);
        rc = 2;
        goto out;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "berthd: cannot find its own binary (/proc/self/exe)\n");
        rc = 1;
        goto out;
    }
    self[n] = '\0';
    o.self_exe = self;
    struct berth_err err = {0};
    struct berth__daemon *d = NULL;
    if (berth__daemon_create(&o, &d, &err)) {
        fprintf(stderr, "berthd: %s\n", err.msg);
        rc = err.code == BERTH_EINPUT || err.code == BERTH_EIO || err.code == BERTH_EUNSUPPORTED
                 ? 2
                 : 1;
        goto out;
    }
    running = d;
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (berth__daemon_run(d, &err)) {
        fprintf(stderr, "berthd: %s\n", err.msg);
        rc = 1;
    } else {
        fprintf(stderr, "berthd: stopped; running jobs go on and are re-adopted at restart\n");
    }
    running = NULL;
    berth__daemon_destroy(d);
out:
    free(cfgbuf);
    return rc;
}
