/* Exact parsing and printing of the numbers traces hold. Seconds become integer
 * microseconds by decimal arithmetic, never through a double, so "0.1" is exactly 100000. */
#ifndef BERTH_UTIL_NUM_H
#define BERTH_UTIL_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Each parser takes the field s[0..len) (surrounding blanks allowed), returns 0 on success
 * and -1 when the text is not such a number or does not fit. */
int berth__parse_i64(const char *s, size_t len, int64_t *out);
/* A decimal number of seconds ("12", "12.5", "1.5e3", "-3") to microseconds, rounded
 * half away from zero. */
int berth__parse_seconds_us(const char *s, size_t len, int64_t *out);
/* A decimal number scaled by 10^scale and rounded: parse_scaled("0.25", 3) = 250. */
int berth__parse_scaled(const char *s, size_t len, int scale, int64_t *out);
/* A whole number written as an integer or as a decimal with a zero fraction ("8", "8.0";
 * the fraction is rounded to 6 decimals first, so "8.0000001" reads as 8). 0 or -1. */
int berth__parse_whole(const char *s, size_t len, int64_t *out);
/* A finite double. */
int berth__parse_double(const char *s, size_t len, double *out);
/* "YYYY-MM-DD HH:MM:SS" (or with 'T') as seconds since 1970-01-01 UTC. */
int berth__parse_datetime(const char *s, size_t len, int64_t *out_s);

/* v in decimal into buf (at least 21 bytes), NUL-terminated; returns its length. For hot
 * loops where snprintf's format parsing costs more than the digits. */
size_t berth__fmt_u64(char *buf, uint64_t v);

/* Microseconds as seconds with trailing zeros trimmed: 1500000 -> "1.5", 2000000 -> "2".
 * buf must hold 32 bytes; returns buf. */
char *berth__fmt_us(char *buf, int64_t us);

/* A short quotable excerpt of a field for error messages ("abc", or "" when empty). */
const char *berth__excerpt(char *buf, size_t buflen, const char *s, size_t len);

#endif
