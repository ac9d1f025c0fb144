/* berthd's settings as one table: each entry is a flag (--NAME ARG) and a config-file line
 * (NAME VALUE) with its help text and its setter, so the flags, the config file, --help and
 * the SIGHUP reload cannot drift apart. */
#ifndef BERTH_LIVE_OPTIONS_H
#define BERTH_LIVE_OPTIONS_H

#include <stdio.h>

#include "live/daemon/daemon.h"

enum berth__opts_action { BERTH_OPTS_RUN = 0, BERTH_OPTS_HELP = 1, BERTH_OPTS_VERSION = 2 };

/* Reads flags (and the config file --config names, first, so that flags win). On bad input
 * returns BERTH_EINPUT with err naming the flag or FILE:LINE. Strings set in o stay valid
 * until berth__opts_free. */
int berth__opts_parse(struct berth__daemon_opts *o, int argc, char **argv, int *action,
                      struct berth_err *err);
/* Reads the settings SIGHUP reloads (the per-user limits) into o->limits afresh: the
 * defaults, the config file's user-limit lines, then the --user-limit flags of argv. */
int berth__opts_reload(struct berth__daemon_opts *o, int argc, char **argv, struct berth_err *err);
void berth__opts_usage(FILE *f);
/* "ADDR:PORT" (IPv4, --metrics-listen) into its parts: 0, or -1 when it is not that. */
int berth__parse_listen(const char *spec, char *addr, size_t len, int *port);
/* Frees the strings parsing kept (not the limits: the daemon owns those once created). */
void berth__opts_free(void);

#endif
