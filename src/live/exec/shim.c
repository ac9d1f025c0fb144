/* The shim: berthd re-executed as `berthd --shim SPEC LOCKFD`, one per attempt (see
 * exec_local.h). It forks the job into a process group of its own (in the attempt's cgroup,
 * as the job's account), records that group, copies the job's stdout and stderr from pipes
 * into the logs under the log cap, and once the job's main process has ended kills what is
 * left of the attempt, waits until nothing of it runs, and writes the exit status, holding
 * the attempt's lock all along. It lives in its own session, so it and the job outlive
 * berthd. */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live/exec/cgroup.h"
#include "live/exec/exec_local.h"
#include "live/exec/ident.h"
#include "util/atomic_file.h"

struct spec {
    char **argv, **env;
    const char *cwd, *out, *err, *pidf, *exitf, *dropf, *cgroup;
    int setuid_;
    uid_t uid;
    gid_t gid;
    gid_t groups[BERTH_ACCOUNT_GROUPS_MAX];
    int ngroups;
    int64_t log_cap;
};

/* One log: the shim is its only writer, so it keeps the offset itself (no O_APPEND) and
 * can compact the file when it passes the cap. */
struct log {
    int fd, pipe;
    int64_t size, dropped;
    const char *name;
};

static char **strv(const json_t *a)
{
    size_t n = json_array_size(a);
    char **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        v[i] = (char *)json_string_value(json_array_get(a, i));
        if (!v[i]) {
            free(v);
            return NULL;
        }
    }
    return v;
}

static const char *env_get(char **env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env[i]; i++)
        if (!strncmp(env[i], name, n) && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

/* execve of argv[0], searched in the job's PATH when it has no '/'. */
static void exec_job(char **argv, char **env)
{
    if (strchr(argv[0], '/')) {
        execve(argv[0], argv, env);
        return;
    }
    const char *path = env_get(env, "PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char buf[4096];
    while (*path) {
        const char *c = strchr(path, ':');
        size_t len = c ? (size_t)(c - path) : strlen(path);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, len ? path : ".", argv[0]);
        execve(buf, argv, env);
        path += len + (c != NULL);
    }
}

static void close_others(int keep)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    int self = dirfd(d);
    struct dirent *e;
    int fds[1024], n = 0;
    while ((e = readdir(d)) && n < 1024) {
        int fd = (int)strtol(e->d_name, NULL, 10);
        if (e->d_name[0] != '.' && fd > 2 && fd != keep && fd != self)
            fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

/* Writes text to path through path.tmp (0600, never through a link), fsync'd. 0 or -1. */
static int write_atomic(const char *path, const char *text)
{
    return berth__atomic_write(NULL, path, text, strlen(text), BERTH_AF_FSYNC | BERTH_AF_NOFOLLOW,
                               0600, NULL)
               ? -1
               : 0;
}

static berth_us mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (berth_us)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- logs -------------------------------------------------------------------------- */

/* Opens one log for the account that is the caller's (the shim's child, dropped to it):
 * the existing file when it is a plain file of the account's with one name, else a new one
 * made with O_EXCL. A link, a FIFO, a hard link to any other file is unlinked, never
 * followed, never written, never truncated by the log cap. */
static int open_one_log(const char *path, uid_t uid)
{
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    struct stat st;
    if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == uid) {
        fcntl(fd, F_SETFL, 0);
        return fd;
    }
    if (fd >= 0)
        close(fd);
    unlink(path); /* not the job's log: its name goes, whatever it pointed at stays */
    return open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* Becomes the job's account for good (groups, gid, uid); 0 when done and checked. */
static int become(const struct spec *s)
{
    return setgroups((size_t)s->ngroups, s->groups) || setgid(s->gid) || setuid(s->uid) ||
                   getuid() != s->uid || geteuid() != s->uid || setuid(0) == 0
               ? -1
               : 0;
}

/* Opens both logs as the job's account, as slurmstepd does: a child drops to the account,
 * opens them with its rights alone and hands the descriptors back over a socket pair, so
 * root never opens, chowns or truncates a file the account chose. fds[i] is -1 for a log
 * that could not be opened (its output is then lost, as before). */
static void open_logs(const struct spec *s, int fds[2])
{
    fds[0] = fds[1] = -1;
    if (!s->setuid_ || s->uid == 0) { /* berthd's own account: nothing to drop */
        fds[0] = open_one_log(s->out, s->setuid_ ? 0 : getuid());
        fds[1] = open_one_log(s->err, s->setuid_ ? 0 : getuid());
        return;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        int got[2] = {-1, -1};
        if (!become(s)) {
            got[0] = open_one_log(s->out, s->uid);
            got[1] = open_one_log(s->err, s->uid);
        }
        char have[2] = {got[0] >= 0, got[1] >= 0};
        int send[2], n = 0;
        for (int i = 0; i < 2; i++)
            if (got[i] >= 0)
                send[n++] = got[i];
        union {
            char buf[CMSG_SPACE(sizeof send)];
            struct cmsghdr align;
        } u;
        struct iovec iov = {have, sizeof have};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
        if (n) {
            m.msg_control = u.buf;
            m.msg_controllen = CMSG_SPACE(n * sizeof(int));
            struct cmsghdr *c = CMSG_FIRSTHDR(&m);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(n * sizeof(int));
            memcpy(CMSG_DATA(c), send, n * sizeof(int));
        }
        _exit(sendmsg(sv[1], &m, 0) == (ssize_t)sizeof have ? 0 : 1);
    }
    close(sv[1]);
    if (pid > 0) {
        char have[2] = {0, 0};
        union {
            char buf[CMSG_SPACE(2 * sizeof(int))];
            struct cmsghdr align;
        } u;
        struct iovec iov = {have, sizeof have};
        struct msghdr m = {
            .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
        ssize_t r;
        while ((r = recvmsg(sv[0], &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
            ;
        struct cmsghdr *c = r == (ssize_t)sizeof have ? CMSG_FIRSTHDR(&m) : NULL;
        int got[2] = {-1, -1}, n = 0;
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            memcpy(got, CMSG_DATA(c), (size_t)(n > 2 ? 2 : n) * sizeof(int));
        }
        for (int i = 0, k = 0; i < 2; i++)
            if (have[i] && k < n)
                fds[i] = got[k++];
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    close(sv[0]);
}

static int write_all(int fd, const char *p, size_t n, off_t at)
{
    while (n) {
        ssize_t w = pwrite(fd, p, n, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
        at += w;
    }
    return 0;
}

static void note_drop(const struct spec *s, const struct log *l)
{
    char text[128];
    snprintf(text, sizeof text, "stdout %lld stderr %lld\n", (long long)l[0].dropped,
             (long long)l[1].dropped);
    write_atomic(s->dropf, text);
}

/* The log passed its cap: keep its newest half, after a line saying what was dropped. */
static void compact(struct log *l, int64_t cap)
{
    int64_t keep = cap / 2, from = l->size - keep;
    char note[160], buf[1 << 16];
    l->dropped += from;
    int n = snprintf(note, sizeof note,
                     "[berth: %lld bytes of %s dropped here in all: the log keeps at most %lld "
                     "bytes, the newest]\n",
                     (long long)l->dropped, l->name, (long long)cap);
    /* forward copy of [from, size) to [n, n + keep): the target lies before the source */
    for (int64_t done = 0; done < keep;) {
        size_t want = keep - done < (int64_t)sizeof buf ? (size_t)(keep - done) : sizeof buf;
        ssize_t r = pread(l->fd, buf, want, (off_t)(from + done));
        if (r <= 0 || write_all(l->fd, buf, (size_t)r, (off_t)(n + done)))
            break;
        done += r;
    }
    write_all(l->fd, note, (size_t)n, 0);
    l->size = n + keep;
    if (ftruncate(l->fd, (off_t)l->size))
        l->size = n + keep; /* nothing better to do: the next write goes at size */
}

/* Copies what the pipe holds into the log; 0 at end of file. */
static int pump(const struct spec *s, struct log *logs, int i)
{
    struct log *l = &logs[i];
    char buf[1 << 16];
    ssize_t r = read(l->pipe, buf, sizeof buf);
    if (r < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (r == 0)
        return 0;
    if (l->fd >= 0) {
        if (!write_all(l->fd, buf, (size_t)r, (off_t)l->size))
            l->size += r;
        if (s->log_cap > 0 && l->size > s->log_cap) {
            compact(l, s->log_cap);
            note_drop(s, logs);
        }
    }
    return 1;
}

/* ---- the job ------------------------------------------------------------------------ */

/* $BERTH_HOSTFILE from $BERTH_RANK_HOSTS (berthd sets both, docs/job-protocol.md): one line
 * "HOST slots=N" per run of consecutive ranks on one host, in rank order; written by the
 * job's own account, never through a link. 0, or -1 with errno. */
static int write_hostfile(char **env)
{
    const char *hosts = env_get(env, "BERTH_RANK_HOSTS"), *path = env_get(env, "BERTH_HOSTFILE");
    if (!hosts || !path)
        return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int rc = 0;
    for (const char *p = hosts; *p && !rc;) {
        size_t n = strcspn(p, ","), slots = 0;
        const char *q = p;
        while (!strncmp(q, p, n) && (q[n] == ',' || !q[n]) && *q) { /* the run of this host */
            slots++;
            q += n + (q[n] == ',');
        }
        rc = dprintf(fd, "%.*s slots=%zu\n", (int)n, p, slots) < 0 ? -1 : 0;
        p = q;
    }
    if (close(fd))
        rc = -1;
    return rc;
}

static void child(const struct spec *s, const struct berth__iso_group *g, int out, int err,
                  int lockfd)
{
    setpgid(0, 0);
    close(lockfd);
    for (int sig = 1; sig < 32; sig++)
        signal(sig, SIG_DFL);
    int nul = open("/dev/null", O_RDONLY);
    if (nul < 0 || dup2(nul, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(126);
    close(nul);
    close(out);
    close(err);
    if (g && berth__iso_enter(g)) { /* never run partly outside its cgroup */
        dprintf(2, "berth: cannot enter the attempt's cgroup\n");
        _exit(125);
    }
    if (s->setuid_ && s->uid != 0) { /* the job's account, for good: groups, gid, uid */
        if (become(s)) {
            dprintf(2, "berth: cannot become uid %u: %s\n", (unsigned)s->uid, strerror(errno));
            _exit(126);
        }
    }
    const char *nofile = getenv("BERTH_NOFILE_SOFT"); /* what berthd raised for its sockets */
    struct rlimit rl;
    if (nofile && !getrlimit(RLIMIT_NOFILE, &rl)) {
        rl.rlim_cur = (rlim_t)strtoull(nofile, NULL, 10);
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    umask(022);          /* berthd's 077 is for its own files, not the job's */
    if (chdir(s->cwd)) { /* entered as the job's account: its rights decide */
        dprintf(2, "berth: cannot enter %s: %s\n", s->cwd, strerror(errno));
        _exit(126);
    }
    if (write_hostfile(s->env)) {
        dprintf(2, "berth: cannot write %s: %s\n", env_get(s->env, "BERTH_HOSTFILE"),
                strerror(errno));
        _exit(126);
    }
    exec_job(s->argv, s->env);
    dprintf(2, "berth: cannot run %s: %s\n", s->argv[0], strerror(errno));
    _exit(127);
}

static int read_spec(json_t *o, struct spec *s)
{
    memset(s, 0, sizeof *s);
    s->argv = strv(json_object_get(o, "argv"));
    s->env = strv(json_object_get(o, "env"));
    s->cwd = json_string_value(json_object_get(o, "cwd"));
    s->out = json_string_value(json_object_get(o, "stdout"));
    s->err = json_string_value(json_object_get(o, "stderr"));
    s->pidf = json_string_value(json_object_get(o, "pidfile"));
    s->exitf = json_string_value(json_object_get(o, "exitfile"));
    s->dropf = json_string_value(json_object_get(o, "dropfile"));
    s->cgroup = json_string_value(json_object_get(o, "cgroup"));
    s->setuid_ = json_is_true(json_object_get(o, "setuid"));
    s->uid = (uid_t)json_integer_value(json_object_get(o, "uid"));
    s->gid = (gid_t)json_integer_value(json_object_get(o, "gid"));
    s->log_cap = json_integer_value(json_object_get(o, "log_cap"));
    const json_t *g = json_object_get(o, "groups");
    for (size_t i = 0; i < json_array_size(g) && s->ngroups < BERTH_ACCOUNT_GROUPS_MAX; i++)
        s->groups[s->ngroups++] = (gid_t)json_integer_value(json_array_get(g, i));
    if (s->setuid_ && !s->ngroups)
        s->groups[s->ngroups++] = s->gid;
    return s->argv && s->env && s->argv[0] && s->cwd && s->out && s->err && s->pidf && s->exitf &&
                   s->dropf
               ? 0
               : -1;
}

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

/* 1 once the job's main process has ended, left unreaped: a zombie keeps its pid, and so
 * its process group, from being recycled while what is left of the attempt is killed. */
static int ended(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return !waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid;
}

/* Copies the logs until the job's main process ends. */
static void supervise(const struct spec *s, pid_t pid, struct log *logs)
{
    int pfd = pidfd_of(pid);
    while (!ended(pid)) {
        struct pollfd p[3] = {
            {logs[0].pipe, POLLIN, 0}, {logs[1].pipe, POLLIN, 0}, {pfd, POLLIN, 0}};
        /* without a pidfd, or with both pipes closed by the job: look every 200 ms */
        int both_closed = logs[0].pipe < 0 && logs[1].pipe < 0;
        if (poll(p, 3, pfd >= 0 && !both_closed ? -1 : 200) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++)
            if (p[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP)) && !pump(s, logs, i)) {
                close(logs[i].pipe);
                logs[i].pipe = -1;
            }
    }
    if (pfd >= 0)
        close(pfd);
}

/* After the main process: everything left of the attempt is killed, the pipes drained (a
 * deadline, since where there is no cgroup an escaped process may hold them), and the
 * attempt is over only once its cgroup is empty. */
static void finish(const struct spec *s, const struct berth__iso_group *g, pid_t pid,
                   struct log *logs)
{
    if (g)
        berth__iso_kill(g, NULL);
    kill(-pid, SIGKILL);
    berth_us until = mono_us() + 2000000;
    while ((logs[0].pipe >= 0 || logs[1].pipe >= 0) && mono_us() < until) {
        struct pollfd p[2] = {{logs[0].pipe, POLLIN, 0}, {logs[1].pipe, POLLIN, 0}};
        if (poll(p, 2, 100) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++)
            if (p[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP)) && !pump(s, logs, i)) {
                close(logs[i].pipe);
                logs[i].pipe = -1;
            }
    }
    if (!g)
        return;
    for (until = mono_us() + 10000000; berth__iso_populated(g, NULL) > 0 && mono_us() < until;) {
        berth__iso_kill(g, NULL);
        berth__iso_wait_empty(g, 200, NULL);
    }
    berth__iso_remove(g, NULL);
}

int berth__shim_main(const char *spec_path, int lockfd)
{
    close_others(lockfd);
    json_error_t je;
    json_t *o = json_load_file(spec_path, 0, &je);
    struct spec s;
    if (!o || read_spec(o, &s)) {
        json_decref(o);
        return 2;
    }
    struct berth__iso_group group, *g = NULL;
    if (s.cgroup && !berth__iso_group_parse(s.cgroup, &group, NULL))
        g = &group;
    signal(SIGHUP, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    int lfd[2];
    open_logs(&s, lfd);
    struct log logs[2] = {{lfd[0], -1, 0, 0, "stdout"}, {lfd[1], -1, 0, 0, "stderr"}};
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (logs[i].fd >= 0 && !fstat(logs[i].fd, &st))
            logs[i].size = st.st_size;
    }
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc = 2;
    char text[64];
    if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
        write_atomic(s.exitf, "exit 127\n");
        goto done;
    }
    pid_t pid = fork();
    if (pid == 0)
        child(&s, g, po[1], pe[1], lockfd);
    close(po[1]);
    close(pe[1]);
    logs[0].pipe = po[0];
    logs[1].pipe = pe[0];
    if (pid < 0) {
        write_atomic(s.exitf, "exit 127\n");
        goto done;
    }
    setpgid(pid, pid);
    snprintf(text, sizeof text, "%d %llu\n", (int)pid, (unsigned long long)berth__proc_start(pid));
    write_atomic(s.pidf, text);
    supervise(&s, pid, logs);
    finish(&s, g, pid, logs);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(st))
        snprintf(text, sizeof text, "signal %d\n", WTERMSIG(st));
    else
        snprintf(text, sizeof text, "exit %d\n", WEXITSTATUS(st));
    rc = write_atomic(s.exitf, text) ? 1 : 0;
done:
    for (int i = 0; i < 2; i++) {
        if (logs[i].fd >= 0)
            close(logs[i].fd);
        if (logs[i].pipe >= 0)
            close(logs[i].pipe);
    }
    free(s.argv);
    free(s.env);
    json_decref(o);
    return rc;
}
