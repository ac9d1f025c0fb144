"""Unit tests of berth_client: the environment, file and HTTP reporting, the rate limit,
the checkpoint signal, and the no-op path outside berth. Standard library only; the HTTP
tests run a tiny http.server on 127.0.0.1. Run: python3 -m unittest test_berth_client."""

from __future__ import annotations

import http.server
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from contextlib import redirect_stderr
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import berth_client as bc  # noqa: E402


class Recorder(http.server.BaseHTTPRequestHandler):
    """Records every request (method, path, headers, body, arrival time); answers
    server.status (204 unless a test changes it)."""

    def do_POST(self):  # noqa: N802 (http.server's name)
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        self.server.seen.append(
            {
                "method": "POST",
                "path": self.path,
                "auth": self.headers.get("Authorization"),
                "type": self.headers.get("Content-Type"),
                "body": body,
                "at": time.monotonic(),
            }
        )
        self.send_response(self.server.status)
        if self.server.status == 204:
            self.end_headers()
        else:
            msg = b"token does not match job\n"
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)

    def do_GET(self):  # noqa: N802
        self.server.seen.append({"method": "GET", "path": self.path})
        self.send_response(405)
        self.end_headers()

    def log_message(self, *args):
        pass


class Server:
    def __enter__(self):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        self.httpd.seen = []
        self.httpd.status = 204
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.api = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


class EnvTest(unittest.TestCase):
    def test_resuming(self):
        self.assertFalse(bc.resuming({}))
        self.assertFalse(bc.resuming({"BERTH_RESUME": "0"}))
        self.assertTrue(bc.resuming({"BERTH_RESUME": "1"}))
        with self.assertRaisesRegex(bc.BerthClientError, "BERTH_RESUME: expected 1"):
            bc.resuming({"BERTH_RESUME": "yes"})
        with mock.patch.dict(os.environ, {"BERTH_RESUME": "1"}):
            self.assertTrue(bc.resuming())

    def test_grace(self):
        self.assertIsNone(bc.grace_seconds({}))
        self.assertEqual(bc.grace_seconds({"BERTH_GRACE_S": "30"}), 30.0)
        self.assertEqual(bc.grace_seconds({"BERTH_GRACE_S": "2.5"}), 2.5)
        for bad in ("-1", "soon", "nan"):
            with self.assertRaisesRegex(bc.BerthClientError, "BERTH_GRACE_S"):
                bc.grace_seconds({"BERTH_GRACE_S": bad})

    def test_job_defaults_outside_berth(self):
        job = bc.Job.from_env({})
        self.assertEqual((job.rank, job.world_size, job.local_rank), (0, 1, 0))
        self.assertFalse(job.under_berth)
        self.assertTrue(job.is_main)
        self.assertIsNone(job.gpus)
        self.assertFalse(job.resume)

    def test_job_from_berth_env(self):
        env = {
            "BERTH_JOB_ID": "17",
            "WORLD_SIZE": "4",
            "RANK": "3",
            "LOCAL_RANK": "1",
            "MASTER_ADDR": "10.0.0.2",
            "MASTER_PORT": "29500",
            "CUDA_VISIBLE_DEVICES": "2,3",
            "BERTH_RESUME": "1",
            "BERTH_GRACE_S": "30",
        }
        job = bc.Job.from_env(env)
        self.assertEqual(job.job_id, "17")
        self.assertEqual((job.rank, job.world_size, job.local_rank), (3, 4, 1))
        self.assertEqual((job.master_addr, job.master_port), ("10.0.0.2", 29500))
        self.assertEqual(job.gpus, ("2", "3"))
        self.assertTrue(job.under_berth and job.resume and not job.is_main)
        self.assertEqual(job.grace_s, 30.0)
        self.assertEqual(bc.Job.from_env({"CUDA_VISIBLE_DEVICES": ""}).gpus, ())

    def test_job_errors_name_the_variable(self):
        cases = [
            ({"WORLD_SIZE": "two"}, "WORLD_SIZE: expected an integer, found 'two'"),
            ({"WORLD_SIZE": "0"}, "WORLD_SIZE: expected an integer >= 1"),
            ({"RANK": "-1"}, "RANK: expected an integer >= 0"),
            ({"RANK": "2", "WORLD_SIZE": "2"}, "RANK: 2 is not below WORLD_SIZE 2"),
            ({"MASTER_PORT": "0"}, "MASTER_PORT: expected an integer >= 1"),
        ]
        for env, msg in cases:
            with self.subTest(env=env), self.assertRaises(bc.BerthClientError) as cm:
                bc.Job.from_env(env)
            self.assertIn(msg, str(cm.exception))


class FileTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "progress.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def test_lines(self):
        r = bc.Reporter(progress_file=self.path, strict=True)
        self.assertEqual(r.mode, "file")
        t0 = time.time()
        self.assertTrue(r.report(0))
        self.assertTrue(r.report(5, 0.5))
        self.assertTrue(r.report(7, metric=3))  # an int metric is a number too
        t1 = time.time()
        r.close()
        with open(self.path) as f:
            raw = f.read()
        self.assertTrue(raw.endswith("\n"))
        lines = [json.loads(x) for x in raw.splitlines()]
        self.assertEqual([x["step"] for x in lines], [0, 5, 7])
        self.assertNotIn("metric", lines[0])
        self.assertEqual(lines[1]["metric"], 0.5)
        self.assertEqual(lines[2]["metric"], 3.0)
        for x in lines:
            self.assertEqual(set(x) - {"metric"}, {"step", "time"})
            self.assertTrue(t0 - 0.001 <= x["time"] <= t1 + 0.001, x)

    def test_appends_to_existing_file(self):
        with open(self.path, "w") as f:
            f.write('{"step": 3}\n')
        r = bc.Reporter(progress_file=self.path, strict=True)
        r.report(4)
        r.close()
        self.assertEqual([x["step"] for x in bc.read_progress(self.path)], [3, 4])

    def test_file_wins_over_http_and_env(self):
        env = {
            "BERTH_PROGRESS_FILE": self.path,
            "BERTH_API": "http://127.0.0.1:9",
            "BERTH_JOB_ID": "1",
            "BERTH_JOB_TOKEN": "t",
        }
        r = bc.Reporter.from_env(env, strict=True)
        self.assertEqual(r.mode, "file")
        r.report(1, 0.25)
        r.close()
        self.assertEqual(bc.read_progress(self.path)[0]["metric"], 0.25)

    def test_bad_arguments_raise(self):
        r = bc.Reporter(progress_file=self.path)
        for args, exc, msg in [
            ((-1,), ValueError, "step must be >= 0, found -1"),
            ((1.5,), TypeError, "step must be an integer, found float"),
            (("3",), TypeError, "step must be an integer, found str"),
            ((True,), TypeError, "not a bool"),
            ((1, float("nan")), ValueError, "metric must be finite"),
            ((1, float("inf")), ValueError, "metric must be finite"),
            ((1, "0.5"), TypeError, "metric must be a number, found str"),
            ((1, [0.5]), TypeError, "metric must be a number, found list"),
        ]:
            with self.subTest(args=args), self.assertRaisesRegex(exc, msg):
                r.report(*args)
        r.close()
        self.assertFalse(os.path.exists(self.path), "a refused report wrote something")

    def test_relative_path_refused(self):
        msg = "BERTH_PROGRESS_FILE: expected an absolute"
        with self.assertRaisesRegex(bc.BerthClientError, msg):
            bc.Reporter(progress_file="progress.jsonl")

    def test_unwritable_file(self):
        missing = os.path.join(self.dir.name, "no-such-dir", "p.jsonl")
        msg = "cannot write progress file .*no-such-dir"
        with self.assertRaisesRegex(bc.BerthClientError, msg):
            bc.Reporter(progress_file=missing, strict=True).report(1)
        r = bc.Reporter(progress_file=missing)
        err = io.StringIO()
        with redirect_stderr(err):
            self.assertFalse(r.report(1))
            self.assertFalse(r.report(2))
        self.assertEqual(err.getvalue().count("cannot write progress file"), 1, err.getvalue())

    def test_read_progress(self):
        with open(self.path, "w") as f:
            f.write('{"step": 1, "metric": 2.5, "time": 10}\n{"step": 2}\n{"step": 3, "met')
        self.assertEqual([x["step"] for x in bc.read_progress(self.path)], [1, 2])
        for bad, msg in [
            ('{"step": -1}\n', ":1: step: expected an integer >= 0"),
            ('{"step": 1}\n[1]\n', ":2: step"),
            ('{"step": 1, "metric": "x"}\n', ":1: metric: expected a number"),
            ("step=1\n", ":1: not a JSON object"),
        ]:
            with open(self.path, "w") as f:
                f.write(bad)
            with self.subTest(bad=bad), self.assertRaisesRegex(bc.BerthClientError, msg):
                bc.read_progress(self.path)


class HttpTest(unittest.TestCase):
    def reporter(self, api, job="job-7", **kw):
        return bc.Reporter(api=api, job_id=job, token="s3cret", **kw)

    def test_request(self):
        with Server() as s:
            r = self.reporter(s.api + "/", strict=True)
            self.assertEqual(r.mode, "http")
            r.report(3, 0.5)
            self.assertTrue(r.flush(5))
            r.close()
            self.assertEqual(len(s.httpd.seen), 1)
            got = s.httpd.seen[0]
            self.assertEqual(got["method"], "POST")
            self.assertEqual(got["path"], "/v1/jobs/job-7/progress")
            self.assertEqual(got["auth"], "Bearer s3cret")
            self.assertEqual(got["type"], "application/json")
            self.assertEqual(json.loads(got["body"]), {"step": 3, "metric": 0.5})

    def test_no_metric_and_escaped_id(self):
        with Server() as s:
            r = self.reporter(s.api, job="a b/c", strict=True)
            r.report(0)
            r.close()
            self.assertEqual(s.httpd.seen[0]["path"], "/v1/jobs/a%20b%2Fc/progress")
            self.assertEqual(json.loads(s.httpd.seen[0]["body"]), {"step": 0})

    def test_rate_limit_sends_the_latest(self):
        # With a 0.4 s interval: step 0 goes out at once; 49 more reports in a tight loop
        # right after it collapse into one post of the latest (49), 0.4 s after the first.
        with Server() as s:
            r = self.reporter(s.api, min_interval=0.4, strict=True)
            r.report(0, 0.0)
            self.assertTrue(r.flush(5))
            start = time.monotonic()
            for step in range(1, 50):
                r.report(step, step / 10)
            # blocking on the network would take 49 x 0.4 s
            self.assertLess(time.monotonic() - start, 2.0, "report() waited for the network")
            self.assertTrue(r.flush(5))
            r.close()
            seen = s.httpd.seen
            self.assertEqual([json.loads(x["body"]) for x in seen],
                             [{"step": 0, "metric": 0.0}, {"step": 49, "metric": 4.9}])
            self.assertGreaterEqual(seen[1]["at"] - seen[0]["at"], 0.35)

    def test_spaced_reports_all_go_out(self):
        with Server() as s:
            r = self.reporter(s.api, min_interval=0.05, strict=True)
            for step in (1, 2, 3):
                r.report(step)
                self.assertTrue(r.flush(5))
                time.sleep(0.06)
            r.close()
            self.assertEqual([json.loads(x["body"])["step"] for x in s.httpd.seen], [1, 2, 3])

    def test_refused_strict_raises(self):
        with Server() as s:
            s.httpd.status = 403
            r = self.reporter(s.api, strict=True)
            r.report(1)
            with self.assertRaisesRegex(bc.BerthClientError, "HTTP 403: token does not match job"):
                r.flush(5)
            r.close()

    def test_refused_lenient_warns_once(self):
        with Server() as s:
            s.httpd.status = 401
            r = self.reporter(s.api, min_interval=0)
            err = io.StringIO()
            with redirect_stderr(err):
                for step in range(3):
                    self.assertTrue(r.report(step))
                    self.assertFalse(r.flush(5))
                r.close()
            self.assertEqual(len(s.httpd.seen), 3)
            self.assertEqual(err.getvalue().count("HTTP 401"), 1, err.getvalue())

    def test_daemon_away(self):
        with Server() as s:
            api = s.api  # the port is closed once the server is gone
        r = self.reporter(api, strict=True, timeout=2)
        r.report(1)
        msg = "POST http://127.0.0.1:.*/v1/jobs/job-7/progress"
        with self.assertRaisesRegex(bc.BerthClientError, msg):
            r.flush(5)

    def test_forked_child_reports(self):
        # a child forked while the parent's sender thread runs (a data-loader worker) gets a
        # working reporter of its own; its flush does not wait for the parent's thread
        with Server() as s:
            r = self.reporter(s.api, min_interval=0, strict=True)
            r.report(1)
            self.assertTrue(r.flush(5))
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    r.report(2)
                    code = 0 if r.flush(5) else 1
                finally:
                    os._exit(code)
            _, status = os.waitpid(pid, 0)
            self.assertEqual(os.waitstatus_to_exitcode(status), 0)
            r.report(3)
            r.close()
            self.assertEqual(sorted(json.loads(x["body"])["step"] for x in s.httpd.seen), [1, 2, 3])

    def test_configuration_errors(self):
        for kw, msg in [
            ({"api": "http://h:1", "token": "t"}, "BERTH_JOB_ID is not"),
            ({"api": "http://h:1", "job_id": "1"}, "BERTH_JOB_TOKEN is not"),
            ({"api": "127.0.0.1:8470", "job_id": "1", "token": "t"}, "BERTH_API: expected http://"),
        ]:
            with self.subTest(kw=kw), self.assertRaisesRegex(bc.BerthClientError, msg):
                bc.Reporter(**kw)


class NoopTest(unittest.TestCase):
    def setUp(self):
        bc._default = None

    def tearDown(self):
        bc._default = None

    def test_outside_berth(self):
        with mock.patch.dict(os.environ, {}, clear=True), tempfile.TemporaryDirectory() as d:
            cwd = os.getcwd()
            os.chdir(d)
            try:
                threads = threading.active_count()
                n = 100000
                start = time.perf_counter()
                for step in range(n):
                    bc.report(step, 0.5)
                per_call = (time.perf_counter() - start) / n
                self.assertEqual(bc.reporter().mode, "none")
                self.assertTrue(bc.flush(1))
                self.assertEqual(threading.active_count(), threads, "a sender thread started")
                self.assertEqual(os.listdir(d), [], "the no-op path wrote a file")
                with self.assertRaises(ValueError):
                    bc.report(-1)  # arguments are checked outside berth too
                self.assertFalse(bc.resuming())
                self.assertEqual(bc.Job.from_env().world_size, 1)
                print(f"\nno-op report(): {per_call * 1e9:.0f} ns per call", file=sys.stderr)
                self.assertLess(per_call, 50e-6)
            finally:
                os.chdir(cwd)

    def test_module_report_uses_the_environment(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.jsonl")
            with mock.patch.dict(os.environ, {"BERTH_PROGRESS_FILE": path}, clear=True):
                bc.report(12, 1.5)
                bc.report(13)
            self.assertEqual([x["step"] for x in bc.read_progress(path)], [12, 13])
            bc._default.close()


class SignalTest(unittest.TestCase):
    def setUp(self):
        self.saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGUSR1)}
        bc._installed = None
        bc._requested = False
        bc._callbacks.clear()

    def tearDown(self):
        for s, h in self.saved.items():
            signal.signal(s, h)
        bc._installed = None
        bc._requested = False
        bc._callbacks.clear()

    def test_parse(self):
        for name, want in [
            ("SIGTERM", signal.SIGTERM),
            ("TERM", signal.SIGTERM),
            ("sigusr1", signal.SIGUSR1),
            ("USR2", signal.SIGUSR2),
            (" SIGINT ", signal.SIGINT),
            ("SIGHUP", signal.SIGHUP),
            ("SIGQUIT", signal.SIGQUIT),
            ("SIGALRM", signal.SIGALRM),
            ("SIGCONT", signal.SIGCONT),
            ("xcpu", signal.SIGXCPU),
            ("SIGKILL", signal.SIGKILL),
        ]:
            self.assertEqual(bc.parse_signal(name), want, name)
        for bad in ("SIGSTOP", "STOP", "SIGFOO", "", "15", "SIG", "SIGSEGV"):
            with self.subTest(bad=bad), self.assertRaisesRegex(
                bc.BerthClientError, "BERTH_CHECKPOINT_SIGNAL: unknown signal"
            ):
                bc.parse_signal(bad)
        self.assertEqual(bc.checkpoint_signal({}), signal.SIGTERM)
        usr1 = {"BERTH_CHECKPOINT_SIGNAL": "SIGUSR1"}
        self.assertEqual(bc.checkpoint_signal(usr1), signal.SIGUSR1)

    def test_flag_and_callback(self):
        seen = []
        with mock.patch.dict(os.environ, {"BERTH_CHECKPOINT_SIGNAL": "SIGUSR1"}):
            self.assertEqual(bc.install_checkpoint_handler(), signal.SIGUSR1)
            bc.on_checkpoint(seen.append)
            self.assertFalse(bc.checkpoint_requested())
            os.kill(os.getpid(), signal.SIGUSR1)
            for _ in range(100):  # Python runs the handler at the next bytecode boundary
                if bc.checkpoint_requested():
                    break
                time.sleep(0.01)
        self.assertTrue(bc.checkpoint_requested())
        self.assertEqual(seen, [signal.SIGUSR1])
        self.assertEqual(signal.getsignal(signal.SIGTERM), self.saved[signal.SIGTERM])
        bc.clear_checkpoint_request()
        self.assertFalse(bc.checkpoint_requested())

    def test_sigkill_installs_nothing(self):
        # berthd may preempt without warning: SIGKILL cannot be caught, so nothing is
        # installed (and nothing fails) and no request ever comes
        with mock.patch("signal.signal") as sig:
            self.assertEqual(bc.install_checkpoint_handler(signal.SIGKILL), signal.SIGKILL)
            self.assertFalse(bc.checkpoint_requested())
        sig.assert_not_called()

    def test_default_sigterm_in_a_training_loop(self):
        # A child loop that reports each step and, on SIGTERM, reports where it stopped and
        # exits 0: what berthd's preemption looks like from the job's side.
        code = (
            "import sys, time, berth_client as b\n"
            "b.install_checkpoint_handler()\n"
            "step = 0\n"
            "while True:\n"
            "    if b.checkpoint_requested():\n"
            "        b.report(step, 0.0); print('checkpoint at', step); sys.exit(0)\n"
            "    step += 1; b.report(step); time.sleep(0.01)\n"
        )
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.jsonl")
            env = {k: v for k, v in os.environ.items() if not k.startswith("BERTH_")}
            env.update(BERTH_PROGRESS_FILE=path, PYTHONPATH=os.path.dirname(bc.__file__))
            child = subprocess.Popen(
                [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True
            )
            try:
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    if os.path.exists(path) and len(bc.read_progress(path)) >= 5:
                        break
                    time.sleep(0.02)
                child.send_signal(signal.SIGTERM)
                out, _ = child.communicate(timeout=20)
            finally:
                child.kill()
            self.assertEqual(child.returncode, 0, out)
            lines = bc.read_progress(path)
            self.assertGreaterEqual(len(lines), 6)
            steps = [x["step"] for x in lines]
            self.assertEqual(steps[-1], steps[-2], "the checkpoint report repeats the last step")
            self.assertEqual(steps[:-1], list(range(1, len(steps))))
            self.assertEqual(lines[-1]["metric"], 0.0)
            self.assertIn(f"checkpoint at {steps[-1]}", out)


if __name__ == "__main__":
    unittest.main()
