/* The CLI's HTTP client for berthd (see client.h). */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"

#define C struct cli_client
const struct cli_flag cli_client_table[] = {
    {"server", 0, "URL",
     "berthd over HTTP (default $BERTH_SERVER; else its Unix socket when it answers; else the "
     "config file, then http://127.0.0.1:8470)",
     CLI_STR_AT(C, server_flag)},
    {"token", 0, "TOKEN", "bearer token (default $BERTH_TOKEN, then the config file)",
     CLI_STR_AT(C, token_flag)},
    {"socket", 0, "PATH",
     "berthd's Unix socket: berthd knows you by your account (your jobs are its), no token "
     "(default $BERTH_SOCKET, the config file, then " CLI_DEFAULT_SOCKET ")",
     CLI_STR_AT(C, socket_flag)},
    {0},
};
#undef C

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

static void read_config(struct cli_client *c, int want_server, int want_token, int want_socket)
{
    char path[1024];
    const char *p = getenv("BERTH_CONFIG"), *home = getenv("HOME");
    if (!p && home) {
        snprintf(path, sizeof path, "%s/.config/berth/client.conf", home);
        p = path;
    }
    FILE *f = p ? fopen(p, "r") : NULL;
    if (!f)
        return;
    char line[1200];
    while (fgets(line, sizeof line, f)) {
        trim(line);
        char *v = line + strcspn(line, " \t");
        if (!*v)
            continue;
        *v++ = '\0';
        v += strspn(v, " \t");
        if (want_server && !strcmp(line, "server"))
            snprintf(c->server, sizeof c->server, "%s", v);
        else if (want_token && !strcmp(line, "token"))
            snprintf(c->token, sizeof c->token, "%s", v);
        else if (want_socket && !strcmp(line, "socket"))
            snprintf(c->socket, sizeof c->socket, "%s", v);
    }
    fclose(f);
}

/* 0 when something listens on the Unix socket at path, else why not (an errno). */
static int socket_errno(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (!*path)
        return ENOENT;
    if (strlen(path) >= sizeof sa.sun_path)
        return ENAMETOOLONG;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int e = connect(fd, (struct sockaddr *)&sa, sizeof sa) ? errno : 0;
    close(fd);
    return e;
}

/* Why a call failed to connect: the system's reason ("Connection refused") when libcurl
 * has one, else libcurl's ("Couldn't resolve host name"). */
static const char *curl_why(CURL *h, CURLcode cc, char *buf, size_t len)
{
    long os = 0;
    curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os);
    snprintf(buf, len, "%s", os ? strerror((int)os) : curl_easy_strerror(cc));
    return buf;
}

/* "" when a connection to url opens (nothing is sent), else why not, in buf. */
static const char *tcp_why(const char *url, char *buf, size_t len)
{
    buf[0] = '\0';
    CURL *h = curl_easy_init();
    if (!h)
        return buf; /* cannot tell: the call will say */
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    CURLcode cc = curl_easy_perform(h);
    if (cc != CURLE_OK)
        curl_why(h, cc, buf, len);
    curl_easy_cleanup(h);
    return buf;
}

/* berthd does not answer where the CLI looked (b NULL: one place): says where and why, and
 * returns the exit code of a connection failure (1, as a call that cannot connect). */
static int not_answering(const char *cmd, const char *a, const char *why_a, const char *b,
                         const char *why_b)
{
    fprintf(stderr,
            "berth %s: berthd is not answering at %s (%s)%s%s%s%s%s: is it running? "
            "(berthd --help)\n",
            cmd, a, why_a, b ? " nor at " : "", b ? b : "", b ? " (" : "", b ? why_b : "",
            b ? ")" : "");
    return EXIT_RUNTIME;
}

int cli_client_init(struct cli_client *c, const char *cmd)
{
    c->cmd = cmd;
    /* flags first, then the environment: a --socket flag beats $BERTH_SERVER */
    const char *s = c->server_flag   ? c->server_flag
                    : c->socket_flag ? NULL
                                     : getenv("BERTH_SERVER");
    const char *t = c->token_flag ? c->token_flag : getenv("BERTH_TOKEN");
    const char *k = c->socket_flag ? c->socket_flag : getenv("BERTH_SOCKET");
    s = s && *s ? s : NULL; /* an empty variable counts as unset */
    t = t && *t ? t : NULL;
    k = k && *k ? k : NULL;
    c->server[0] = c->token[0] = c->socket[0] = '\0';
    if (s)
        snprintf(c->server, sizeof c->server, "%s", s);
    if (t)
        snprintf(c->token, sizeof c->token, "%s", t);
    if (k)
        snprintf(c->socket, sizeof c->socket, "%s", k);
    read_config(c, !s, !t, !k);
    char sock[sizeof c->socket] = "";
    int sock_err = 0;
    if (!s) { /* no explicit server: the socket, when berthd answers there */
        if (!c->socket[0])
            snprintf(c->socket, sizeof c->socket, "%s", CLI_DEFAULT_SOCKET);
        if (!(sock_err = socket_errno(c->socket))) {
            snprintf(c->server, sizeof c->server, "http://localhost");
            /* berthd knows the caller by its account: a token goes only when asked for */
            if (!c->token_flag)
                c->token[0] = '\0';
            return 0;
        }
        if (c->socket_flag)
            return not_answering(cmd, c->socket, strerror(sock_err), NULL, NULL);
        snprintf(sock, sizeof sock, "%s", c->socket);
    }
    c->socket[0] = '\0';
    if (!c->server[0])
        snprintf(c->server, sizeof c->server, "http://127.0.0.1:8470");
    size_t n = strlen(c->server);
    while (n && c->server[n - 1] == '/')
        c->server[--n] = '\0';
    char why[256];
    /* no token: "no token" only when berthd is there to take one, else say it is not */
    if (!c->token[0] && *tcp_why(c->server, why, sizeof why))
        return sock[0] ? not_answering(cmd, sock, strerror(sock_err), c->server, why)
                       : not_answering(cmd, c->server, why, NULL, NULL);
    if (!c->token[0])
        return cli_usage_error(cmd,
                               "no token: give --token, set BERTH_TOKEN, or put 'token "
                               "TOKEN' in %s (or reach berthd's Unix socket: --socket)",
                               getenv("BERTH_CONFIG") ? getenv("BERTH_CONFIG")
                                                      : "~/.config/berth/client.conf");
    return 0;
}

struct sink {
    char *buf;
    size_t len;
    long long offset;
    int more;
};

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct sink *s = ud;
    size_t add = size * n;
    char *b = realloc(s->buf, s->len + add + 1);
    if (!b)
        return 0;
    memcpy(b + s->len, p, add);
    s->buf = b;
    s->len += add;
    b[s->len] = '\0';
    return add;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    struct sink *s = ud;
    size_t len = size * n;
    if (len > 16 && !strncasecmp(p, "X-Berth-Offset:", 15))
        s->offset = strtoll(p + 15, NULL, 10);
    if (len > 14 && !strncasecmp(p, "X-Berth-More:", 13))
        s->more = (int)strtol(p + 13, NULL, 10);
    return len;
}

int cli_call(const struct cli_client *c, const char *method, const char *path, const json_t *body,
             struct cli_reply *r)
{
    memset(r, 0, sizeof *r);
    CURL *h = curl_easy_init();
    if (!h) {
        fprintf(stderr, "berth %s: cannot start libcurl\n", c->cmd);
        return 1;
    }
    char url[2048], auth[600];
    snprintf(url, sizeof url, "%s%s", c->server, path);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", c->token);
    struct curl_slist *hdr = c->token[0] ? curl_slist_append(NULL, auth) : NULL;
    if (c->socket[0])
        curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->socket);
    hdr = curl_slist_append(hdr, "Content-Type: application/json");
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    struct sink s = {NULL, 0, -1, 0};
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
    if (text) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, text);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(text));
    } else if (!strcmp(method, "POST")) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
    }
    CURLcode cc = curl_easy_perform(h);
    int rc = 0;
    if (cc != CURLE_OK) {
        char why[256];
        curl_why(h, cc, why, sizeof why);
        if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST)
            not_answering(c->cmd, c->socket[0] ? c->socket : c->server, why, NULL, NULL);
        else /* it connected, then the call failed (a timeout, a cut connection) */
            fprintf(stderr, "berth %s: the call to berthd at %s failed: %s\n", c->cmd,
                    c->socket[0] ? c->socket : c->server, why);
        free(s.buf);
        rc = EXIT_RUNTIME;
    } else {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
        r->body = s.buf;
        r->len = s.len;
        r->offset = s.offset;
        r->more = s.more;
        if (s.buf && s.len)
            r->json = json_loadb(s.buf, s.len, 0, NULL);
    }
    free(text);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    return rc;
}

void cli_reply_free(struct cli_reply *r)
{
    json_decref(r->json);
    free(r->body);
    memset(r, 0, sizeof *r);
}

int cli_reply_check(const struct cli_client *c, const struct cli_reply *r)
{
    if (r->status >= 200 && r->status < 300)
        return 0;
    const char *msg = json_string_value(json_object_get(r->json, "error"));
    fprintf(stderr, "berth %s: HTTP %ld: %s\n", c->cmd, r->status,
            msg ? msg : (r->body ? r->body : "no answer"));
    return r->status == 400 || r->status == 404 || r->status == 409 || r->status == 413
               ? EXIT_BAD_INPUT
               : EXIT_RUNTIME;
}

int cli_job_id(const char *cmd, const char *s, unsigned long long *id)
{
    char *end;
    errno = 0;
    unsigned long long v = s ? strtoull(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v == 0 || *s == '-')
        return cli_usage_error(cmd, "expected a job id (a whole number >= 1), found '%s'",
                               s ? s : "");
    *id = v;
    return 0;
}

/* s (NULL: none) as a query value in buf: every byte but A-Z a-z 0-9 - . _ ~ and ',' (the
 * state list's separator) percent-encoded, so a filter can never add a parameter
 * ("a&all=1"). 0, or -1 when it does not fit in len bytes. */
int cli_query_escape(const char *s, char *buf, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    buf[0] = '\0';
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (o + 4 > len)
            return -1;
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~,", *p)) {
            buf[o++] = (char)*p;
        } else {
            buf[o++] = '%';
            buf[o++] = hex[*p >> 4];
            buf[o++] = hex[*p & 15];
        }
    }
    buf[o] = '\0';
    return 0;
}
