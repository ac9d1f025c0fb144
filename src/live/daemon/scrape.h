/* A service's load read over HTTP: berthd GETs http://127.0.0.1:PORT/PATH of each replica
 * (its own PORT, nothing else: no other host, no other port, no redirect), bounded by a
 * timeout and a size, and reads a number from the answer: the whole body, or the samples of
 * one metric in Prometheus' text format, summed. */
#ifndef BERTH_LIVE_SCRAPE_H
#define BERTH_LIVE_SCRAPE_H

#include <stddef.h>

#include "berth/err.h"
#include "berth/time.h"

#define BERTH_SCRAPE_PATH_MAX   256
#define BERTH_SCRAPE_MAX_BYTES  (64 * 1024) /* of an answer, headers included */
#define BERTH_SCRAPE_METRIC_MAX 128

/* Reads what a service gives as its scrape URL: "/PATH", or "http://HOST:$PORT/PATH" with
 * HOST 127.0.0.1 or localhost and the port written as $PORT (each replica's own). The path
 * goes into path (at most BERTH_SCRAPE_PATH_MAX bytes of printable ASCII, no space).
 * BERTH_EINPUT naming field "scrape" otherwise: another host, a literal port, https,
 * user info. */
int berth__scrape_url(const char *url, char *path, size_t len, struct berth_err *err);
/* A metric name as Prometheus allows it ([a-zA-Z_:][a-zA-Z0-9_:]*, at most
 * BERTH_SCRAPE_METRIC_MAX bytes): 1, else 0. */
int berth__scrape_metric_ok(const char *name);
/* The load in an answer's body: the body as one number (surrounding white space allowed),
 * else the sum of metric's samples in Prometheus text ("NAME VALUE" or "NAME{...} VALUE"
 * lines; comments skipped). 0 with *out set, or -1 (no such number: finite, >= 0). */
int berth__scrape_parse(const char *body, size_t len, const char *metric, double *out);
/* GETs path from 127.0.0.1:port within timeout_us (connect, send and read together) and
 * parses a 200 answer's body: 0 with *out, or -1 with why filled. */
int berth__scrape_fetch(int port, const char *path, const char *metric, berth_us timeout_us,
                        double *out, char *why, size_t wlen);

#endif
