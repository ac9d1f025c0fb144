/* Scraping a replica's load (live/daemon/scrape.c): which URLs are accepted (the replica's
 * own loopback port only), the numbers read from an answer (a bare number; Prometheus text
 * summed over label sets, comments and other metrics skipped), and the client against a
 * one-shot server in a thread: a 200 answer, a 404, an answer past the size bound, and a
 * server that never answers (the timeout). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "live/daemon/scrape.h"

static void test_url(void)
{
    char p[300];
    struct berth_err e = {0};
    CHECK_I64(berth__scrape_url("/metrics", p, sizeof p, &e), 0);
    CHECK_STR(p, "/metrics");
    CHECK_I64(berth__scrape_url("http://127.0.0.1:$PORT/m?x=1", p, sizeof p, &e), 0);
    CHECK_STR(p, "/m?x=1");
    CHECK_I64(berth__scrape_url("http://localhost:$PORT/load", p, sizeof p, &e), 0);
    CHECK_STR(p, "/load");
    static const char *const refused[] = {
        "http://10.0.0.1:$PORT/m",
        "http://127.0.0.1:8470/m",
        "http://127.0.0.1/m",
        "http://127.0.0.1.evil:$PORT/m",
        "http://a@127.0.0.1:$PORT/m",
        "https://127.0.0.1:$PORT/m",
        "file:///etc/passwd",
        "metrics",
        "/a b",
        "/a\r\nHost: x",
        "http://[::1]:$PORT/m",
        "",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        e.msg[0] = 0;
        CHECK_I64(berth__scrape_url(refused[i], p, sizeof p, &e), BERTH_EINPUT);
        CHECK_HAS(e.msg, "scrape: ");
    }
    CHECK(berth__scrape_metric_ok("load"));
    CHECK(berth__scrape_metric_ok("http_requests:rate1m"));
    CHECK(!berth__scrape_metric_ok("1load"));
    CHECK(!berth__scrape_metric_ok("lo ad"));
    CHECK(!berth__scrape_metric_ok(""));
}

static void test_parse(void)
{
    double v = -1;
    const char *b = " 12.5\n";
    CHECK_I64(berth__scrape_parse(b, strlen(b), "load", &v), 0);
    CHECK_DBL(v, 12.5, 0);
    b = "# HELP load rps\n# TYPE load gauge\nload{r=\"0\"} 3\nload_total 100\nload{r=\"1\"} 4.5 "
        "1700000000\nother 9\n";
    CHECK_I64(berth__scrape_parse(b, strlen(b), "load", &v), 0);
    CHECK_DBL(v, 7.5, 0); /* 3 + 4.5: load_total and other are not load */
    b = "queue_len 6\n";
    CHECK_I64(berth__scrape_parse(b, strlen(b), "queue_len", &v), 0);
    CHECK_DBL(v, 6, 0);
    static const char *const bad[] = {"", "nan", "-1", "inf", "load abc\n", "other 3\n", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_I64(berth__scrape_parse(bad[i], strlen(bad[i]), "load", &v), -1);
}

struct server {
    int fd, port;
    const char *answer; /* NULL: read the request, never answer */
    size_t fill;        /* bytes of body to send after answer */
};

static void *serve_one(void *arg)
{
    struct server *s = arg;
    int c = accept(s->fd, NULL, NULL);
    char buf[1024];
    if (c < 0)
        return NULL;
    (void)!read(c, buf, sizeof buf);
    if (s->answer) {
        (void)!write(c, s->answer, strlen(s->answer));
        for (size_t i = 0; i < s->fill; i += sizeof buf) {
            memset(buf, '1', sizeof buf);
            if (write(c, buf, sizeof buf) < 0)
                break;
        }
    } else {
        usleep(600000); /* past the client's timeout */
    }
    close(c);
    return NULL;
}

/* Fetches from a one-shot server answering answer (then fill bytes). */
static int fetch(const char *answer, size_t fill, double *v, char *why, size_t wlen)
{
    struct server s = {.answer = answer, .fill = fill};
    s.fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (bind(s.fd, (struct sockaddr *)&a, sizeof a) || listen(s.fd, 1) ||
        getsockname(s.fd, (struct sockaddr *)&a, &len))
        return -2;
    s.port = ntohs(a.sin_port);
    pthread_t t;
    pthread_create(&t, NULL, serve_one, &s);
    int rc = berth__scrape_fetch(s.port, "/metrics", "load", 300000, v, why, wlen);
    pthread_join(t, NULL);
    close(s.fd);
    return rc;
}

static void test_fetch(void)
{
    double v = -1;
    char why[160] = "";
    CHECK_I64(fetch("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nload 4\nload{a=\"b\"} 1\n",
                    0, &v, why, sizeof why),
              0);
    CHECK_DBL(v, 5, 0);
    CHECK_I64(fetch("HTTP/1.1 404 Not Found\r\n\r\n3\n", 0, &v, why, sizeof why), -1);
    CHECK_HAS(why, "status 404");
    CHECK_I64(fetch("HTTP/1.0 200 OK\r\n\r\n", BERTH_SCRAPE_MAX_BYTES + 4096, &v, why, sizeof why),
              -1);
    CHECK_HAS(why, "answer over");
    CHECK_I64(fetch(NULL, 0, &v, why, sizeof why), -1);
    CHECK_HAS(why, "timed out");
    CHECK_I64(berth__scrape_fetch(1, "/m", "load", 300000, &v, why, sizeof why), -1); /* refused */
    CHECK_HAS(why, "connect to 127.0.0.1:1");
}

static const struct check_test tests[] = {
    {"url", test_url},
    {"parse", test_parse},
    {"fetch", test_fetch},
};

CHECK_MAIN(tests)
