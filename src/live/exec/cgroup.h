/* berthd's cgroup isolation: each job attempt runs in cgroups of its own, so that every process
 * it starts (setsid escapes included) can be found, signalled and killed, and so that its cpus,
 * mem_mib and process-count requests are enforced by the kernel.
 *
 * Design. berthd never assumes where cgroups are mounted: berth__iso_open reads
 * /proc/self/mountinfo (which hierarchies exist, where) and /proc/self/cgroup (where berthd
 * sits in each), and tries, in this order:
 *   - V2 (unified: cgroup2 holds memory, cpu and pids). berthd's own cgroup (the "0::PATH"
 *     line) is its delegated subtree (systemd Delegate=yes). By the "no internal processes"
 *     rule a cgroup that hands controllers to children holds no process, so open moves
 *     berthd (its pid into cgroup.procs: every thread) into the leaf PATH/daemon, enables in
 *     PATH/cgroup.subtree_control those of memory, cpu, pids that PATH/cgroup.controllers
 *     lists, and creates PATH/INSTANCE with the same subtree_control. (A berthd that starts in
 *     a cgroup named "daemon", e.g. under systemd's DelegateSubgroup=daemon, takes its parent
 *     for PATH.) Attempt NAME is PATH/INSTANCE/NAME: memory.max (+ memory.swap.max 0,
 *     memory.oom.group 1), cpu.max, pids.max; kill by cgroup.kill (Linux >= 5.14), else
 *     freeze + SIGKILL + thaw until empty.
 *   - HYBRID (cgroup2 without controllers beside cgroup v1 controller hierarchies, e.g. at
 *     /sys/fs/cgroup/unified). Tracking, kill and CPU accounting in cgroup2
 *     (UNIFIED/PATH/INSTANCE/NAME: children of a cgroup with processes are allowed when no
 *     controller is enabled, so berthd does not move); limits in the v1 hierarchies of memory
 *     (memory.limit_in_bytes, and memory.memsw.limit_in_bytes, same value, where swap
 *     accounting is on), cpu (cpu.cfs_period_us/cfs_quota_us) and pids (pids.max), each at
 *     MOUNT/<berthd's path in it>/INSTANCE/NAME.
 *   - V1 (no cgroup2): tracked in the v1 freezer hierarchy (else pids); limits as in HYBRID;
 *     kill = freeze, SIGKILL every task, thaw, until empty; CPU accounting by cpuacct.
 *   - NONE (nothing writable: not root, /sys read-only as in a chroot, no cgroup mounted).
 *     berthd falls back to process groups: a process that calls setsid escapes cancel, and
 *     cpus/mem requests are not enforced. Every group call (group_of, create, enter, kill,
 *     signal, populated, remove, usage) then does nothing and returns BERTH_EUNSUPPORTED.
 * A layout that is detected but not writable falls through to the next one.
 *
 * Why a delegated subtree and not systemd transient scopes (StartTransientUnit): scopes need
 * systemd and its D-Bus, absent in containers, chroots and CI; a subtree of cgroupfs works
 * wherever a cgroup directory is writable, with plain open/write/mkdir/rmdir. (Under systemd,
 * run berthd with Delegate=yes, DelegateSubgroup=daemon where systemd >= 254 has it, and
 * KillMode=process so jobs outlive a berthd restart.)
 *
 * An attempt's cgroups are a struct berth__iso_group: plain NUL-terminated absolute paths,
 * one per hierarchy, so another process (the shim, started by exec) can get them from its
 * spec file (berth__iso_group_format/_parse) and use them without berth__iso_open. */
#ifndef BERTH_LIVE_CGROUP_H
#define BERTH_LIVE_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "berth/err.h"

enum berth__iso_kind { BERTH_ISO_NONE, BERTH_ISO_V2, BERTH_ISO_HYBRID, BERTH_ISO_V1 };

/* The hierarchies a group may have a directory in (index into berth__iso_group.dir). */
enum berth__iso_hier {
    BERTH__ISO_H_V2,      /* cgroup2: tracking, kill, CPU usage; in V2 also the limits */
    BERTH__ISO_H_MEMORY,  /* v1 memory */
    BERTH__ISO_H_CPU,     /* v1 cpu */
    BERTH__ISO_H_PIDS,    /* v1 pids */
    BERTH__ISO_H_CPUACCT, /* v1 cpuacct (V1 only: CPU usage) */
    BERTH__ISO_H_FREEZER, /* v1 freezer (V1 only: tracking, kill) */
    BERTH__ISO_NHIER
};

#define BERTH__ISO_PATH_MAX 1024
#define BERTH__ISO_NAME_MAX 128
/* How long berth__iso_kill_frozen may take before it gives up with BERTH_EAGAIN. */
#define BERTH__ISO_KILL_DEADLINE_MS 5000

/* What berth__iso_enforced reports. */
enum {
    BERTH_ISO_ENF_MEM = 1,  /* memory limit */
    BERTH_ISO_ENF_SWAP = 2, /* ... swap included (no swapping past the memory limit) */
    BERTH_ISO_ENF_CPU = 4,  /* CPU quota */
    BERTH_ISO_ENF_PIDS = 8, /* process count */
};

struct berth__iso; /* what open found: the subtree(s) berthd owns */

/* One attempt's cgroups: dir[h] is the absolute directory in hierarchy h, "" where the group
 * has none. Plain strings: copy it, write it to a file, use it in another process. */
struct berth__iso_group {
    char dir[BERTH__ISO_NHIER][BERTH__ISO_PATH_MAX];
};

/* Limits of one attempt; 0 = no limit. cpu_milli: 1000 = one CPU. */
struct berth__iso_limits {
    int64_t mem_bytes;
    int32_t cpu_milli;
    int64_t pids_max;
};

/* Where this process sits in each hierarchy: dir[h] its cgroup's absolute directory, "" where
 * h is not mounted (v1 entries only for controllers mounted as cgroup v1) or not visible. */
struct berth__iso_layout {
    char dir[BERTH__ISO_NHIER][BERTH__ISO_PATH_MAX];
};

/* Finds the layout and the subtrees berthd owns, creating them (see the design note), and
 * fills *out. instance names the directory that holds the attempts' groups ("berth"; letters,
 * digits, '-', '_', '.'). v2_root: NULL detects; else a cgroup2 directory to use as the
 * delegated subtree (kind V2, or NONE when it is not a writable cgroup2 directory). Kind NONE
 * is a success: berth__iso_describe says why. Fails (BERTH_EINPUT, BERTH_ENOMEM) only for a
 * bad instance or no memory. Call it once, early, as root, before dropping privileges and
 * before starting threads that must stay in berthd's cgroup (on V2 it moves the process). */
int berth__iso_open(const char *instance, const char *v2_root, struct berth__iso **out,
                    struct berth_err *err);
/* berth__iso_open with a given layout instead of /proc/self's (tests: a layout without its
 * cgroup2 entry opens V1 on a hybrid machine). */
int berth__iso_open_layout(const char *instance, const struct berth__iso_layout *lay,
                           struct berth__iso **out, struct berth_err *err);
/* Frees iso; the cgroups stay (attempts outlive berthd). NULL is fine. */
void berth__iso_close(struct berth__iso *iso);
/* enum berth__iso_kind. */
int berth__iso_kind(const struct berth__iso *iso);
/* One line for berthd's start log: layout, directories, controllers, what is enforced and
 * what is not (and why). */
const char *berth__iso_describe(const struct berth__iso *iso);
/* BERTH_ISO_ENF_* bits: the limits berth__iso_create really applies. */
unsigned berth__iso_enforced(const struct berth__iso *iso);
/* rmdir of the INSTANCE directories open created (tests, uninstall): BERTH_EAGAIN while an
 * attempt's group remains. berthd's PATH/daemon on V2 stays (berthd is in it). */
int berth__iso_remove_base(const struct berth__iso *iso, struct berth_err *err);

/* The paths of attempt name's group, without creating anything (recovery after a restart
 * finds a lost attempt's group with it). BERTH_EINPUT for a bad name, BERTH_EUNSUPPORTED on
 * NONE (g all ""). */
int berth__iso_group_of(const struct berth__iso *iso, const char *name, struct berth__iso_group *g,
                        struct berth_err *err);
/* Creates attempt name's group in every hierarchy and writes lim (limits the layout cannot
 * enforce are skipped: see berth__iso_enforced). Idempotent: an existing group gets lim. */
int berth__iso_create(const struct berth__iso *iso, const char *name,
                      const struct berth__iso_limits *lim, struct berth__iso_group *g,
                      struct berth_err *err);
/* Moves the calling process into every directory of g. For a forked child before exec:
 * async-signal-safe (open, write, close, getpid only; no malloc, no stdio, no errno kept).
 * 0 when moved everywhere; BERTH_EIO when a move failed (then the child must not run the
 * job: it would run partly unconfined); BERTH_EUNSUPPORTED for an empty group (NONE). */
int berth__iso_enter(const struct berth__iso_group *g);
/* Kills every process in g, setsid escapes included: cgroup.kill where there is one (the
 * processes die asynchronously: berth__iso_wait_empty), else berth__iso_kill_frozen. */
int berth__iso_kill(const struct berth__iso_group *g, struct berth_err *err);
/* Freeze (cgroup.freeze or freezer.state), SIGKILL every pid in cgroup.procs, thaw, until
 * empty or BERTH__ISO_KILL_DEADLINE_MS (then BERTH_EAGAIN). Blocks while processes die.
 * Without a freezer, plain SIGKILL passes. */
int berth__iso_kill_frozen(const struct berth__iso_group *g, struct berth_err *err);
/* Sends sig to every process in g's tracking cgroup (its cgroup.procs); returns how many. */
int berth__iso_signal(const struct berth__iso_group *g, int sig, struct berth_err *err);
/* The first max pids of g's tracking cgroup (its cgroup.procs) into out: how many (0: empty
 * or gone), BERTH_EUNSUPPORTED on NONE, BERTH_EIO when it cannot be read. */
int berth__iso_pids(const struct berth__iso_group *g, pid_t *out, size_t max);
/* 1 while a process is in g, 0 when empty, < 0 on error (BERTH_EUNSUPPORTED on NONE). */
int berth__iso_populated(const struct berth__iso_group *g, struct berth_err *err);
/* Polls berth__iso_populated until 0 (returns 0) or timeout_ms (BERTH_EAGAIN). */
int berth__iso_wait_empty(const struct berth__iso_group *g, int timeout_ms, struct berth_err *err);
/* rmdir of every directory of g (one already gone is fine); BERTH_EAGAIN while a process
 * remains in it. */
int berth__iso_remove(const struct berth__iso_group *g, struct berth_err *err);
/* Accounting: peak memory in bytes (memory.peak, v1 memory.max_usage_in_bytes) and CPU time
 * in microseconds (cpu.stat usage_usec, v1 cpuacct.usage), each -1 when unknown. Read it
 * before berth__iso_remove. 0, or BERTH_EUNSUPPORTED when both are unknown. */
int berth__iso_usage(const struct berth__iso_group *g, int64_t *mem_peak, int64_t *cpu_us);

/* g as text for a spec file: one "KEY=PATH" line per directory (KEY: v2, memory, cpu, pids,
 * cpuacct, freezer), '\n' after each (cgroup paths hold no newline: /proc/self/cgroup could
 * not show them). Returns the length, or BERTH_EINPUT when it does not fit in len. */
int berth__iso_group_format(const struct berth__iso_group *g, char *buf, size_t len);
/* The reverse: BERTH_EINPUT on an unknown key, a relative or too long path. "" gives an
 * empty group. */
int berth__iso_group_parse(const char *text, struct berth__iso_group *g, struct berth_err *err);

/* Parses /proc/self/mountinfo and /proc/self/cgroup texts into a layout. */
void berth__iso_layout_parse(const char *mountinfo, const char *cgroup,
                             struct berth__iso_layout *lay);
/* The same from this process's /proc/self files. BERTH_EIO when they cannot be read. */
int berth__iso_layout_read(struct berth__iso_layout *lay, struct berth_err *err);

#endif
