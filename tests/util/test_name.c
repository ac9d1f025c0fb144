/* Tests for util/name.h: the UTF-8 decoder (valid forms and every invalid kind), and the code
 * points a name may not hold — each listed range at both ends, refused, and its neighbours
 * outside, accepted — with the byte offset berthd's 400 names. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "util/name.h"

/* cp as UTF-8 into buf (NUL-terminated); written by hand, not with the decoder under test. */
static const char *enc(uint32_t cp, char *buf)
{
    unsigned char *b = (unsigned char *)buf;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp, b[1] = 0;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xc0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3f)),
        b[2] = 0;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xe0 | cp >> 12), b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        b[2] = (unsigned char)(0x80 | (cp & 0x3f)), b[3] = 0;
    } else {
        b[0] = (unsigned char)(0xf0 | cp >> 18), b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f)), b[3] = (unsigned char)(0x80 | (cp & 0x3f));
        b[4] = 0;
    }
    return buf;
}

static void test_utf8(void)
{
    uint32_t cp = 0;
    CHECK_I64(berth__utf8_next("a", &cp), 1);
    CHECK_I64(cp, 'a');
    CHECK_I64(berth__utf8_next("\xc3\xa9", &cp), 2); /* é */
    CHECK_I64(cp, 0xe9);
    CHECK_I64(berth__utf8_next("\xe6\x95\xb0", &cp), 3); /* 数 */
    CHECK_I64(cp, 0x6570);
    CHECK_I64(berth__utf8_next("\xf0\x9f\x98\x80", &cp), 4); /* U+1F600 */
    CHECK_I64(cp, 0x1f600);
    CHECK_I64(berth__utf8_next("\xf4\x8f\xbf\xbf", &cp), 4); /* U+10FFFF */
    static const char *const bad[] = {
        "\x80",             /* a stray continuation byte */
        "\xc3",             /* cut short by the NUL */
        "\xc3(",            /* not a continuation */
        "\xc0\xaf",         /* overlong '/' */
        "\xc1\xbf",         /* overlong */
        "\xe0\x80\xaf",     /* overlong, 3 bytes */
        "\xf0\x80\x80\xaf", /* overlong, 4 bytes */
        "\xed\xa0\x80",     /* U+D800, a surrogate */
        "\xed\xbf\xbf",     /* U+DFFF */
        "\xf4\x90\x80\x80", /* U+110000 */
        "\xf5\x80\x80\x80",
        "\xff",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (berth__utf8_next(bad[i], &cp))
            CHECK(!"an invalid sequence decoded");
    }
}

static void test_hidden(void)
{
    /* the refused ranges, inclusive: each end is refused, the code point just outside is
     * not (unless it starts or ends another range) */
    static const uint32_t r[][2] = {
        {0x0000, 0x001f}, {0x007f, 0x009f}, {0x00ad, 0x00ad},   {0x034f, 0x034f}, {0x061c, 0x061c},
        {0x115f, 0x1160}, {0x17b4, 0x17b5}, {0x180b, 0x180f},   {0x200b, 0x200f}, {0x2028, 0x2029},
        {0x202a, 0x202e}, {0x2060, 0x206f}, {0x3164, 0x3164},   {0xfe00, 0xfe0f}, {0xfeff, 0xfeff},
        {0xffa0, 0xffa0}, {0xfff9, 0xfffb}, {0xe0000, 0xe0fff},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof r / sizeof *r; i++) {
        for (uint32_t c = r[i][0]; c <= r[i][1]; c++)
            n += berth__cp_hidden(c);
        CHECK_I64(berth__cp_hidden(r[i][0]), 1);
        CHECK_I64(berth__cp_hidden(r[i][1]), 1);
    }
    CHECK_I64(n, 32 + 33 + 1 + 1 + 1 + 2 + 2 + 5 + 5 + 2 + 5 + 16 + 1 + 16 + 1 + 1 + 3 + 4096);
    static const uint32_t fine[] = {
        0x20,   0x7e,    0xa0,    0xac,   0xae,   0x34e,   0x350,   0x61b,  0x61d,  0x115e,
        0x1161, 0x17b3,  0x17b6,  0x180a, 0x1810, 0x200a,  0x2010,  0x2027, 0x202f, 0x205f,
        0x2070, 0x3163,  0x3165,  0xfdff, 0xfe10, 0xfefe,  0xff00,  0xff9f, 0xffa1, 0xfff8,
        0xfffc, 0xdffff, 0xe1000, 0xe9,   0x6570, 0x1f600, 0x10ffff};
    for (size_t i = 0; i < sizeof fine / sizeof *fine; i++)
        if (berth__cp_hidden(fine[i])) {
            char m[64];
            snprintf(m, sizeof m, "U+%04X refused", (unsigned)fine[i]);
            CHECK_STR(m, "");
        }
    /* every refused code point is refused inside a name too, at its byte */
    char buf[16], name[32];
    for (size_t i = 0; i < sizeof r / sizeof *r; i++) {
        uint32_t c = r[i][1]; /* the range's top: never U+0000, which would end the string */
        snprintf(name, sizeof name, "ab%sc", enc(c, buf));
        uint32_t cp = 0;
        size_t at = 99;
        CHECK_I64(berth__name_check(name, &cp, &at), 1);
        CHECK_I64(cp, c);
        CHECK_I64(at, 2);
        CHECK_I64(berth__name_printable(name), 0);
    }
}

static void test_names(void)
{
    uint32_t cp = 0;
    size_t at = 0;
    CHECK_I64(berth__name_check("résumé", &cp, &at), 0);
    CHECK_I64(berth__name_check("数据", &cp, &at), 0);
    CHECK_I64(berth__name_check("team-a.b_c@x", &cp, &at), 0);
    CHECK_I64(berth__name_check("", &cp, &at), 0);
    CHECK_I64(berth__name_printable("naïve 🚀"), 1);
    CHECK_I64(berth__name_check("ok\xffno", &cp, &at), 2);
    CHECK_I64(at, 2);
    CHECK_I64(berth__name_check("\xc3\xa9\xed\xa0\x80", &cp, &at), 2); /* é, then a surrogate */
    CHECK_I64(at, 2);
    CHECK_I64(berth__name_check("bob\xe2\x80\x8b", &cp, &at), 1); /* bob + U+200B */
    CHECK_I64(cp, 0x200b);
    CHECK_I64(at, 3);
    char why[256];
    CHECK_STR(berth__name_why(why, sizeof why, "user", 2, 0, 5), "user: not valid UTF-8 at byte 5");
    CHECK_HAS(berth__name_why(why, sizeof why, "name", 1, 0x200b, 3), "name: U+200B at byte 3");
    CHECK_HAS(berth__name_why(why, sizeof why, "queue", 1, 0xe0041, 0), "queue: U+E0041 at byte 0");
}

static const struct check_test tests[] = {
    {"utf8", test_utf8},
    {"hidden", test_hidden},
    {"names", test_names},
};

CHECK_MAIN(tests)
