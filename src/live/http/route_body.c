/* A request's JSON body for the routes (routes.h): parsed strictly (duplicate keys refused),
 * its errors a 400 naming the line and column, or a body of exactly one named field. Its own
 * file so that routes.c and routes_service.c both use it without using each other. */
#include <stdio.h>
#include <string.h>

#include "live/http/routes.h"

json_t *berth__route_body(const struct berth__hreq *r, struct berth__hresp *out)
{
    json_error_t je;
    json_t *o = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        char msg[256];
        snprintf(msg, sizeof msg, "body: not JSON (line %d, column %d: %s)", je.line, je.column,
                 je.text);
        berth__hresp_error(out, 400, msg);
    }
    return o;
}

json_t *berth__route_body_one(const struct berth__hreq *r, struct berth__hresp *out,
                              const char *field, json_t **val)
{
    json_t *body = berth__route_body(r, out);
    if (!body)
        return NULL;
    const char *key;
    json_t *v;
    json_object_foreach(body, key, v)
    {
        if (strcmp(key, field)) {
            char msg[320];
            snprintf(msg, sizeof msg, "%.200s: unknown field (expected %.64s)", key, field);
            berth__hresp_error(out, 400, msg);
            json_decref(body);
            return NULL;
        }
    }
    *val = json_object_get(body, field);
    return body;
}
