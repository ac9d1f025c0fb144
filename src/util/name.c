/* Names that show what they are (see name.h). */
#include <stdio.h>

#include "util/name.h"

size_t berth__utf8_next(const char *s, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t c = p[0], min;
    size_t n;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2, c &= 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3, c &= 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4, c &= 0x07, min = 0x10000;
    } else {
        return 0; /* a continuation byte, 0xc0/0xc1 (overlong), 0xf5.. */
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* the NUL ends here too */
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

int berth__cp_hidden(uint32_t c)
{
    static const uint32_t ranges[][2] = {
        {0x0000, 0x001f}, {0x007f, 0x009f},   {0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x061c, 0x061c},
        {0x115f, 0x1160}, {0x17b4, 0x17b5},   {0x180b, 0x180f}, {0x200b, 0x200f}, {0x2028, 0x202e},
        {0x2060, 0x206f}, {0x3164, 0x3164},   {0xfe00, 0xfe0f}, {0xfeff, 0xfeff}, {0xffa0, 0xffa0},
        {0xfff9, 0xfffb}, {0xe0000, 0xe0fff},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        if (c >= ranges[i][0] && c <= ranges[i][1])
            return 1;
    return 0;
}

int berth__name_check(const char *s, uint32_t *cp, size_t *at)
{
    for (size_t i = 0; s[i];) {
        uint32_t c;
        size_t n = berth__utf8_next(s + i, &c);
        *at = i;
        if (!n)
            return 2;
        if (berth__cp_hidden(c)) {
            *cp = c;
            return 1;
        }
        i += n;
    }
    return 0;
}

int berth__name_printable(const char *s)
{
    uint32_t cp;
    size_t at;
    return berth__name_check(s, &cp, &at) == 0;
}

const char *berth__name_why(char *buf, size_t len, const char *field, int rc, uint32_t cp,
                            size_t at)
{
    if (rc == 2)
        snprintf(buf, len, "%s: not valid UTF-8 at byte %zu", field, at);
    else
        snprintf(buf, len,
                 "%s: U+%04X at byte %zu is not allowed: control, invisible and separator "
                 "characters (and bidirectional overrides) could make a name look like another "
                 "or change what a terminal shows",
                 field, (unsigned)cp, at);
    return buf;
}
