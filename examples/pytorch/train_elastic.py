#!/usr/bin/env python3
"""An elastic data-parallel version of train.py: it trains on as many workers as berthd
gives it GPUs, and resumes at a different width after berthd resizes it.

berthd resizes an elastic job (``min_gpus``..``max_gpus``) the way it preempts one: the
checkpoint signal, a checkpoint, exit 0, then a start on the new GPUs with
``BERTH_RESUME=1`` and the new ``WORLD_SIZE``. This script

* starts ``WORLD_SIZE`` worker processes (``torch.distributed``: NCCL on GPUs, Gloo on the
  CPU), rendezvousing at ``MASTER_ADDR:MASTER_PORT``, which berthd picks per attempt;
* splits each step's *global* batch (``--batch``, fixed) across the workers (worker r takes
  rows r, r+W, r+2W, ...), sums the gradients over them (all-reduce) and so takes the very
  step one process would take on the whole batch. The dropout masks are drawn for the whole
  batch from (seed, step) and each worker takes its rows' masks, so a run's loss curve does
  not depend on how many workers computed it, up to floating-point summation order;
* stops after the same step on every worker when the checkpoint signal arrives (the
  request travels in the step's all-reduce with the gradients), and rank 0 writes the
  checkpoint; the checkpoint holds no
  per-worker state, so it resumes at any width.

Learning rate: because the global batch stays the same at every width, the learning rate
and its schedule need no change when the job grows or shrinks. A script that instead keeps
the *per-worker* batch fixed grows the global batch with the width and must scale the
learning rate with it (the linear scaling rule of Goyal et al., 2017, with a warm-up) and
keep its schedule in examples seen, not steps; that changes the loss curve on every resize.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn import functional as F

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import train  # noqa: E402  (the data, the batches and the atomic checkpoint write)

berth_client = train.berth_client
DROPOUT = 0.1


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=2000, help="optimizer steps in all (2000)")
    p.add_argument("--ckpt", default="ckpt.pt", help="checkpoint file (ckpt.pt)")
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate of Adam (3e-3)")
    p.add_argument("--batch", type=int, default=64,
                   help="examples per step over all workers (64; the same at every width)")
    p.add_argument("--hidden", type=int, default=128, help="hidden layer width (128)")
    p.add_argument("--seed", type=int, default=0, help="seed of the data, the model, dropout (0)")
    p.add_argument("--workers", type=int, default=0,
                   help="worker processes (default: WORLD_SIZE from berthd, else 1)")
    p.add_argument("--report-every", type=int, default=10, help="report progress every N steps")
    p.add_argument("--log-every", type=int, default=200, help="print the loss every N steps")
    p.add_argument("--step-time", type=float, default=0.0,
                   help="sleep so that a step takes at least this many seconds (demos, tests)")
    p.add_argument("--resume", action="store_true",
                   help="continue from --ckpt even without BERTH_RESUME=1")
    args = p.parse_args(argv)
    for name in ("steps", "batch", "hidden", "report_every", "log_every"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.workers < 0 or args.step_time < 0 or not args.lr > 0:
        p.error("--workers and --step-time must be >= 0, --lr > 0")
    if args.workers == 0:
        args.workers = berth_client.Job.from_env().world_size
    return args


class MLP(nn.Module):
    """train.py's model, with its dropout mask passed in (drawn for the whole batch)."""

    def __init__(self, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(train.DIM, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, train.CLASSES)

    def forward(self, x, mask=None):
        h = F.relu(self.fc1(x))
        if mask is not None:
            h = h * mask
        return self.fc3(F.relu(self.fc2(h)))


def dropout_mask(seed: int, step: int, rows: int, width: int) -> torch.Tensor:
    """Inverted dropout's mask for a whole step's batch: a function of (seed, step) only."""
    g = torch.Generator().manual_seed(seed * 1_000_003 + step + 7_919)
    return (torch.rand(rows, width, generator=g) >= DROPOUT).float() / (1.0 - DROPOUT)


def config_of(args) -> dict:
    return {"seed": args.seed, "hidden": args.hidden, "steps": args.steps, "batch": args.batch,
            "lr": args.lr}


def load(path, model, opt, sched, args):
    state = torch.load(path, map_location="cpu", weights_only=False)
    if state.get("config") != config_of(args):
        sys.exit(f"train_elastic.py: {path} was written with {state.get('config')}, "
                 f"not {config_of(args)}")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optimizer"])
    sched.load_state_dict(state["scheduler"])
    return int(state["step"]), list(state.get("widths", []))


def save(path, step, model, opt, sched, args, widths):
    train.atomic_save({"step": step, "model": model.state_dict(),
                       "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                       "config": config_of(args), "widths": widths}, path)


def worker(rank: int, args, world: int) -> None:
    """One data-parallel worker; rank 0 also reports, logs and checkpoints."""
    berth_client.install_checkpoint_handler()
    torch.set_num_threads(1)
    cuda = torch.cuda.is_available() and torch.cuda.device_count() >= world
    device = torch.device(f"cuda:{rank}" if cuda else "cpu")
    if world > 1:
        addr = os.environ.get("MASTER_ADDR") or "127.0.0.1"
        port = os.environ.get("MASTER_PORT") or "29500"
        # torch >= 2.4 asks its TCPStore for libuv by default, which Debian 13's torch is
        # built without ("use_libuv was requested but PyTorch was build without libuv
        # support"); older torch ignores the variable
        os.environ.setdefault("USE_LIBUV", "0")
        dist.init_process_group("nccl" if cuda else "gloo", init_method=f"tcp://{addr}:{port}",
                                rank=rank, world_size=world)
    torch.manual_seed(args.seed)  # the same initial weights on every worker
    x, y, x_eval, y_eval = (t.to(device) for t in train.make_data(args.seed))
    model = MLP(args.hidden).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.steps)

    step, widths = 0, []
    if berth_client.resuming() or args.resume:
        if os.path.exists(args.ckpt):
            step, widths = load(args.ckpt, model, opt, sched, args)
        elif rank == 0:
            print(f"train_elastic.py: asked to resume but {args.ckpt} does not exist; "
                  "starting from step 0", file=sys.stderr, flush=True)
    widths.append([step, world])
    if rank == 0:
        print(f"train_elastic.py: start world_size={world} step={step} "
              f"(widths so far: {widths})", flush=True)

    mine = torch.arange(rank, args.batch, world)  # this worker's rows of every batch
    params = list(model.parameters())
    loss_value = None
    model.train()
    while step < args.steps:
        began = time.monotonic()
        idx = train.batch_of(step, args.seed, args.batch)[mine].to(device)
        mask = dropout_mask(args.seed, step, args.batch, args.hidden)[mine].to(device)
        loss_sum = F.cross_entropy(model(x[idx], mask), y[idx], reduction="sum")
        opt.zero_grad(set_to_none=False)
        (loss_sum / args.batch).backward()
        # one all-reduce a step: the gradients, the loss, and whether any worker was asked
        # to checkpoint (so every worker stops after the same step)
        flat = torch.cat([p.grad.reshape(-1) for p in params] +
                         [loss_sum.detach().reshape(1),
                          torch.tensor([1.0 if berth_client.checkpoint_requested() else 0.0],
                                       device=device)])
        if world > 1:
            dist.all_reduce(flat)
        at = 0
        for p in params:
            p.grad.copy_(flat[at:at + p.numel()].view_as(p))
            at += p.numel()
        opt.step()
        sched.step()
        step += 1
        loss_value = flat[at].item() / args.batch
        stop = flat[at + 1].item() > 0
        if rank == 0:
            if step % args.report_every == 0 or step == args.steps:
                berth_client.report(step, loss_value)
            if step % args.log_every == 0:
                print(f"train_elastic.py: step {step}/{args.steps} loss {loss_value:.6f}",
                      flush=True)
        if stop and step < args.steps:
            if rank == 0:
                save(args.ckpt, step, model, opt, sched, args, widths)
                berth_client.report(step, loss_value)
                berth_client.flush(5.0)
                print(f"train_elastic.py: checkpoint at step {step} on request "
                      f"(world_size={world}); exiting", flush=True)
            break
        if args.step_time:
            time.sleep(max(0.0, args.step_time - (time.monotonic() - began)))

    if step >= args.steps and rank == 0:
        save(args.ckpt, step, model, opt, sched, args, widths)
        model.eval()
        with torch.no_grad():
            logits = model(x_eval)
            eval_loss = F.cross_entropy(logits, y_eval).item()
            accuracy = (logits.argmax(dim=1) == y_eval).float().mean().item()
        berth_client.flush(5.0)
        last = "none" if loss_value is None else f"{loss_value:.9g}"
        print(f"train_elastic.py: done: step {step} loss {last} eval_loss {eval_loss:.9g} "
              f"eval_accuracy {accuracy:.4f} widths {widths}", flush=True)
    if world > 1:
        dist.destroy_process_group()


def main(argv=None) -> int:
    args = parse_args(argv)
    job = berth_client.Job.from_env()
    if not job.is_main:
        print(f"train_elastic.py: rank {job.rank}: this script starts its own workers; "
              "nothing to do on this rank")
        return 0
    if args.workers == 1:
        worker(0, args, 1)
        return 0
    # The checkpoint signal reaches the whole process group; the workers act on it, this
    # parent only waits for them (a request here is noted and otherwise ignored).
    berth_client.install_checkpoint_handler()
    try:
        mp.spawn(worker, args=(args, args.workers), nprocs=args.workers, join=True)
    except mp.ProcessRaisedException as e:
        print(f"train_elastic.py: a worker failed: {e}", file=sys.stderr, flush=True)
        return 1
    except mp.ProcessExitedException as e:
        print(f"train_elastic.py: a worker died: {e}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
