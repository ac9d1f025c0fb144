/* Result codes and the error record every libberth call fills on failure.
 *
 * Functions return 0 or a negative BERTH_E* code and write a human-readable message into a
 * caller-owned struct berth_err (SQLite/libuv style: code for programs, message for people).
 * Messages about input follow "FILE:LINE: column NAME: expected ..., found ...". */
#ifndef BERTH_ERR_H
#define BERTH_ERR_H

#include <stdarg.h>

enum {
    BERTH_OK = 0,
    BERTH_EINPUT = -1,       /* bad input: trace row, cluster spec, flag, unknown name */
    BERTH_ENOMEM = -2,       /* allocation failed */
    BERTH_EIO = -3,          /* a file could not be opened, read or written */
    BERTH_EINTERNAL = -4,    /* an invariant broke: a bug, never the user's fault */
    BERTH_EUNSUPPORTED = -5, /* this build lacks the feature (e.g. built without libslurm) */
    BERTH_EAGAIN = -6,       /* not now: try again later (the message says when) */
    BERTH_ESTALLED = -7,     /* a simulation can make no more progress: jobs that can never
                                start (the message names them and why) */
};

#define BERTH_ERR_MSG_MAX 1024

struct berth_err {
    int code;
    char msg[BERTH_ERR_MSG_MAX];
};

/* Records code and a printf-style message in e (which may be NULL); returns code. */
int berth_err_set(struct berth_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int berth_err_vset(struct berth_err *e, int code, const char *fmt, va_list ap);

/* A short static name for a code ("bad input", "out of memory", ...). */
const char *berth_strerror(int code);

#endif
