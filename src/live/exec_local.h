/* The local executor: runs each attempt of a job on this machine under a small supervisor
 * (the shim: berthd re-executed as `berthd --shim`), so jobs outlive berthd.
 *
 * Files of attempt K of job ID, under STATE/jobs/ID/: aK.spec (what to run), aK.lock (held
 * by the shim for its whole life: whoever can lock it knows no shim of that attempt lives),
 * aK.pid ("PID START": the job's process group and its /proc start time), aK.exit
 * ("exit N" or "signal N", written by the shim when the job ends), and for every attempt
 * stdout.log, stderr.log and progress.jsonl. berthd takes the lock before it forks and the
 * child inherits it, so there is no instant at which a shim lives without holding it. */
#ifndef BERTH_LIVE_EXEC_LOCAL_H
#define BERTH_LIVE_EXEC_LOCAL_H

#include <stdint.h>
#include <sys/types.h>

#include "berth/err.h"
#include "ljob.h"

struct berth__lexec {
    const char *state_dir;
    const char *self_exe; /* berthd's own binary, run as the shim */
    const char *api_url;  /* BERTH_API given to jobs */
};

/* Paths of a job's files ("stdout.log", "progress.jsonl", or "aK.exit" with attempt K). */
void berth__lexec_path(const struct berth__lexec *x, uint64_t id, const char *file, char *buf,
                       size_t len);
/* Starts attempt j->attempt of j with the environment env ("K=V", NULL-terminated: the job's
 * own plus berthd's variables). Fills j->shim_pid and j->shim_start. */
int berth__lexec_launch(const struct berth__lexec *x, struct berth__ljob *j, char *const *env,
                        struct berth_err *err);
/* What became of attempt j->attempt: 0 still running, 1 exited (j->exit_code or
 * j->exit_signal set), 2 lost (no shim lives and it left no exit status). */
int berth__lexec_poll(const struct berth__lexec *x, struct berth__ljob *j);
/* Sends sig to the attempt's process group (once the shim has recorded it). 0 when sent. */
int berth__lexec_signal(const struct berth__lexec *x, struct berth__ljob *j, int sig);
/* /proc/PID/stat field 22 (start time in clock ticks since boot), 0 when PID is gone. */
uint64_t berth__proc_start(pid_t pid);
/* Collects exited children (shims) so none stays a zombie. */
void berth__lexec_reap(void);

/* The shim's main: runs the attempt described by spec_path, lock fd held. Returns the exit
 * code of the shim. */
int berth__shim_main(const char *spec_path, int lockfd);

#endif
