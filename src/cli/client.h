/* The CLI's HTTP client for berthd (libcurl): where the server is and which token to send
 * (flags, then BERTH_SERVER / BERTH_TOKEN, then the client config file), and one call that
 * sends JSON and reads JSON back. */
#ifndef BERTH_CLI_CLIENT_H
#define BERTH_CLI_CLIENT_H

#include <jansson.h>

#include "flags.h"

struct cli_client {
    const char *cmd; /* for messages: "berth queue: ..." */
    char server[512];
    char token[512];
    char socket[512]; /* berthd's Unix socket, when the call goes there */
    const char *server_flag, *token_flag, *socket_flag;
};

/* Where berthd's Unix socket is when nothing says otherwise (the systemd unit's state dir). */
#define CLI_DEFAULT_SOCKET "/var/lib/berthd/berthd.sock"

/* The flags every client command takes (--server, --token, --socket), for a section of its
 * spec whose `at` is where its struct cli_client is in the command's options. */
extern const struct cli_flag cli_client_table[];

/* Resolves where to call. An explicit server (--server, $BERTH_SERVER) is called over HTTP
 * with a token (flag, $BERTH_TOKEN, config file). Otherwise berthd's Unix socket (--socket,
 * $BERTH_SOCKET, the config file's "socket PATH", else CLI_DEFAULT_SOCKET) when it answers:
 * berthd knows the caller by its account, and only a --token flag is sent there. Else the config
 * file's server, or http://127.0.0.1:8470, with a token. The config file is $BERTH_CONFIG or
 * ~/.config/berth/client.conf, lines "server URL", "token TOKEN", "socket PATH". 0, or the
 * exit code after a message: 1 when berthd answers nowhere it looked ("berthd is not answering
 * at PATH (No such file or directory) nor at URL (Connection refused): is it running?"), as
 * for any call that cannot connect; 2 for no token when the server is there to take one. */
int cli_client_init(struct cli_client *c, const char *cmd);

struct cli_reply {
    long status;
    json_t *json; /* parsed body when it was JSON */
    char *body;   /* raw body */
    size_t len;
    long long offset; /* X-Berth-Offset, -1 when absent */
    int more;         /* X-Berth-More */
};

/* Sends method path (body: JSON or NULL). Returns 0 with r filled when the server answered
 * (any status), else prints why (where it called, and the system's reason: "berthd is not
 * answering at URL (Connection refused): is it running?") and returns 1. */
int cli_call(const struct cli_client *c, const char *method, const char *path, const json_t *body,
             struct cli_reply *r);
void cli_reply_free(struct cli_reply *r);
/* Prints "berth CMD: HTTP STATUS: message" for a reply that is not 2xx; returns the exit
 * code (2 for 400, 404, 409, 413; 1 otherwise), or 0 for a 2xx reply. */
int cli_reply_check(const struct cli_client *c, const struct cli_reply *r);
/* s (NULL: none) as a query value in buf: every byte but A-Z a-z 0-9 - . _ ~ and ',' (a
 * list's separator) percent-encoded, so a filter can never add a parameter ("a&all=1").
 * 0, or -1 when it does not fit in len bytes. */
int cli_query_escape(const char *s, char *buf, size_t len);
/* Reads a job id argument; 0 or prints and returns 2. */
int cli_job_id(const char *cmd, const char *s, unsigned long long *id);

#endif
