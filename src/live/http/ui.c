/* GET /ui/ and its files: the dashboard's static page, script and style, open to anyone (they
 * hold no data; every figure comes from the v1 API behind its authentication), sent with a
 * Content-Security-Policy that lets the page run only its own script and talk only to
 * berthd. /ui without the slash is redirected. */
#include <string.h>

#include "live/http/routes.h"
#include "live/http/ui.h"

#define PAGE_CSP                                                                                   \
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "              \
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

void berth__route_ui(struct berth__daemon *d, const struct berth__hreq *r, struct berth__hresp *out)
{
    (void)d;
    const char *name = r->url && !strncmp(r->url, "/ui/", 4) ? r->url + 4 : "";
    if (!*name)
        name = "index.html";
    for (size_t i = 0; i < berth__ui_nassets; i++)
        if (!strcmp(berth__ui_assets[i].name, name)) {
            out->status = 200;
            out->static_body = berth__ui_assets[i].data;
            out->static_len = berth__ui_assets[i].len;
            out->type = berth__ui_assets[i].type;
            out->csp = PAGE_CSP;
            return;
        }
    berth__hresp_error(out, 404, "no such file of the dashboard");
}

void berth__route_ui_redirect(struct berth__daemon *d, const struct berth__hreq *r,
                              struct berth__hresp *out)
{
    (void)d;
    (void)r;
    out->status = 301;
    out->location = "/ui/";
    out->text = NULL;
}
