/* The shim: berthd re-executed as `berthd --shim SPEC LOCKFD`, one per attempt. It forks the
 * job into a process group of its own, records that group, waits for the job and writes its
 * exit status to a file, holding the attempt's lock all along (see exec_local.h). It lives
 * in its own session, so it and the job outlive berthd. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_local.h"

static char **strv(const json_t *a)
{
    size_t n = json_array_size(a);
    char **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = (char *)json_string_value(json_array_get(a, i));
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

static int write_atomic(const char *path, const char *text)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    int ok = write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
    close(fd);
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

static void child(char **argv, char **env, const char *cwd, const char *out, const char *err,
                  int lockfd)
{
    setpgid(0, 0);
    close(lockfd);
    for (int s = 1; s < 32; s++)
        signal(s, SIG_DFL);
    int o = open(out, O_WRONLY | O_CREAT | O_APPEND, 0600);
    int e = open(err, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (o < 0 || e < 0)
        _exit(126);
    dup2(o, 1);
    dup2(e, 2);
    close(o);
    close(e);
    if (chdir(cwd)) {
        dprintf(2, "berth: cannot enter %s: %s\n", cwd, strerror(errno));
        _exit(126);
    }
    exec_job(argv, env);
    dprintf(2, "berth: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

int berth__shim_main(const char *spec_path, int lockfd)
{
    close_others(lockfd);
    json_error_t je;
    json_t *s = json_load_file(spec_path, 0, &je);
    if (!s)
        return 2;
    char **argv = strv(json_object_get(s, "argv")), **env = strv(json_object_get(s, "env"));
    const char *cwd = json_string_value(json_object_get(s, "cwd"));
    const char *out = json_string_value(json_object_get(s, "stdout"));
    const char *err = json_string_value(json_object_get(s, "stderr"));
    const char *pidf = json_string_value(json_object_get(s, "pidfile"));
    const char *exitf = json_string_value(json_object_get(s, "exitfile"));
    int rc = 2;
    if (!argv || !env || !argv[0] || !cwd || !out || !err || !pidf || !exitf)
        goto done;
    signal(SIGHUP, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    pid_t pid = fork();
    if (pid == 0)
        child(argv, env, cwd, out, err, lockfd);
    char text[64];
    if (pid < 0) {
        write_atomic(exitf, "exit 127\n");
        goto done;
    }
    setpgid(pid, pid);
    snprintf(text, sizeof text, "%d %llu\n", (int)pid, (unsigned long long)berth__proc_start(pid));
    write_atomic(pidf, text);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL); /* what the job left behind in its group ends with it */
    if (WIFSIGNALED(st))
        snprintf(text, sizeof text, "signal %d\n", WTERMSIG(st));
    else
        snprintf(text, sizeof text, "exit %d\n", WEXITSTATUS(st));
    rc = write_atomic(exitf, text) ? 1 : 0;
done:
    free(argv);
    free(env);
    json_decref(s);
    return rc;
}
