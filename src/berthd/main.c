/* berthd: the live scheduler daemon (see docs/berthd.md, docs/api.md, berthd(8)). Its settings
 * are one table (live/options.c): flags, or a config file of "NAME VALUE" lines with the
 * same names; `berthd --shim SPEC FD` is the per-attempt supervisor berthd starts itself.
 * SIGTERM and SIGINT stop it (running jobs go on and are re-adopted at restart); SIGHUP
 * reloads the token file and the per-user limits. When its executor's inventory changes in a
 * way the scheduler cannot take in (a Slurm node joined berth's partitions), it stops and
 * runs itself again with the same command line, handing its listening sockets over. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "berth/berth.h"
#include "live/daemon/daemon.h"
#include "live/daemon/options.h"
#include "live/http/http.h"
#include "live/http/routes.h"
#include "slurmapi/slurm_api.h"

static struct berth__daemon *running;

static void on_signal(int sig)
{
    if (!running)
        return;
    if (sig == SIGHUP)
        running->reload = 1;
    else
        running->stop = 1; /* the loop sees either within one tick */
}

/* The version, and what this build can do: tests and operators check it before they rely on
 * an optional part (the slurm executor needs libslurm at build time). */
static void version(void)
{
    printf("berthd %s\n", BERTH_VERSION);
    if (berth__slurm_built())
        printf("executors: local slurm\n");
    else
        printf("executors: local (slurm: not built, libslurm 22.05 was not found)\n");
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--shim"))
        return berth__shim_main(argv[2], (int)strtol(argv[3], NULL, 10));
    /* what berthd creates (the journal, control files) is its own alone; a job's files get
     * their modes from the job (the shim sets the usual 022 back before exec) */
    umask(077);
    struct berth__daemon_opts o;
    berth__daemon_opts_init(&o);
    o.argc = argc;
    o.argv = argv;
    struct berth_err err = {0};
    int action, rc = 0;
    if (berth__opts_parse(&o, argc, argv, &action, &err)) {
        fprintf(stderr, "berthd: %s\n", err.msg);
        berth__limits_free(&o.limits);
        berth__opts_free();
        return 2;
    }
    if (action != BERTH_OPTS_RUN) {
        if (action == BERTH_OPTS_HELP)
            berth__opts_usage(stdout);
        else
            version();
        berth__limits_free(&o.limits);
        berth__opts_free();
        return 0;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "berthd: cannot find its own binary (/proc/self/exe)\n");
        berth__limits_free(&o.limits);
        berth__opts_free();
        return 1;
    }
    self[n] = '\0';
    o.self_exe = self;
    struct berth__daemon *d = NULL;
    if (berth__daemon_create(&o, &d, &err)) { /* it owns o's limits from here on */
        fprintf(stderr, "berthd: %s\n", err.msg);
        berth__opts_free();
        return err.code == BERTH_EINPUT || err.code == BERTH_EIO || err.code == BERTH_EUNSUPPORTED
                   ? 2
                   : 1;
    }
    running = d;
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* the server answers from routes.c's table and asks its admit (http.h) */
    berth__http_routes(
        &(struct berth__http_table){berth__routes, berth__nroutes, berth__route_admit});
    static const struct berth__daemon_server http = {berth__http_start, berth__http_stop,
                                                     berth__http_handover};
    int again = 0;
    char fds[sizeof d->handover];
    if (berth__daemon_run(d, &http, &err)) {
        fprintf(stderr, "berthd: %s\n", err.msg);
        rc = 1;
    } else if ((again = d->restart)) {
        snprintf(fds, sizeof fds, "%s", d->handover);
        fprintf(stderr, "berthd: stopped to run itself again; running jobs go on\n");
    } else {
        fprintf(stderr, "berthd: stopped; running jobs go on and are re-adopted at restart\n");
    }
    running = NULL;
    berth__daemon_destroy(d);
    berth__opts_free();
    if (again) {
        if (fds[0])
            setenv("BERTH_LISTEN_FDS", fds, 1);
        fflush(NULL);
        execv(self, argv);
        fprintf(stderr, "berthd: cannot run itself again (%s): %s\n", self, strerror(errno));
        return 1;
    }
    return rc;
}
