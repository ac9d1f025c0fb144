/* Exact decimal parsing for trace fields (see num.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"

static void trim(const char **s, size_t *len)
{
    while (*len && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*len)--;
    }
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r'))
        (*len)--;
}

int berth__parse_i64(const char *s, size_t len, int64_t *out)
{
    trim(&s, &len);
    if (!len)
        return -1;
    int neg = 0;
    size_t i = 0;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == len)
        return -1;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_C(9223372036854775808) - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (!neg && v > INT64_MAX)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int berth__parse_scaled(const char *s, size_t len, int scale, int64_t *out)
{
    trim(&s, &len);
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    uint64_t m = 0; /* the first 19 significant digits */
    int exp10 = 0;  /* value = (m + 0.d1...) * 10^exp10, d1 the first dropped digit */
    int digits = 0, sig = 0, first_dropped = -1;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (sig < 19) {
            m = m * 10 + (uint64_t)(s[i] - '0');
            if (m)
                sig++;
        } else {
            if (first_dropped < 0)
                first_dropped = s[i] - '0';
            exp10++;
        }
    }
    if (i < len && s[i] == '.') {
        i++;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
            if (sig < 19) {
                m = m * 10 + (uint64_t)(s[i] - '0');
                if (m)
                    sig++;
                exp10--;
            } else if (first_dropped < 0) {
                first_dropped = s[i] - '0';
            }
        }
    }
    if (!digits)
        return -1;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        int e = 0, ed = 0;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, ed++)
            if (e < 10000)
                e = e * 10 + (s[i] - '0');
        if (!ed)
            return -1;
        exp10 += eneg ? -e : e;
    }
    if (i != len)
        return -1;
    /* Round once, half away from zero, on the first digit below the result's unit. */
    int e = exp10 + scale;
    if (m == 0) {
        *out = 0;
        return 0;
    }
    if (e >= 0) {
        /* dropped digits exist only when m has 19 digits: any e > 0 then overflows below */
        for (; e > 0; e--) {
            if (m > UINT64_MAX / 10)
                return -1;
            m *= 10;
        }
        if (first_dropped >= 5)
            m++;
    } else if (e < -25) {
        m = 0;
    } else {
        for (int k = -e; k > 1; k--)
            m /= 10;
        m = m / 10 + (m % 10 >= 5);
    }
    if (m > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)m : (int64_t)m;
    return 0;
}

int berth__parse_seconds_us(const char *s, size_t len, int64_t *out)
{
    return berth__parse_scaled(s, len, 6, out);
}

int berth__parse_double(const char *s, size_t len, double *out)
{
    char buf[64];
    trim(&s, &len);
    if (!len || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + len || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int64_t days_from_civil(int64_t y, int m, int d)
{
    /* Howard Hinnant's algorithm: days since 1970-01-01 in the proleptic Gregorian calendar. */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int digits_at(const char *s, size_t n, int *v)
{
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return 0;
}

int berth__parse_datetime(const char *s, size_t len, int64_t *out_s)
{
    trim(&s, &len);
    /* YYYY-MM-DD HH:MM:SS */
    if (len != 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' ||
        s[16] != ':')
        return -1;
    int y, mo, d, h, mi, se;
    if (digits_at(s, 4, &y) || digits_at(s + 5, 2, &mo) || digits_at(s + 8, 2, &d) ||
        digits_at(s + 11, 2, &h) || digits_at(s + 14, 2, &mi) || digits_at(s + 17, 2, &se))
        return -1;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
        return -1;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return -1;
    *out_s = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return 0;
}

char *berth__fmt_us(char *buf, int64_t us)
{
    uint64_t a = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
    uint64_t sec = a / 1000000, frac = a % 1000000;
    int n = snprintf(buf, 32, "%s%llu", us < 0 ? "-" : "", (unsigned long long)sec);
    if (frac) {
        char f[8];
        snprintf(f, sizeof f, "%06llu", (unsigned long long)frac);
        int k = 6;
        while (k > 0 && f[k - 1] == '0')
            k--;
        f[k] = '\0';
        snprintf(buf + n, (size_t)(32 - n), ".%s", f);
    }
    return buf;
}

const char *berth__excerpt(char *buf, size_t buflen, const char *s, size_t len)
{
    size_t max = buflen > 8 ? buflen - 6 : 0;
    size_t n = len < max ? len : max;
    size_t o = 0;
    buf[o++] = '"';
    for (size_t i = 0; i < n && o + 5 < buflen; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = (c < 32 || c == 127) ? '?' : (char)c;
    }
    if (n < len && o + 4 < buflen) {
        buf[o++] = '.';
        buf[o++] = '.';
        buf[o++] = '.';
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

int berth__parse_whole(const char *s, size_t len, int64_t *out)
{
    int64_t v;
    if (berth__parse_i64(s, len, out) == 0)
        return 0;
    if (berth__parse_scaled(s, len, 6, &v) || v % 1000000)
        return -1;
    *out = v / 1000000;
    return 0;
}

size_t berth__fmt_u64(char *buf, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}
