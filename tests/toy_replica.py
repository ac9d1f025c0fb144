"""A toy inference server for berthd's service tests (tests/berthd_serve.sh,
tests/berthd_diurnal.sh), run by berthd as a service replica: serves HTTP on $PORT (GET
/metrics answers Prometheus text with its load, any other path "replica N"), records its
variables in DIR/rep-REPLICA-ATTEMPT, and reports its load. Standard library only.

Usage: toy_replica.py DIR MODE, MODE one of
  report  posts the load it is told (the file DIR/load-REPLICA, else DIR/load, else 0) to
          berthd (POST /v1/jobs/ID/load with its own job token) every 0.1 s
  scrape  only answers /metrics with that load (berthd scrapes it)
  served  posts the requests/s it served over the last second, every 0.1 s
  late    as scrape, but binds $PORT only once the file DIR/bind-REPLICA-ATTEMPT exists (so
          that a test can have another account take the port first:
          tests/berthd_serve_hijack.sh)
"""
import http.server
import json
import os
import sys
import threading
import time
import urllib.request

W, mode = sys.argv[1], sys.argv[2]
r, port = os.environ["BERTH_REPLICA"], int(os.environ["PORT"])
seen, lock = [], threading.Lock()


def told():
    for f in ("load-" + r, "load"):
        try:
            return float(open(os.path.join(W, f)).read())
        except (OSError, ValueError):
            pass
    return 0.0


def served():
    now = time.monotonic()
    with lock:
        while seen and seen[0] < now - 1.0:
            seen.pop(0)
        return float(len(seen))


load = served if mode == "served" else told


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/metrics":
            body = "# HELP load requests/s\n# TYPE load gauge\nload{replica=\"%s\"} %g\nother 99\n" % (r, load())
        else:
            with lock:
                seen.append(time.monotonic())
            body = "replica %s\n" % r
        self.send_response(200)
        self.send_header("Content-Length", str(len(body.encode())))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *a):
        pass


if mode == "late":
    while not os.path.exists(os.path.join(W, "bind-%s-%s" % (r, os.environ["BERTH_ATTEMPT"]))):
        time.sleep(0.05)
srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), H)
with open(os.path.join(W, "rep-%s-%s" % (r, os.environ["BERTH_ATTEMPT"])), "w") as f:
    f.write("%s %d %d %s\n" % (r, port, os.getpid(), os.environ["BERTH_JOB_ID"]))
if mode in ("report", "served"):
    def post():
        url = "%s/v1/jobs/%s/load" % (os.environ["BERTH_API"], os.environ["BERTH_JOB_ID"])
        while True:
            req = urllib.request.Request(url, json.dumps({"load": load()}).encode(), method="POST",
                                         headers={"Authorization": "Bearer " + os.environ["BERTH_JOB_TOKEN"]})
            try:
                urllib.request.urlopen(req, timeout=5).read()
            except Exception as e:  # berthd busy or restarting: the next post tries again
                print("post:", e, flush=True)
            time.sleep(0.1)

    threading.Thread(target=post, daemon=True).start()
srv.serve_forever()
