/* Progress bars on stderr for long work (sim, sweep, compare, pack, trace convert): a bar,
 * the share done, the count, the rate and the time left, redrawn at most ten times a second
 * on one line; only when stderr is a terminal and the command was not asked for --json or
 * --quiet, so logs and pipes never see one. */
#ifndef BERTH_CLI_PROGRESS_H
#define BERTH_CLI_PROGRESS_H

struct cli_progress {
    int on;            /* drawing at all */
    const char *label; /* "simulating", "loading" */
    double t0, last;   /* when it began, when it was last drawn (monotonic seconds) */
    int drawn;         /* a line is on the screen */
};

/* Starts a bar labelled label; quiet (--json, --quiet) or a stderr that is no terminal
 * keeps it off. */
void cli_progress_start(struct cli_progress *p, const char *label, int quiet);
/* berth_progress_fn: ctx is the struct cli_progress. */
void cli_progress_update(void *ctx, double done, double total, const char *unit);
/* Erases the bar (the line is cleared; nothing stays on the screen). */
void cli_progress_end(struct cli_progress *p);

#endif
