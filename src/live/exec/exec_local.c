/* The local executor's berthd side (see exec_local.h): prepare the job's spool folder, write
 * the attempt's spec, take its lock, fork and re-execute berthd as the shim in a session of
 * its own; later read the attempt's exit file, test its lock, and signal what it runs. */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/exec/cgroup.h"
#include "live/exec/exec_local.h"
#include "live/exec/ident.h"

void berth__lexec_path(const struct berth__lexec *x, uint64_t id, const char *file, char *buf,
                       size_t len)
{
    snprintf(buf, len, "%s/jobs/%llu%s%s", x->state_dir, (unsigned long long)id, *file ? "/" : "",
             file);
}

void berth__lexec_spool(const struct berth__lexec *x, uint64_t id, const char *file, char *buf,
                        size_t len)
{
    snprintf(buf, len, "%s/%llu%s%s", x->spool_dir, (unsigned long long)id, *file ? "/" : "", file);
}

static void attempt_file(const struct berth__lexec *x, uint64_t id, int attempt, const char *ext,
                         char *buf, size_t len)
{
    char f[64];
    snprintf(f, sizeof f, "a%d.%s", attempt, ext);
    berth__lexec_path(x, id, f, buf, len);
}

static void attempt_path(const struct berth__lexec *x, const struct berth__ljob *j, const char *ext,
                         char *buf, size_t len)
{
    attempt_file(x, j->id, j->attempt, ext, buf, len);
}

/* A folder of the job's account, mode 0700: made, or an existing one checked (a folder that
 * is not the account's own, or a link, is replaced: the account may have put it there). */
static int own_dir(const struct berth__lexec *x, const struct berth__ljob *j, const char *dir,
                   struct berth_err *err)
{
    struct stat st;
    if (!lstat(dir, &st) && (!S_ISDIR(st.st_mode) || (x->multi_user && st.st_uid != j->uid))) {
        if (unlink(dir) && rmdir(dir))
            return berth_err_set(err, BERTH_EIO,
                                 "executor: %s is not the job's own folder and "
                                 "cannot be replaced: %s",
                                 dir, strerror(errno));
    }
    if (mkdir(dir, 0700) && errno != EEXIST)
        return berth_err_set(err, BERTH_EIO, "executor: cannot create %s: %s", dir,
                             strerror(errno));
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int bad = fd < 0 || (x->multi_user && fchown(fd, j->uid, j->gid)) || fchmod(fd, 0700);
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (bad)
        return berth_err_set(err, BERTH_EIO, "executor: cannot give %s to uid %u: %s", dir,
                             (unsigned)j->uid, strerror(e));
    return 0;
}

int berth__lexec_prepare(const struct berth__lexec *x, const struct berth__ljob *j,
                         struct berth_err *err)
{
    char dir[4096], prog[4200];
    berth__lexec_path(x, j->id, "", dir, sizeof dir);
    if (mkdir(dir, 0700) && errno != EEXIST)
        return berth_err_set(err, BERTH_EIO, "executor: cannot create %s: %s", dir,
                             strerror(errno));
    berth__lexec_spool(x, j->id, "", dir, sizeof dir);
    int rc = own_dir(x, j, dir, err);
    if (rc)
        return rc;
    /* the progress file exists before the job runs, as the job's own: the job appends. One
     * the account left there is kept only when it is a plain file of its own with one name
     * (looked at through O_PATH: root opens nothing the account chose); anything else (a
     * link, a FIFO, a hard link to someone's file) loses its name to a new file. */
    berth__lexec_spool(x, j->id, "progress.jsonl", prog, sizeof prog);
    struct stat st;
    int fd = open(prog, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int keep = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
               (!x->multi_user || st.st_uid == j->uid);
    if (fd >= 0)
        close(fd);
    if (keep)
        return 0;
    unlink(prog);
    rmdir(prog);
    fd = open(prog, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int bad = fd < 0 || (x->multi_user && fchown(fd, j->uid, j->gid));
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (bad)
        return berth_err_set(err, BERTH_EIO, "executor: cannot create %s: %s", prog, strerror(e));
    return 0;
}

int berth__lexec_open_job_file(const struct berth__lexec *x, uint32_t uid, const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (x->multi_user && st.st_uid != uid)) {
        close(fd);
        return -1;
    }
    return fd;
}

static int write_spec(const char *path, const struct berth__lexec *x, const struct berth__ljob *j,
                      char *const *env, const char *cgroup, struct berth_err *err)
{
    char out[4096], er[4096], pid[4096], ex[4096], drop[4096];
    berth__lexec_spool(x, j->id, "stdout.log", out, sizeof out);
    berth__lexec_spool(x, j->id, "stderr.log", er, sizeof er);
    attempt_path(x, j, "pid", pid, sizeof pid);
    attempt_path(x, j, "exit", ex, sizeof ex);
    attempt_path(x, j, "drop", drop, sizeof drop);
    json_t *argv = json_array(), *envj = json_array(), *groups = json_array();
    for (size_t i = 0; j->argv[i]; i++)
        json_array_append_new(argv, json_string(j->argv[i]));
    for (size_t i = 0; env[i]; i++)
        json_array_append_new(envj, json_string(env[i]));
    if (x->multi_user) { /* resolved here, so the shim reads no account database */
        gid_t g[BERTH_ACCOUNT_GROUPS_MAX];
        struct berth__account a = {.uid = j->uid, .gid = j->gid};
        snprintf(a.name, sizeof a.name, "%s", j->user);
        int n = berth__account_groups(&a, g, BERTH_ACCOUNT_GROUPS_MAX);
        for (int i = 0; i < n; i++)
            json_array_append_new(groups, json_integer(g[i]));
        if (n <= 0)
            json_array_append_new(groups, json_integer(j->gid));
    }
    json_t *o = json_pack("{s:o,s:o,s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:I,s:I,s:o,s:I,s:s?}", "argv",
                          argv, "env", envj, "cwd", j->cwd, "stdout", out, "stderr", er, "pidfile",
                          pid, "exitfile", ex, "dropfile", drop, "setuid", x->multi_user, "uid",
                          (json_int_t)j->uid, "gid", (json_int_t)j->gid, "groups", groups,
                          "log_cap", (json_int_t)x->log_cap, "cgroup", cgroup);
    /* the spec holds the job's token: berthd's alone */
    int fd = o ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    int rc = fd >= 0 && !json_dumpfd(o, fd, JSON_COMPACT)
                 ? 0
                 : berth_err_set(err, BERTH_EIO, "executor: cannot write %s", path);
    if (fd >= 0)
        close(fd);
    json_decref(o);
    return rc;
}

/* The attempt's cgroup, with the job's limits: its description for the shim, or "" where
 * berthd has no cgroups. */
static int make_cgroup(const struct berth__lexec *x, const struct berth__ljob *j, char *desc,
                       size_t len, struct berth_err *err)
{
    desc[0] = '\0';
    if (!x->iso || berth__iso_kind(x->iso) == BERTH_ISO_NONE)
        return 0;
    char name[64];
    snprintf(name, sizeof name, "j%llu-a%d", (unsigned long long)j->id, j->attempt);
    struct berth__iso_limits lim = {.mem_bytes =
                                        berth_jobspec_extra(&j->spec)->mem_mib * 1024 * 1024,
                                    .cpu_milli = (int32_t)j->extra.cpu_milli,
                                    .pids_max = x->pids_max};
    struct berth__iso_group g;
    int rc = berth__iso_create(x->iso, name, &lim, &g, err);
    if (!rc && berth__iso_group_format(&g, desc, len) < 0)
        rc = berth_err_set(err, BERTH_EIO, "executor: cgroup paths too long");
    return rc;
}

int berth__lexec_launch(const struct berth__lexec *x, struct berth__ljob *j, char *const *env,
                        struct berth_err *err)
{
    char spec[4096], lock[4096], fdstr[16], cg[BERTH__ISO_NHIER * (BERTH__ISO_PATH_MAX + 16)];
    int rc = berth__lexec_prepare(x, j, err);
    if (rc)
        return rc;
    attempt_path(x, j, "spec", spec, sizeof spec);
    attempt_path(x, j, "lock", lock, sizeof lock);
    if ((rc = make_cgroup(x, j, cg, sizeof cg, err)) ||
        (rc = write_spec(spec, x, j, env, cg[0] ? cg : NULL, err)))
        return rc;
    int fd =
        open(lock, O_RDWR | O_CREAT | O_NOFOLLOW, 0600); /* no O_CLOEXEC: the shim inherits it */
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
        if (fd >= 0)
            close(fd);
        return berth_err_set(err, BERTH_EIO, "executor: cannot lock %s", lock);
    }
    snprintf(fdstr, sizeof fdstr, "%d", fd);
    char *args[] = {(char *)x->self_exe, "--shim", spec, fdstr, NULL};
    pid_t pid = fork();
    if (pid == 0) { /* only async-signal-safe calls until exec */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        setsid();
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
            if (nul > 2)
                close(nul);
        }
        execv(x->self_exe, args);
        _exit(127);
    }
    close(fd); /* the child holds the lock now */
    if (pid < 0)
        return berth_err_set(err, BERTH_EIO, "executor: fork: %s", strerror(errno));
    j->shim_pid = (int32_t)pid;
    j->shim_start = berth__proc_start(pid);
    j->job_pgid = 0;
    return 0;
}

static int read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

static int read_exit(const char *path, struct berth__ljob *j)
{
    char buf[64];
    int v;
    if (read_file(path, buf, sizeof buf))
        return 0;
    if (sscanf(buf, "exit %d", &v) == 1) {
        j->exit_code = v;
        j->exit_signal = -1;
        return 1;
    }
    if (sscanf(buf, "signal %d", &v) == 1) {
        j->exit_code = -1;
        j->exit_signal = v;
        return 1;
    }
    j->exit_code = 255; /* a damaged exit file still means it ended */
    return 1;
}

/* 1 when a shim of this attempt holds its lock. */
static int shim_alive(const char *lock)
{
    int fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    int busy = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return busy;
}

/* The attempt's cgroup, from its spec (0), or -1 when it has none. */
static int attempt_cgroup(const struct berth__lexec *x, uint64_t id, int attempt,
                          struct berth__iso_group *g)
{
    if (!x->iso || berth__iso_kind(x->iso) == BERTH_ISO_NONE)
        return -1;
    char name[64];
    snprintf(name, sizeof name, "j%llu-a%d", (unsigned long long)id, attempt);
    return berth__iso_group_of(x->iso, name, g, NULL) ? -1 : 0;
}

static int spec_cgroup(const struct berth__lexec *x, const struct berth__ljob *j,
                       struct berth__iso_group *g)
{
    return attempt_cgroup(x, j->id, j->attempt, g);
}

int berth__lexec_poll(const struct berth__lexec *x, struct berth__ljob *j)
{
    char ex[4096], lock[4096];
    attempt_path(x, j, "exit", ex, sizeof ex);
    if (read_exit(ex, j))
        return 1;
    attempt_path(x, j, "lock", lock, sizeof lock);
    if (shim_alive(lock))
        return 0;
    if (read_exit(ex, j)) /* it may have ended between the two looks */
        return 1;
    berth__lexec_signal(x, j, SIGKILL); /* a job left without its shim must not run on */
    struct berth__iso_group g;
    if (!spec_cgroup(x, j, &g) && !berth__iso_wait_empty(&g, 2000, NULL))
        berth__iso_remove(&g, NULL);
    return 2;
}

int berth__lexec_signal(const struct berth__lexec *x, struct berth__ljob *j, int sig)
{
    char path[4096], buf[64];
    int pgid = 0, sent = -1;
    unsigned long long start = 0;
    struct berth__iso_group g;
    /* SIGKILL: everything in the attempt's cgroup, setsid escapes included; the cgroup is
     * berth's own, so nothing else can be in it */
    if (sig == SIGKILL && !spec_cgroup(x, j, &g) && !berth__iso_kill(&g, NULL))
        sent = 0;
    attempt_path(x, j, "pid", path, sizeof path);
    if (read_file(path, buf, sizeof buf) || sscanf(buf, "%d %llu", &pgid, &start) != 2 || pgid <= 1)
        return sent;
    /* the group's leader is waited for by the shim only after the whole attempt ended, so
     * while a process of that pid with that start time lives, the group is the job's; a pid
     * with another start time is some other program's (a reboot, or recycled pids) */
    if (start && berth__proc_start(pgid) == start && !kill(-pgid, sig))
        sent = 0;
    return sent;
}

int berth__lexec_pids(const struct berth__lexec *x, uint64_t id, int attempt, pid_t *out,
                      size_t max)
{
    char path[4096], buf[64];
    int pgid = 0;
    unsigned long long start = 0;
    attempt_file(x, id, attempt, "pid", path, sizeof path);
    if (read_file(path, buf, sizeof buf) || sscanf(buf, "%d %llu", &pgid, &start) != 2 || pgid <= 1)
        return -1;
    size_t n = 0;
    if (max && start && berth__proc_start(pgid) == start)
        out[n++] = pgid; /* the main process: checked first, so often the only one read */
    struct berth__iso_group g;
    if (n >= max)
        return (int)n;
    if (attempt_cgroup(x, id, attempt, &g)) /* no cgroups: its process group */
        return n ? berth__proc_group(pgid, out, max) : 0;
    int k = berth__iso_pids(&g, out + n, max - n);
    size_t lead = n;
    for (int i = 0; i < k; i++) /* the main process is listed there too */
        if (!lead || out[lead + (size_t)i] != out[0])
            out[n++] = out[lead + (size_t)i];
    return (int)n;
}

int berth__lexec_dropped(const struct berth__lexec *x, const struct berth__ljob *j, int64_t *out,
                         int64_t *err_)
{
    char path[4096], buf[128];
    long long a = 0, b = 0;
    *out = *err_ = 0;
    attempt_path(x, j, "drop", path, sizeof path);
    if (read_file(path, buf, sizeof buf) || sscanf(buf, "stdout %lld stderr %lld", &a, &b) != 2)
        return -1;
    *out = a;
    *err_ = b;
    return 0;
}

void berth__lexec_reap(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}
