/* The error record behind every libberth failure (see include/berth/err.h). */
#include <stdio.h>

#include "berth/err.h"

int berth_err_vset(struct berth_err *e, int code, const char *fmt, va_list ap)
{
    if (e) {
        e->code = code;
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    }
    return code;
}

int berth_err_set(struct berth_err *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    berth_err_vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

const char *berth_strerror(int code)
{
    switch (code) {
    case BERTH_OK:
        return "ok";
    case BERTH_EINPUT:
        return "bad input";
    case BERTH_ENOMEM:
        return "out of memory";
    case BERTH_EIO:
        return "i/o error";
    case BERTH_EINTERNAL:
        return "internal error";
    case BERTH_EUNSUPPORTED:
        return "not supported by this build";
    case BERTH_EAGAIN:
        return "try again later";
    case BERTH_ESTALLED:
        return "stalled: jobs that can never start";
    }
    return "unknown error";
}
