#!/usr/bin/env python3
"""A berth-aware PyTorch training script: a small MLP classifier on a synthetic dataset.

It shows the job side of berth's protocol (docs/job-protocol.md) end to end:

* progress: ``berth_client.report(step, loss)`` every ``--report-every`` steps;
* preemption: on berthd's checkpoint signal the loop stops at the next step boundary,
  writes a checkpoint (model, optimizer, LR schedule, step, RNG states) atomically and
  exits 0; it also checkpoints every ``--ckpt-every`` steps and at the end;
* restart: under ``BERTH_RESUME=1`` (or ``--resume``) it continues from the checkpoint.

The data are drawn from a fixed seed (no download) and each step's batch is a function of
(seed, step) alone, so a run preempted anywhere and resumed computes exactly the steps an
uninterrupted run computes. Outside berth it is an ordinary script.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time

try:
    import berth_client
except ImportError:  # run from a checkout: the client lives in clients/python/
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "clients", "python"))
    import berth_client

import torch
from torch import nn


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=2000, help="optimizer steps in all (2000)")
    p.add_argument("--ckpt", default="ckpt.pt", help="checkpoint file (ckpt.pt)")
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate of Adam (3e-3)")
    p.add_argument("--batch", type=int, default=64, help="examples per step (64)")
    p.add_argument("--hidden", type=int, default=128, help="hidden layer width (128)")
    p.add_argument("--seed", type=int, default=0, help="seed of the data, the model, dropout (0)")
    p.add_argument("--report-every", type=int, default=10, help="report progress every N steps")
    p.add_argument("--ckpt-every", type=int, default=0, help="also checkpoint every N steps")
    p.add_argument("--log-every", type=int, default=200, help="print the loss every N steps")
    p.add_argument("--step-time", type=float, default=0.0,
                   help="sleep so that a step takes at least this many seconds (demos, tests)")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (1: deterministic)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--resume", action="store_true",
                   help="continue from --ckpt even without BERTH_RESUME=1")
    args = p.parse_args(argv)
    for name in ("steps", "batch", "hidden", "report_every", "log_every", "threads"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.ckpt_every < 0 or args.step_time < 0 or not args.lr > 0:
        p.error("--ckpt-every and --step-time must be >= 0, --lr > 0")
    return args


DIM, CLASSES, TRAIN, EVAL = 32, 8, 8192, 2048


def make_data(seed: int):
    """A teacher network labels Gaussian inputs: a learnable but not trivial task."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(TRAIN + EVAL, DIM, generator=g)
    w1 = torch.randn(DIM, 64, generator=g) / math.sqrt(DIM)
    w2 = torch.randn(64, CLASSES, generator=g) / 8.0
    y = (torch.tanh(x @ w1) @ w2).argmax(dim=1)
    return x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]


def batch_of(step: int, seed: int, size: int) -> torch.Tensor:
    """The indices of step's batch: a function of (seed, step) only, so resuming needs no
    data-loader state."""
    g = torch.Generator().manual_seed(seed * 1_000_003 + step)
    return torch.randint(TRAIN, (size,), generator=g)


def make_model(hidden: int) -> nn.Module:
    return nn.Sequential(
        nn.Linear(DIM, hidden), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, CLASSES),
    )


def save_checkpoint(path, step, model, opt, sched, args):
    """Writes the checkpoint to PATH.tmp.PID, syncs it, then renames it over PATH: a reader
    (or a restart after SIGKILL) sees the old checkpoint or the new one, never half of one."""
    state = {
        "step": step,
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(),
        "rng_torch": torch.get_rng_state(),
        "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "rng_python": random.getstate(),
        "config": {"seed": args.seed, "hidden": args.hidden, "steps": args.steps},
    }
    atomic_save(state, path)


def atomic_save(state, path):
    """torch.save to PATH.tmp.PID, fsync, rename over PATH, fsync the folder."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename itself survives a crash
    finally:
        os.close(fd)


def load_checkpoint(path, model, opt, sched, args) -> int:
    state = torch.load(path, map_location="cpu", weights_only=False)
    config = {"seed": args.seed, "hidden": args.hidden, "steps": args.steps}
    if state["config"] != config:
        sys.exit(f"train.py: {path} was written with {state['config']}, not {config}")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optimizer"])
    sched.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["rng_torch"])
    if state["rng_cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["rng_cuda"])
    random.setstate(state["rng_python"])
    return int(state["step"])


def main(argv=None) -> int:
    args = parse_args(argv)
    job = berth_client.Job.from_env()
    if not job.is_main:
        print(f"train.py: rank {job.rank} of {job.world_size}: this example trains on one "
              "process; nothing to do on this rank")
        return 0
    berth_client.install_checkpoint_handler()  # before anything slow
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    device = torch.device(args.device)
    on = torch.cuda.get_device_name(device) if device.type == "cuda" else "the CPU"
    print(f"train.py: training on {device} ({on})", flush=True)

    x, y, x_eval, y_eval = (t.to(device) for t in make_data(args.seed))
    model = make_model(args.hidden).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.steps)
    loss_fn = nn.CrossEntropyLoss()

    step = 0
    if berth_client.resuming() or args.resume:
        if os.path.exists(args.ckpt):
            step = load_checkpoint(args.ckpt, model, opt, sched, args)
            print(f"train.py: resumed from step {step} ({args.ckpt})", flush=True)
        else:
            print(f"train.py: asked to resume but {args.ckpt} does not exist; "
                  "starting from step 0", file=sys.stderr, flush=True)

    loss_value = None
    model.train()
    while step < args.steps:
        if berth_client.checkpoint_requested():  # berthd wants the GPUs back: stop here
            save_checkpoint(args.ckpt, step, model, opt, sched, args)
            berth_client.report(step, loss_value)
            berth_client.flush(5.0)
            print(f"train.py: checkpoint at step {step} on request; exiting", flush=True)
            return 0
        began = time.monotonic()
        idx = batch_of(step, args.seed, args.batch).to(device)
        loss = loss_fn(model(x[idx]), y[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        loss_value = loss.item()
        if step % args.report_every == 0 or step == args.steps:
            berth_client.report(step, loss_value)
        if step % args.log_every == 0:
            print(f"train.py: step {step}/{args.steps} loss {loss_value:.6f}", flush=True)
        if args.ckpt_every and step % args.ckpt_every == 0 and step < args.steps:
            save_checkpoint(args.ckpt, step, model, opt, sched, args)
        if args.step_time:
            time.sleep(max(0.0, args.step_time - (time.monotonic() - began)))

    save_checkpoint(args.ckpt, step, model, opt, sched, args)
    model.eval()
    with torch.no_grad():
        logits = model(x_eval)
        eval_loss = loss_fn(logits, y_eval).item()
        accuracy = (logits.argmax(dim=1) == y_eval).float().mean().item()
    berth_client.flush(5.0)
    last = "none" if loss_value is None else f"{loss_value:.9g}"
    print(f"train.py: done: step {step} loss {last} eval_loss {eval_loss:.9g} "
          f"eval_accuracy {accuracy:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
