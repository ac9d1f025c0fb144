"""berth_client: the job side of berth's protocol, for Python training scripts.

berthd starts every job with a few environment variables (docs/job-protocol.md is the
contract). This module reads them so that a training script can

* report its progress::

      berth_client.report(step, metric=loss)

  appended as one JSON line to ``BERTH_PROGRESS_FILE`` when it is set, else posted to
  ``BERTH_API`` (at most once per second, always the latest report), else nothing at all:
  the same script runs unchanged outside berth;

* checkpoint when berthd asks (``BERTH_CHECKPOINT_SIGNAL``, default SIGTERM), at the next
  iteration boundary, and exit 0 before ``BERTH_GRACE_S`` runs out::

      berth_client.install_checkpoint_handler()      # early, in the main thread
      for step in range(start, steps):
          if berth_client.checkpoint_requested():
              save(step); sys.exit(0)
          train_one_step()

* know whether it was restarted after a preemption or a resize (``berth_client.resuming()``)
  and which rank it is (``berth_client.Job.from_env()``).

Python 3 standard library only; copy this one file next to a training script if you like.
"""

from __future__ import annotations

import atexit
import json
import math
import operator
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Tuple

__all__ = [
    "BerthClientError",
    "Job",
    "Reporter",
    "checkpoint_requested",
    "checkpoint_signal",
    "clear_checkpoint_request",
    "flush",
    "grace_seconds",
    "install_checkpoint_handler",
    "on_checkpoint",
    "parse_signal",
    "read_progress",
    "report",
    "reporter",
    "resuming",
]

#: The signals berthd may name in BERTH_CHECKPOINT_SIGNAL (the C client accepts the same).
#: SIGKILL means "no warning": nothing can be caught, the job is simply killed.
CHECKPOINT_SIGNALS: Tuple[str, ...] = (
    "SIGHUP",
    "SIGINT",
    "SIGQUIT",
    "SIGKILL",
    "SIGUSR1",
    "SIGUSR2",
    "SIGTERM",
    "SIGCONT",
    "SIGALRM",
    "SIGXCPU",
)

#: Default least time between two HTTP reports, in seconds.
HTTP_MIN_INTERVAL_S = 1.0
#: Timeout of one HTTP request, in seconds.
HTTP_TIMEOUT_S = 5.0


class BerthClientError(Exception):
    """A berth environment variable is malformed, or a report could not be delivered."""


# --------------------------------------------------------------------------- environment


def _env_int(env: Mapping[str, str], name: str, default: int, minimum: int = 0) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise BerthClientError(f"{name}: expected an integer, found {raw!r}") from None
    if value < minimum:
        raise BerthClientError(f"{name}: expected an integer >= {minimum}, found {raw!r}")
    return value


def resuming(env: Optional[Mapping[str, str]] = None) -> bool:
    """True when berthd restarted this job after a preemption or an elastic resize.

    berthd sets ``BERTH_RESUME=1`` only then; unset (or empty, or ``0``) means a first start.
    Any other value is a protocol error (:class:`BerthClientError`).
    """
    raw = (os.environ if env is None else env).get("BERTH_RESUME", "")
    if raw in ("", "0"):
        return False
    if raw == "1":
        return True
    raise BerthClientError(f"BERTH_RESUME: expected 1 (or unset), found {raw!r}")


def grace_seconds(env: Optional[Mapping[str, str]] = None) -> Optional[float]:
    """BERTH_GRACE_S: seconds between the checkpoint signal and SIGKILL; None when unset."""
    raw = (os.environ if env is None else env).get("BERTH_GRACE_S", "")
    if raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        raise BerthClientError(f"BERTH_GRACE_S: expected seconds >= 0, found {raw!r}")
    return value


@dataclass(frozen=True)
class Job:
    """Who this process is, from berthd's environment (defaults describe a lone process).

    ``rank``/``world_size``/``local_rank``/``master_addr``/``master_port`` are torchrun's
    names, so ``torch.distributed.init_process_group("nccl")`` finds them too.
    """

    job_id: Optional[str] = None
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    master_addr: Optional[str] = None
    master_port: Optional[int] = None
    gpus: Optional[Tuple[str, ...]] = None  # CUDA_VISIBLE_DEVICES split on commas
    resume: bool = False
    grace_s: Optional[float] = None

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None) -> "Job":
        """Reads the job's identity; raises :class:`BerthClientError` on a malformed value."""
        env = os.environ if env is None else env
        world = _env_int(env, "WORLD_SIZE", 1, minimum=1)
        rank = _env_int(env, "RANK", 0)
        if rank >= world:
            raise BerthClientError(f"RANK: {rank} is not below WORLD_SIZE {world}")
        port = env.get("MASTER_PORT")
        cuda = env.get("CUDA_VISIBLE_DEVICES")
        return cls(
            job_id=env.get("BERTH_JOB_ID") or None,
            rank=rank,
            world_size=world,
            local_rank=_env_int(env, "LOCAL_RANK", 0),
            master_addr=env.get("MASTER_ADDR") or None,
            master_port=None if not port else _env_int(env, "MASTER_PORT", 0, minimum=1),
            gpus=None if cuda is None else tuple(g for g in cuda.split(",") if g),
            resume=resuming(env),
            grace_s=grace_seconds(env),
        )

    @property
    def under_berth(self) -> bool:
        """True when berthd started this process (BERTH_JOB_ID is set)."""
        return self.job_id is not None

    @property
    def is_main(self) -> bool:
        """True on rank 0: the process that should report progress and write checkpoints."""
        return self.rank == 0


# --------------------------------------------------------------------------- progress


def _check_report(step: int, metric: Optional[float]) -> Tuple[int, Optional[float]]:
    if isinstance(step, bool):
        raise TypeError("step must be an integer, not a bool")
    try:
        step = operator.index(step)
    except TypeError:
        raise TypeError(f"step must be an integer, found {type(step).__name__}") from None
    if step < 0:
        raise ValueError(f"step must be >= 0, found {step}")
    if metric is not None:
        if isinstance(metric, (bool, str, bytes)):
            raise TypeError(f"metric must be a number, found {type(metric).__name__}")
        try:
            metric = float(metric)  # also a 0-d tensor or a numpy scalar
        except (TypeError, ValueError, RuntimeError):  # RuntimeError: a tensor of many
            raise TypeError(f"metric must be a number, found {type(metric).__name__}") from None
        if not math.isfinite(metric):
            raise ValueError(f"metric must be finite (JSON has no {metric}); pass metric=None")
    return step, metric


class Reporter:
    """Sends progress reports one way: a progress file, berthd's HTTP API, or nowhere.

    ``Reporter.from_env()`` picks the way from the environment (the module-level
    :func:`report` uses one shared instance). Who writes what:

    * ``mode == "file"``: every :meth:`report` appends one line
      ``{"step": N, "metric": x, "time": T}`` with a single ``write`` on an ``O_APPEND``
      descriptor, so the line is whole in the file when the call returns;
    * ``mode == "http"``: :meth:`report` only records the latest report; a background thread
      posts it, at most once per ``min_interval`` seconds, so the training loop never waits
      for the network and the daemon always gets the newest step. :meth:`flush` (called at
      exit) waits until the latest report went out;
    * ``mode == "none"``: nothing happens, at the cost of a function call.

    Delivery failures (the file cannot be written, the daemon is away or refuses) never
    stop training unless ``strict`` is set: each distinct failure is printed once on
    stderr and ``report``/``flush`` return False. With ``strict=True`` they raise
    :class:`BerthClientError`. Bad arguments (a negative step, a NaN metric) always raise.
    """

    def __init__(
        self,
        progress_file: Optional[str] = None,
        api: Optional[str] = None,
        job_id: Optional[str] = None,
        token: Optional[str] = None,
        *,
        min_interval: float = HTTP_MIN_INTERVAL_S,
        timeout: float = HTTP_TIMEOUT_S,
        strict: bool = False,
    ) -> None:
        self.strict = strict
        self.min_interval = float(min_interval)
        self.timeout = float(timeout)
        self.url: Optional[str] = None
        self._fd = -1
        self._warned: Dict[str, bool] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._pending: Optional[bytes] = None  # latest body not yet posted
        self._busy = False  # a post is in flight
        self._delivered = True  # the last post succeeded
        self._last_post = -math.inf  # monotonic time of the last post
        self._error: Optional[BerthClientError] = None  # strict mode: raised at next call
        self._thread: Optional[threading.Thread] = None
        self._closed = False
        _reporters.add(self)
        if progress_file:
            if not os.path.isabs(progress_file):
                raise BerthClientError(
                    f"BERTH_PROGRESS_FILE: expected an absolute path, found {progress_file!r}"
                )
            self.mode = "file"
            self.progress_file: Optional[str] = progress_file
        elif api:
            if not job_id:
                raise BerthClientError("BERTH_API is set but BERTH_JOB_ID is not")
            if not token:
                raise BerthClientError("BERTH_API is set but BERTH_JOB_TOKEN is not")
            parts = urllib.parse.urlsplit(api)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise BerthClientError(f"BERTH_API: expected http://HOST:PORT, found {api!r}")
            self.mode = "http"
            self.progress_file = None
            job = urllib.parse.quote(job_id, safe="")
            self.url = f"{api.rstrip('/')}/v1/jobs/{job}/progress"
            self._auth = f"Bearer {token}"
        else:
            self.mode = "none"
            self.progress_file = None

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None, **kwargs) -> "Reporter":
        """The reporter berthd's environment asks for (file, else HTTP, else none)."""
        env = os.environ if env is None else env
        return cls(
            progress_file=env.get("BERTH_PROGRESS_FILE") or None,
            api=env.get("BERTH_API") or None,
            job_id=env.get("BERTH_JOB_ID") or None,
            token=env.get("BERTH_JOB_TOKEN") or None,
            **kwargs,
        )

    # -- reporting

    def report(self, step: int, metric: Optional[float] = None) -> bool:
        """Reports that ``step`` steps are done (``metric``: e.g. the loss, optional).

        Returns True when the report was written (file) or queued for the sender thread
        (HTTP: :meth:`flush` tells whether it went out), False when the file could not be
        written and the failure was printed instead (non-strict mode).
        """
        step, metric = _check_report(step, metric)
        if self.mode == "none":
            return True
        if self._closed:
            raise BerthClientError("report() on a closed Reporter")
        body = {"step": step} if metric is None else {"step": step, "metric": metric}
        if self.mode == "file":
            body["time"] = round(time.time(), 3)
            return self._append(json.dumps(body, allow_nan=False) + "\n")
        with self._lock:
            self._raise_stored()
            self._pending = json.dumps(body, allow_nan=False).encode()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._sender, name="berth-report", daemon=True
                )
                self._thread.start()
                atexit.register(self.flush, 2.0)
            self._wake.notify()
        return True

    def _append(self, line: str) -> bool:
        data = line.encode()
        try:
            if self._fd < 0:
                with self._lock:  # two threads' first reports open the file once
                    if self._fd < 0:
                        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
                        self._fd = os.open(self.progress_file, flags, 0o644)
            done = os.write(self._fd, data)
            while done < len(data):  # a short write on a regular file: finish the line
                done += os.write(self._fd, data[done:])
            return True
        except OSError as e:
            return self._fail(f"cannot write progress file {self.progress_file}: {e.strerror}")

    def _fail(self, msg: str) -> bool:
        if self.strict:
            raise BerthClientError(msg)
        if msg not in self._warned:
            self._warned[msg] = True
            print(f"berth_client: {msg} (reports continue)", file=sys.stderr, flush=True)
        return False

    def _raise_stored(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _sender(self) -> None:
        while True:
            with self._lock:
                while True:
                    if self._closed and self._pending is None:
                        return
                    wait = self._last_post + self.min_interval - time.monotonic()
                    if self._pending is not None and wait <= 0:
                        break
                    self._wake.wait(None if self._pending is None else wait)
                body, self._pending = self._pending, None
                self._busy = True
                self._last_post = time.monotonic()
            error = self._post(body)
            with self._lock:
                self._busy = False
                self._delivered = error is None
                if error is not None:
                    if self.strict:
                        self._error = BerthClientError(error)
                    else:
                        self._fail(error)
                self._wake.notify_all()

    def _post(self, body: bytes) -> Optional[str]:
        """Posts one report; returns None on success or why it failed."""
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={"Authorization": self._auth, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                if 200 <= response.status < 300:
                    return None
                return f"POST {self.url}: HTTP {response.status}"
        except urllib.error.HTTPError as e:
            detail = e.read(200).decode("utf-8", "replace").strip()
            return f"POST {self.url}: HTTP {e.code}" + (f": {detail}" if detail else "")
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            return f"POST {self.url}: {reason}"

    def _after_fork(self) -> None:
        """In a forked child: the sender thread did not come along and the lock may be held
        by it; start afresh (the parent still sends what it had pending)."""
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._pending = None
        self._busy = False
        self._delivered = True
        self._thread = None
        self._error = None

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Waits (at most ``timeout`` seconds) until the latest report was posted.

        Returns True when it was delivered, False when it did not go out in time or berthd
        refused it (printed on stderr); in strict mode a failed delivery raises instead.
        Nothing to do (True) for the file and none modes.
        """
        if self.mode != "http" or self._thread is None:
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self._wake.notify_all()
            while self._pending is not None or self._busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._wake.wait(left)
            self._raise_stored()
            return self._delivered

    def close(self) -> None:
        """Flushes, stops the sender thread and closes the progress file."""
        self.flush(self.timeout)
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


_default: Optional[Reporter] = None
_default_lock = threading.Lock()
_reporters: "weakref.WeakSet[Reporter]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    global _default_lock
    _default_lock = threading.Lock()
    for r in list(_reporters):
        r._after_fork()


if hasattr(os, "register_at_fork"):  # a data-loader worker forked mid-report can report too
    os.register_at_fork(after_in_child=_after_fork_in_child)


def reporter() -> Reporter:
    """The shared :class:`Reporter` of :func:`report`, made from the environment once."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Reporter.from_env()
    return _default


def report(step: int, metric: Optional[float] = None) -> bool:
    """Reports progress through the shared :class:`Reporter` (see :meth:`Reporter.report`).

    ``step`` is the number of steps done (an int >= 0), ``metric`` an optional finite
    number (a loss, an accuracy; a 0-d tensor works). A no-op outside berth.
    """
    r = _default if _default is not None else reporter()
    if r.mode == "none":  # the common case outside berth: check the arguments, do nothing
        _check_report(step, metric)
        return True
    return r.report(step, metric)


def flush(timeout: Optional[float] = None) -> bool:
    """Delivers the shared reporter's latest HTTP report (call it before exiting early)."""
    return True if _default is None else _default.flush(timeout)


def read_progress(path: str) -> List[dict]:
    """Reads a progress file as berthd does: every whole line, a partial last line ignored.

    Raises :class:`BerthClientError` naming ``path:line`` for a malformed whole line.
    """
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    out = []
    for n, raw in enumerate(lines[:-1], start=1):  # lines[-1]: after the last newline
        try:
            entry = json.loads(raw)
        except ValueError:
            raise BerthClientError(f"{path}:{n}: not a JSON object: {raw[:80]!r}") from None
        step = entry.get("step") if isinstance(entry, dict) else None
        if not isinstance(step, int) or isinstance(step, bool) or step < 0:
            raise BerthClientError(
                f"{path}:{n}: step: expected an integer >= 0, found {raw[:80]!r}"
            )
        for key in ("metric", "time"):
            v = entry.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise BerthClientError(f"{path}:{n}: {key}: expected a number, found {v!r}")
        out.append(entry)
    return out


# --------------------------------------------------------------------------- checkpoint signal


def parse_signal(name: str) -> int:
    """The signal number of a BERTH_CHECKPOINT_SIGNAL value.

    Accepts the names in :data:`CHECKPOINT_SIGNALS`, with or without ``SIG``, in any case
    (``SIGUSR1``, ``usr1``); refuses every other name (SIGSTOP among them).
    """
    key = name.strip().upper()
    if not key.startswith("SIG"):
        key = "SIG" + key
    if key not in CHECKPOINT_SIGNALS:
        raise BerthClientError(
            f"BERTH_CHECKPOINT_SIGNAL: unknown signal {name!r} "
            f"(expected one of {', '.join(CHECKPOINT_SIGNALS)})"
        )
    return int(getattr(signal, key))


def checkpoint_signal(env: Optional[Mapping[str, str]] = None) -> int:
    """The signal berthd sends to ask for a checkpoint (BERTH_CHECKPOINT_SIGNAL, else SIGTERM)."""
    raw = (os.environ if env is None else env).get("BERTH_CHECKPOINT_SIGNAL", "")
    return int(signal.SIGTERM) if raw == "" else parse_signal(raw)


_requested = False
_installed: Optional[int] = None
_callbacks: List[Callable[[int], None]] = []


def _handler(signum: int, frame) -> None:  # noqa: ARG001 (signal handler signature)
    global _requested
    _requested = True
    for callback in list(_callbacks):
        callback(signum)


def install_checkpoint_handler(sig: Optional[int] = None) -> int:
    """Catches the checkpoint signal (``sig``, else :func:`checkpoint_signal`); returns it.

    Call it early in the main thread (Python only runs signal handlers there): until it
    runs, the signal keeps its default action, which for SIGTERM kills the process without
    a checkpoint. Calling it again is harmless. It also works outside berth, where
    ``kill PID`` (SIGTERM) then asks the script to checkpoint and stop. When berthd names
    SIGKILL (preempt without warning) nothing is installed and no request ever comes.
    """
    global _installed
    sig = checkpoint_signal() if sig is None else int(sig)
    if _installed != sig and sig != signal.SIGKILL:
        signal.signal(sig, _handler)
    _installed = sig
    return sig


def checkpoint_requested() -> bool:
    """True once the checkpoint signal arrived: save, report, and exit 0 at this boundary.

    Installs the handler on the first call if :func:`install_checkpoint_handler` was not
    called (call that earlier to be safe from a signal during start-up).
    """
    if _installed is None:
        install_checkpoint_handler()
    return _requested


def clear_checkpoint_request() -> None:
    """Forgets a request, for a job that checkpoints and then keeps going."""
    global _requested
    _requested = False


def on_checkpoint(callback: Callable[[int], None]) -> Callable[[int], None]:
    """Registers ``callback(signum)`` to run when the checkpoint signal arrives.

    The callback runs inside the Python signal handler, in the main thread, between two
    bytecodes of whatever was running — keep it short (set your own flag, stop a data
    loader); do the checkpoint itself at an iteration boundary. Installs the handler. Usable
    as a decorator; returns ``callback``.
    """
    _callbacks.append(callback)
    install_checkpoint_handler()
    return callback
