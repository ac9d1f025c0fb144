/* Runs berth itself as child processes, several at once (berth sweep's and berth compare's
 * cells and inputs): each job is berth's own argv, its stdout and stderr sent to files, at
 * most J running; SIGINT or SIGTERM stops the children it started (by their pids) and
 * returns, so an interrupted sweep leaves no process behind and resumes where it stopped. */
#ifndef BERTH_CLI_RUNNER_H
#define BERTH_CLI_RUNNER_H

#include <stddef.h>

#include "progress.h"

struct cli_job {
    const char *const *argv; /* berth's arguments (argv[0] is the subcommand), NULL-ended */
    const char *out, *err;   /* files for stdout and stderr (NULL: /dev/null) */
    int status;              /* set: the exit status, 128 + signal when killed, -1 unstarted */
};

/* Runs every job, at most j at once, as `berth ARGV...` (this very binary). done(ctx, i) is
 * called in the parent as job i ends (its status set), also for those stopped by an
 * interruption (cli_interrupted() says so); the bar counts the jobs ended. Returns
 * 0 when all ran, -1 when interrupted by a signal (then the running children were stopped and
 * waited for) or when a child could not be started. */
int cli_run_jobs(struct cli_job *jobs, size_t n, int j, struct cli_progress *bar, const char *unit,
                 void (*done)(void *ctx, size_t i), void *ctx);
/* The path of this berth binary (from /proc/self/exe). */
const char *cli_self_exe(void);
/* Nonzero once SIGINT or SIGTERM arrived while cli_run_jobs ran. */
int cli_interrupted(void);

#endif
