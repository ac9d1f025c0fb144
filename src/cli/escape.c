/* What the CLI prints from berthd in a terminal: strings a user chose (job names, queues)
 * could carry escape sequences that repaint the screen, or bidirectional overrides that
 * reorder a table's columns. berthd refuses them at submission; the CLI escapes whatever it
 * receives from elsewhere (an older journal, another server) rather than trust it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *cli_clean(const char *s, char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t o = 0;
    while (*p && o + 12 < len) {
        if (*p < 0x20 || *p == 0x7f) { /* C0 controls and DEL */
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *p);
            p++;
        } else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) { /* C1 controls */
            o += (size_t)snprintf(buf + o, len - o, "\\u%04x", p[1]);
            p += 2;
        } else if (p[0] == 0xe2 && p[1] == 0x80 &&
                   (p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae))) {
            o += (size_t)snprintf(buf + o, len - o, "\\u20%02x", p[2] - 0x80); /* U+200E.. */
            p += 3;
        } else if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9) {
            o += (size_t)snprintf(buf + o, len - o, "\\u20%02x", p[2] - 0x80 + 0x40); /* U+2066.. */
            p += 3;
        } else {
            buf[o++] = (char)*p++;
        }
    }
    buf[o < len ? o : len - 1] = '\0';
    return buf;
}
