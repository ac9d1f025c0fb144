/* Child processes of berth itself (see runner.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
    stop_sig = sig;
}

int cli_interrupted(void)
{
    return stop_sig != 0;
}

const char *cli_self_exe(void)
{
    static char path[4096];
    if (!path[0]) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n <= 0)
            snprintf(path, sizeof path, "berth");
        else
            path[n] = '\0';
    }
    return path;
}

static pid_t spawn(const struct cli_job *job)
{
    size_t n = 0;
    while (job->argv[n])
        n++;
    const char **argv = malloc((n + 2) * sizeof *argv);
    if (!argv)
        return -1;
    argv[0] = "berth";
    memcpy(argv + 1, job->argv, (n + 1) * sizeof *argv);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        int in = open("/dev/null", O_RDONLY);
        int out = open(job->out ? job->out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        int err = open(job->err ? job->err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        execv(cli_self_exe(), (char *const *)argv);
        _exit(127);
    }
    free(argv);
    return pid;
}

int cli_run_jobs(struct cli_job *jobs, size_t n, int j, struct cli_progress *bar, const char *unit,
                 void (*done)(void *ctx, size_t i), void *ctx)
{
    if (j < 1)
        j = 1;
    pid_t *pids = calloc((size_t)j, sizeof *pids);
    size_t *which = calloc((size_t)j, sizeof *which);
    if (!pids || !which) {
        free(pids);
        free(which);
        return -1;
    }
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int); /* no SA_RESTART: waitpid returns on a signal */
    sigaction(SIGTERM, &sa, &old_term);
    stop_sig = 0;
    size_t next = 0, ended = 0;
    int running = 0, rc = 0;
    for (size_t i = 0; i < n; i++)
        jobs[i].status = -1;
    if (bar)
        cli_progress_update(bar, 0, (double)n, unit);
    while (ended < n) {
        while (!stop_sig && !rc && running < j && next < n) {
            pid_t pid = spawn(&jobs[next]);
            if (pid < 0) {
                rc = -1;
                break;
            }
            int slot = 0;
            while (pids[slot])
                slot++;
            pids[slot] = pid;
            which[slot] = next++;
            running++;
        }
        if (!running)
            break;
        int st;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR && stop_sig) {
                for (int s = 0; s < j; s++)
                    if (pids[s] > 0)
                        kill(pids[s], SIGTERM);
            } else if (errno != EINTR) {
                break;
            }
            continue;
        }
        for (int s = 0; s < j; s++)
            if (pids[s] == pid) {
                struct cli_job *job = &jobs[which[s]];
                job->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                pids[s] = 0;
                running--;
                ended++;
                if (done)
                    done(ctx, which[s]);
                if (bar)
                    cli_progress_update(bar, (double)ended, (double)n, unit);
            }
        if (stop_sig) /* stop the others, then wait for them */
            for (int s = 0; s < j; s++)
                if (pids[s] > 0)
                    kill(pids[s], SIGTERM);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(pids);
    free(which);
    return stop_sig || rc ? -1 : 0;
}
