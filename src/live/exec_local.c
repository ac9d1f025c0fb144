/* The local executor's berthd side (see exec_local.h): write the attempt's spec, take its
 * lock, fork and re-execute berthd as the shim in a session of its own; later read the
 * attempt's exit file, test its lock, and signal its process group. */
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

#include "exec_local.h"

void berth__lexec_path(const struct berth__lexec *x, uint64_t id, const char *file, char *buf,
                       size_t len)
{
    snprintf(buf, len, "%s/jobs/%llu%s%s", x->state_dir, (unsigned long long)id, *file ? "/" : "",
             file);
}

static void attempt_path(const struct berth__lexec *x, const struct berth__ljob *j, const char *ext,
                         char *buf, size_t len)
{
    char f[64];
    snprintf(f, sizeof f, "a%d.%s", j->attempt, ext);
    berth__lexec_path(x, j->id, f, buf, len);
}

uint64_t berth__proc_start(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    /* after ") " come fields 3.. (state is field 3); start time is field 22 */
    p += 2;
    for (int field = 3; field < 22 && p; field++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    return p ? strtoull(p, NULL, 10) : 0;
}

static int write_spec(const char *path, const struct berth__lexec *x, const struct berth__ljob *j,
                      char *const *env, struct berth_err *err)
{
    char out[4096], er[4096], pid[4096], ex[4096];
    berth__lexec_path(x, j->id, "stdout.log", out, sizeof out);
    berth__lexec_path(x, j->id, "stderr.log", er, sizeof er);
    attempt_path(x, j, "pid", pid, sizeof pid);
    attempt_path(x, j, "exit", ex, sizeof ex);
    json_t *argv = json_array(), *envj = json_array();
    for (size_t i = 0; j->argv[i]; i++)
        json_array_append_new(argv, json_string(j->argv[i]));
    for (size_t i = 0; env[i]; i++)
        json_array_append_new(envj, json_string(env[i]));
    json_t *o = json_pack("{s:o,s:o,s:s,s:s,s:s,s:s,s:s}", "argv", argv, "env", envj, "cwd", j->cwd,
                          "stdout", out, "stderr", er, "pidfile", pid, "exitfile", ex);
    int rc = o && !json_dump_file(o, path, JSON_COMPACT)
                 ? 0
                 : berth_err_set(err, BERTH_EIO, "executor: cannot write %s", path);
    json_decref(o);
    return rc;
}

int berth__lexec_launch(const struct berth__lexec *x, struct berth__ljob *j, char *const *env,
                        struct berth_err *err)
{
    char dir[4096], spec[4096], lock[4096], fdstr[16];
    berth__lexec_path(x, j->id, "", dir, sizeof dir);
    if (mkdir(dir, 0700) && errno != EEXIST)
        return berth_err_set(err, BERTH_EIO, "executor: cannot create %s: %s", dir,
                             strerror(errno));
    attempt_path(x, j, "spec", spec, sizeof spec);
    attempt_path(x, j, "lock", lock, sizeof lock);
    int rc = write_spec(spec, x, j, env, err);
    if (rc)
        return rc;
    int fd = open(lock, O_RDWR | O_CREAT, 0600); /* no O_CLOEXEC: the shim inherits it */
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
    int fd = open(path, O_RDONLY | O_CLOEXEC);
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
    int fd = open(lock, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int busy = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return busy;
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
    return 2;
}

int berth__lexec_signal(const struct berth__lexec *x, struct berth__ljob *j, int sig)
{
    char path[4096], buf[64];
    int pgid = 0;
    unsigned long long start = 0;
    attempt_path(x, j, "pid", path, sizeof path);
    if (read_file(path, buf, sizeof buf) || sscanf(buf, "%d %llu", &pgid, &start) != 2 || pgid <= 1)
        return -1;
    /* the group leader is waited for by the shim only after it ends, so while it is alive
     * with the start time recorded, pgid is still the job's group */
    if (berth__proc_start(pgid) == start)
        return kill(-pgid, sig);
    return kill(-pgid, sig) && errno == ESRCH ? -1 : 0;
}

void berth__lexec_reap(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}
