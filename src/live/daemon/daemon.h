/* berthd as a whole: the core (core.h) with its subsystems registered, created, run and
 * destroyed (daemon.c), and every subsystem's header, for berthd's main and the HTTP room
 * above. Files of the daemon room include what they use, never this. */
#ifndef BERTH_LIVE_DAEMON_H
#define BERTH_LIVE_DAEMON_H

#include "live/daemon/acct.h"
#include "live/daemon/core.h"
#include "live/daemon/deps.h"
#include "live/daemon/infer.h"

/* The front end the daemon serves through, started once recovery can begin (so the bound
 * port is known) and stopped after the loop: the HTTP server (http/http.h), handed in by
 * berthd's main, so the daemon room never calls up into http/. */
struct berth__daemon_server {
    int (*start)(struct berth__daemon *d, struct berth_err *err);
    void (*stop)(struct berth__daemon *d);
    /* Before a stop for a restart: stops accepting, keeps the listening sockets open across
     * exec and writes "NAME=FD ..." for the next berthd (BERTH_LISTEN_FDS) into env. */
    void (*handover)(struct berth__daemon *d, char *env, size_t n);
};

int berth__daemon_create(const struct berth__daemon_opts *o, struct berth__daemon **out,
                         struct berth_err *err);
/* Serves until stop is set (by a signal handler). */
int berth__daemon_run(struct berth__daemon *d, const struct berth__daemon_server *srv,
                      struct berth_err *err);
void berth__daemon_destroy(struct berth__daemon *d);

/* Reads the token file and the config file's limits again (SIGHUP), keeping the old ones
 * when either is bad; says what it did in the log. Takes d->mu. */
void berth__daemon_reload(struct berth__daemon *d);

#endif
