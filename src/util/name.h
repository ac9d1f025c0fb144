/* Names people read in tables (job, queue, GPU and job types, services, users): UTF-8 that
 * shows what it is. A name may be any valid UTF-8 ("résumé", "数据") but none of the code
 * points that are invisible or that separate or reorder text, so that no name can pass for
 * another in `berth queue` or `berth acct` (a look-alike user or job) or repaint a terminal:
 * C0 and C1 controls and DEL, U+00AD soft hyphen, U+034F, U+061C, U+115F, U+1160, U+17B4,
 * U+17B5, U+180B..U+180F, U+200B..U+200F, U+2028, U+2029, U+202A..U+202E, U+2060..U+206F,
 * U+3164, U+FE00..U+FE0F, U+FEFF, U+FFA0, U+FFF9..U+FFFB, U+E0000..U+E0FFF (docs/api.md,
 * "Names"). berthd refuses them where a name comes in; the CLI escapes them in what it
 * prints (cli_clean), whatever the server. */
#ifndef BERTH_UTIL_NAME_H
#define BERTH_UTIL_NAME_H

#include <stddef.h>
#include <stdint.h>

/* The code point at p (NUL-terminated) into *cp: its length in bytes (1 to 4), or 0 when p
 * starts no valid UTF-8 sequence (a stray or missing continuation byte, an overlong form, a
 * surrogate, past U+10FFFF). */
size_t berth__utf8_next(const char *p, uint32_t *cp);
/* 1 for a code point a name may not hold (the list above). */
int berth__cp_hidden(uint32_t cp);
/* Checks name s: 0 when fine; 1 when it holds a hidden code point (*cp, at byte *at); 2 when
 * it is not valid UTF-8 (at byte *at). */
int berth__name_check(const char *s, uint32_t *cp, size_t *at);
/* 1 for a name berth__name_check finds fine. */
int berth__name_printable(const char *s);
/* "name: U+200B at byte 3: ..." into buf for a name berth__name_check refused (rc 1 or 2),
 * naming field; returns buf. */
const char *berth__name_why(char *buf, size_t len, const char *field, int rc, uint32_t cp,
                            size_t at);

#endif
