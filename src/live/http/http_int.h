/* What the parts of berthd's HTTP server share (private to live/http/): the server's state
 * (struct httpd), its listeners and the watchdog's connections, and the calls each part
 * makes of the others, as berth__httpd_*. */
#ifndef BERTH_LIVE_HTTP_HTTP_INT_H
#define BERTH_LIVE_HTTP_HTTP_INT_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "berth/err.h"
#include "berth/time.h"
#include "live/http/http.h"

struct berth__workq;

/* One open connection as the watchdog sees it. */
struct conn {
    struct conn *prev, *next;
    int fd;
    int phase;      /* HEADERS: waiting for a request's headers; BODY; BUSY: being answered */
    berth_us since; /* when the phase began (monotonic) */
    berth_us born;  /* when it connected: the oldest goes first */
    uint64_t addr;  /* whose: the peer's IPv4/IPv6 address hashed, or its uid on the socket */
};
enum { HEADERS = 0, BODY = 1, BUSY = 2 };

struct listener {
    struct httpd *h;
    int local;   /* the Unix socket */
    int metrics; /* --metrics-listen: only the open routes /metrics and /healthz */
};

struct httpd {
    struct berth__daemon *d;
    struct MHD_Daemon *tcp, *unix_, *met;
    struct listener ltcp, lunix, lmet;
    char met_addr[96];        /* "ADDR:PORT" the metrics listener bound */
    _Atomic uint64_t *counts; /* requests per (route, code), (nroutes + 1) x BERTH_HTTP_CODES */
    pthread_mutex_t mu;       /* guards the connection list */
    struct conn *conns;
    size_t nconns;
    pthread_t watchdog;
    pthread_cond_t wake;
    int stop, watching;
    int handed;                     /* the listening sockets went to the next berthd */
    uint64_t cut_headers, cut_body; /* connections the watchdog closed */
    uint64_t evicted;               /* not yet admitted, closed for a newcomer */
    size_t unadmitted;              /* connections in HEADERS now */
    struct berth__workq *wq;        /* admissions and handlers */
    _Atomic int closing;            /* berth__http_stop began: nothing more is queued */
};

/* http.c */
/* The account at the other end of a Unix socket's connection (SO_PEERCRED); -1 if unknown. */
int berth__httpd_peer_uid(struct MHD_Connection *c, uid_t *uid);

/* http_watchdog.c */
/* c's connection enters phase (HEADERS, BODY, BUSY): its deadline starts again. */
void berth__httpd_conn_phase(struct httpd *h, struct MHD_Connection *c, int phase);
/* MHD_OPTION_NOTIFY_CONNECTION (cls: the struct listener): a connection joins the list (and
 * may evict an older one not yet admitted) or leaves it. */
void berth__httpd_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                                enum MHD_ConnectionNotificationCode code);
/* The watchdog thread (arg: the struct httpd), until h->stop. */
void *berth__httpd_watchdog_main(void *arg);

/* http_listen.c */
int berth__httpd_handed_fd(const char *env, const char *name);
int berth__httpd_bound_port_of(int fd);
int berth__httpd_unix_listen(const char *path, struct berth_err *err);
void berth__httpd_raise_nofile(struct berth__daemon *d);

#endif
