/* What service.c, service_api.c and service_scrape.c share: the lookups of the daemon's
 * services and the definitions' file, private to the three (service.h is the interface). */
#ifndef BERTH_LIVE_DAEMON_SERVICE_INT_H
#define BERTH_LIVE_DAEMON_SERVICE_INT_H

#include <stdlib.h>

#include "live/daemon/core.h"
#include "live/daemon/service.h"

static inline struct berth__service *berth__svc_find(struct berth__daemon *d, uint64_t id)
{
    for (size_t i = 0; d->svcs && i < d->svcs->n; i++)
        if (d->svcs->s[i]->id == id)
            return d->svcs->s[i];
    return NULL;
}

static inline int berth__svc_alive(const struct berth__ljob *j)
{
    return j && !berth__lstate_final(j->state);
}

static inline struct berth__svcs *berth__svc_svcs(struct berth__daemon *d)
{
    if (!d->svcs && (d->svcs = calloc(1, sizeof *d->svcs)))
        d->svcs->next_id = 1;
    return d->svcs;
}

static inline void berth__svc_free_one(struct berth__service *s)
{
    if (s)
        json_decref(s->tmpl);
    free(s);
}
/* A definition as services.json holds it (service.c). */
json_t *berth__svc_def_json(const struct berth__service *s);
/* Writes services.json whole (service.c). */
int berth__svc_store(struct berth__daemon *d, struct berth_err *err);
/* A service from its JSON, from the file (file = 1) or a request (service.c). */
int berth__svc_from_json(struct berth__daemon *d, const json_t *b, int file,
                         struct berth__service **out, struct berth_err *err);
/* The GPUs of the inference pool's smallest server (service.c). */
int32_t berth__svc_server_gpus(const struct berth__daemon *d);

#endif
