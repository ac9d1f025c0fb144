/* berthd's dashboard files (src/live/http/ui/: index.html, style.css, app.js), compiled into
 * berthd by cmake/embed.cmake, and served at /ui/ by ui.c. */
#ifndef BERTH_LIVE_HTTP_UI_H
#define BERTH_LIVE_HTTP_UI_H

#include <stddef.h>

struct berth__ui_asset {
    const char *name, *type;
    const unsigned char *data; /* NUL-terminated too */
    size_t len;
};

extern const struct berth__ui_asset berth__ui_assets[];
extern const size_t berth__ui_nassets;

#endif
