/* What the CLI prints from berthd in a terminal: strings a user chose (job names, queues)
 * could carry escape sequences that repaint the screen, bidirectional overrides that reorder
 * a table's columns, or invisible characters that make one name look like another. berthd
 * refuses them at submission (util/name.h); the CLI escapes whatever it receives from
 * elsewhere (an older journal, another server) rather than trust it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "util/name.h"

const char *cli_clean(const char *s, char *buf, size_t len)
{
    const char *p = s ? s : "";
    size_t o = 0;
    while (*p && o + 12 < len) {
        uint32_t cp;
        size_t n = berth__utf8_next(p, &cp);
        if (!n) { /* not UTF-8: the byte, escaped */
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", (unsigned char)*p);
            p++;
        } else if (cp < 0x20 || cp == 0x7f) { /* C0 controls and DEL */
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", (unsigned)cp);
            p++;
        } else if (berth__cp_hidden(cp)) { /* C1, overrides, invisible and separators */
            o += (size_t)snprintf(buf + o, len - o, cp > 0xffff ? "\\U%08x" : "\\u%04x",
                                  (unsigned)cp);
            p += n;
        } else {
            memcpy(buf + o, p, n);
            o += n;
            p += n;
        }
    }
    buf[o < len ? o : len - 1] = '\0';
    return buf;
}
