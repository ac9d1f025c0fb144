/* The local executor: runs each attempt of a job on this machine under a small supervisor
 * (the shim: berthd re-executed as `berthd --shim`), so jobs outlive berthd.
 *
 * Control files of attempt K of job ID, under STATE/jobs/ID/ (berthd's alone, mode 0700):
 * aK.spec (what to run, as whom), aK.lock (held by the shim for its whole life: whoever can
 * lock it knows no shim of that attempt lives), aK.pid ("PID START": the job's process
 * group and its /proc start time), aK.exit ("exit N" or "signal N", written by the shim once
 * nothing of the attempt runs any more), aK.drop (bytes of output the log cap dropped).
 * berthd takes the lock before it forks and the child inherits it, so there is no instant
 * at which a shim lives without holding it.
 *
 * The job's own files live in its spool directory, STATE/spool/ID/, owned by the job's
 * account (mode 0700): stdout.log and stderr.log (written by the shim from pipes, so that
 * the log cap holds; the tail is kept), progress.jsonl (appended by the job). berthd opens
 * them without following links and only when they are regular files of that account.
 *
 * In multi-user mode (berthd is root) the shim stays root, to record the exit and kill
 * what is left, and its child becomes the job's account (groups, gid, uid) before it
 * enters the working directory and execs. Where cgroups are writable (cgroup.h) every
 * attempt runs in a cgroup of its own with its limits; the shim kills everything in it
 * when the job's main process ends, and an attempt is over only once the cgroup is empty. */
#ifndef BERTH_LIVE_EXEC_LOCAL_H
#define BERTH_LIVE_EXEC_LOCAL_H

#include <stdint.h>
#include <sys/types.h>

#include "berth/err.h"
#include "live/jobs/ljob.h"

struct berth__iso;

struct berth__lexec {
    const char *state_dir;
    const char *self_exe; /* berthd's own binary, run as the shim */
    const char *api_url;  /* BERTH_API given to jobs */
    const char *spool_dir;
    int multi_user;               /* jobs run as their accounts */
    int64_t log_cap;              /* bytes kept of each log */
    int64_t pids_max;             /* per attempt, where cgroups are */
    const struct berth__iso *iso; /* cgroups, or NULL: process groups only */
};

/* Paths of a job's control files ("aK.exit" with attempt K, or "" for its folder). */
void berth__lexec_path(const struct berth__lexec *x, uint64_t id, const char *file, char *buf,
                       size_t len);
/* Paths of a job's own files ("stdout.log", "stderr.log", "progress.jsonl", "" = folder). */
void berth__lexec_spool(const struct berth__lexec *x, uint64_t id, const char *file, char *buf,
                        size_t len);
/* Makes the job's spool folder, owned by its account, and its empty progress file. */
int berth__lexec_prepare(const struct berth__lexec *x, const struct berth__ljob *j,
                         struct berth_err *err);
/* Opens one of the job's own files for reading: not through a link, only a regular file
 * owned by the job's account (multi-user mode), never blocking. A descriptor, or -1. */
int berth__lexec_open_job_file(const struct berth__lexec *x, uint32_t uid, const char *path);
/* Starts attempt j->attempt of j with the environment env ("K=V", NULL-terminated: the job's
 * own plus berthd's variables). Fills j->shim_pid and j->shim_start. */
int berth__lexec_launch(const struct berth__lexec *x, struct berth__ljob *j, char *const *env,
                        struct berth_err *err);
/* What became of attempt j->attempt: 0 still running, 1 exited (j->exit_code or
 * j->exit_signal set), 2 lost (no shim lives and it left no exit status). */
int berth__lexec_poll(const struct berth__lexec *x, struct berth__ljob *j);
/* Sends sig to the attempt: SIGKILL to everything in its cgroup (where there is one), any
 * signal to its process group, but only while the group's leader is the very process
 * recorded (pid and start time both match): never to a recycled pid. 0 when sent. */
int berth__lexec_signal(const struct berth__lexec *x, struct berth__ljob *j, int sig);
/* Bytes the log cap dropped from the attempt's stdout and stderr so far (aK.drop). */
int berth__lexec_dropped(const struct berth__lexec *x, const struct berth__ljob *j, int64_t *out,
                         int64_t *err_);
/* The processes of attempt `attempt` of job id (procs.c, exec_local.c), at most max into out:
 * the job's main process first (the leader of its process group, while the pid file's start
 * time matches), then the rest of its cgroup, or of its process group where there are no
 * cgroups (a process that called setsid is then not found). How many (0: none runs), or -1
 * when the attempt left no pid file yet. Reads only x's paths and /proc: any thread, no lock. */
int berth__lexec_pids(const struct berth__lexec *x, uint64_t id, int attempt, pid_t *out,
                      size_t max);
/* /proc/PID/stat field 22 (start time in clock ticks since boot), 0 when PID is gone. */
uint64_t berth__proc_start(pid_t pid);
/* /proc/PID/stat field 5 (its process group), 0 when PID is gone. */
pid_t berth__proc_pgrp(pid_t pid);
/* Entries of /proc a process group's members are looked for in, at most (a bound on one
 * search's cost: about a millisecond per thousand processes). */
#define BERTH_PROC_SCAN_MAX 65536
/* The members of process group pgid, at most max: the leader first (when it lives), then
 * the others among the first BERTH_PROC_SCAN_MAX processes of /proc. How many. */
int berth__proc_group(pid_t pgid, pid_t *out, size_t max);
/* Collects exited children (shims) so none stays a zombie. */
void berth__lexec_reap(void);

/* The shim's main: runs the attempt described by spec_path, lock fd held. Returns the exit
 * code of the shim. */
int berth__shim_main(const char *spec_path, int lockfd);

#endif
