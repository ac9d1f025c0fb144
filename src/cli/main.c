/* The berth command: a table of subcommands, each a small file (cmd_*.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_trace.h"
#include "flags.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct cli_cmd commands[] = {
    {"sim", cmd_sim, "replay a trace on a cluster under a policy (trace-driven simulator)"},
    {"fidelity", cmd_fidelity,
     "run a trace as a peer simulator does, then berth's differences one at a time (a ladder)"},
    {"pack", cmd_pack, "pack pods on an empty cluster, FGD or a baseline (fragmentation)"},
    {"report", cmd_report, "draw sim runs: one HTML file with SVG charts (or SVG files)"},
    {"sweep", cmd_sweep, "run a grid of sims in parallel (or as a Slurm job array), resumable"},
    {"compare", cmd_compare, "rank policies on your trace over seeds and recommend one"},
    {"gen", cmd_gen, "generate a seeded synthetic workload in native CSV"},
    {"trace", cmd_trace, "trace tools: stats, convert, slice, formats"},
    {"policies", cmd_policies, "list the scheduling policies and placement helpers"},
    {"submit", cmd_submit, "submit a job to berthd (berth submit -g 2 -- python train.py)"},
    {"queue", cmd_queue, "list berthd's jobs (pending, held, running; --all: every job)"},
    {"show", cmd_show, "show a job: fields, allocation, state history"},
    {"why", cmd_why, "say why a job waits (or how it ended)"},
    {"cancel", cmd_cancel, "cancel jobs (checkpoint signal, grace period, then SIGKILL)"},
    {"hold", cmd_hold, "hold pending jobs (they wait until released)"},
    {"release", cmd_release, "release held jobs"},
    {"nodes", cmd_nodes, "list berthd's servers and GPUs and the jobs on them"},
    {"inference", cmd_inference, "the inference pool berthd lends to training; --demand N"},
    {"serve", cmd_serve, "run a service (replicas on the inference pool) beside the jobs"},
    {"logs", cmd_logs, "print a job's output (-f follows it)"},
    {"acct", cmd_acct, "accounting: jobs' wait, run time, GPU-hours; totals per user, queue, type"},
    {"help", cmd_help, "show this help, or a subcommand's (berth help sim)"},
    {"version", cmd_version, "print berth's version"},
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *f)
{
    fprintf(f, "usage: berth COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'berth COMMAND --help' shows a command's flags.\n");
}

static const struct cli_spec help_spec = {
    .cmd = "help",
    .usage = "help [COMMAND]",
    .about = "Shows berth's commands, or COMMAND's flags.",
};

static int cmd_help(int argc, char **argv)
{
    int nargs, rc = cli_flags_parse(&help_spec, argc, argv, NULL, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs > 1)
        return cli_usage_error("help", "unexpected argument '%s' (see berth help --help)", argv[2]);
    if (nargs) {
        for (size_t i = 0; i < NCOMMANDS; i++)
            if (!strcmp(argv[1], commands[i].name) && commands[i].run != cmd_help) {
                char *args[] = {argv[1], "--help", NULL};
                return commands[i].run(2, args);
            }
        return cli_usage_error("help", "unknown command '%s'", argv[1]);
    }
    usage(stdout);
    return EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("berth %s\n", BERTH_VERSION);
    return EXIT_OK;
}

int cli_fail(const struct berth_err *err)
{
    fprintf(stderr, "berth: %s\n", err->msg);
    return err->code == BERTH_EINPUT || err->code == BERTH_EIO ? EXIT_BAD_INPUT : EXIT_RUNTIME;
}

void cli_report_load(const char *path, const struct berth_load_report *rep)
{
    if (!rep->skipped)
        return;
    fprintf(stderr, "berth: %s: %zu of %zu rows left out:\n", path, rep->skipped, rep->rows);
    for (size_t i = 0; i < rep->nreasons; i++)
        fprintf(stderr, "  %8zu  %s%s (first on line %u)\n", rep->reasons[i].count,
                rep->reasons[i].bad ? "bad row: " : "", rep->reasons[i].reason,
                rep->reasons[i].first_line);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "berth %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_BAD_INPUT;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return cmd_help(1, argv + 1);
    if (!strcmp(argv[1], "--version"))
        return cmd_version(1, argv + 1);
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "berth: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return EXIT_BAD_INPUT;
}
