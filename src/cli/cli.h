/* What the berth command's subcommands share: the command table entry, exit codes, and
 * reporting a libberth error. The CLI uses libberth only through include/berth/. */
#ifndef BERTH_CLI_H
#define BERTH_CLI_H

#include "berth/berth.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_BAD_INPUT = 2 };

struct cli_cmd {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    const char *summary;
};

/* Prints "berth: MESSAGE" for err on stderr and returns the exit code that fits it:
 * 2 for bad input (including files that cannot be read), 1 for everything else. */
int cli_fail(const struct berth_err *err);
/* Prints "berth CMD: MESSAGE" (printf-style) on stderr and returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s with terminal control characters, bidirectional overrides, invisible and separator
 * characters (util/name.h) escaped (\x1b, \u202e, \u200b), and bytes that are not UTF-8 as
 * \xNN, in buf (truncated to len); what every table prints from berthd goes through it. */
const char *cli_clean(const char *s, char *buf, size_t len);

/* Prints on stderr what a trace load left out (nothing when it left nothing out). */
void cli_report_load(const char *path, const struct berth_load_report *rep);

int cmd_sim(int argc, char **argv);
int cmd_fidelity(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_compare(int argc, char **argv);

/* Whether words are flags berth sim takes (the flag parser's verdict, nothing run): 0, or
 * BERTH_EINPUT with err naming the flag. */
int cli_sim_check_flags(const char *const *words, size_t n, struct berth_err *err);

struct berth_run;
/* Writes the report of runs: an HTML file (out, or stdout when NULL or "-") or, with format
 * "svg", one SVG file per chart in the folder out. 0 or an exit code, the error said. */
int cli_report_write(const char *cmd, struct berth_run **runs, size_t n, const char *out,
                     const char *format, const char *title);
/* berthd's client commands (client.c talks to the daemon) */
int cmd_submit(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_hold(int argc, char **argv);
int cmd_release(int argc, char **argv);
int cmd_nodes(int argc, char **argv);
int cmd_inference(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_logs(int argc, char **argv);
int cmd_acct(int argc, char **argv);

#endif
