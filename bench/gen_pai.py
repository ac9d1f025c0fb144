#!/usr/bin/env python3
"""Writes a realistic synthetic Alibaba PAI 2020 job table and task table (header-less, like
the real ones) with N task rows into DIR, for the loader benchmark (bench/run.sh).
Usage: gen_pai.py DIR [N=1200000] [SEED=1]"""
import os, random, sys

out = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1200000
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
os.makedirs(out, exist_ok=True)
hx = lambda n: '%0*x' % (n, rng.getrandbits(4 * n))
users = [hx(12) for _ in range(1300)]
types = ['MISC'] * 30 + ['P100'] * 25 + ['T4'] * 20 + ['V100'] * 15 + ['V100M32'] * 10
statuses = ['Terminated'] * 72 + ['Failed'] * 20 + ['Running'] * 6 + ['Waiting'] * 2
gpus = ['100.0'] * 40 + ['50.0'] * 25 + ['25.0'] * 10 + ['200.0'] * 5 + ['800.0'] * 3 + \
       ['10.0'] * 3 + ['400.0'] * 2 + [''] * 12
roles = [['tensorflow']] * 70 + [['worker', 'ps']] * 12 + [['PyTorchWorker']] * 8 + \
        [['worker', 'ps', 'evaluator']] * 5 + [['JupyterTask']] * 5
jobs, tasks = [], []
nt = 0
while nt < N:
    name = hx(24)
    submit = rng.randint(0, 5200000)
    st = rng.choice(statuses)
    dur = int(rng.lognormvariate(6.2, 2.0)) if rng.random() < 0.98 else 0
    wait = int(rng.expovariate(1 / 30.0))
    end = '' if st in ('Running', 'Waiting') or rng.random() < 0.003 else '%d.0' % (submit + wait + dur)
    jobs.append('%s,%s,%s,%s,%d.0,%s' % (name, hx(60), users[min(int(rng.paretovariate(1.1)) - 1, 1299)], st, submit, end))
    gt = rng.choice(types)
    for role in rng.choice(roles):
        inst = 1 if rng.random() < 0.85 else rng.choice([2, 4, 8, 16, 100])
        g = '' if role == 'ps' else rng.choice(gpus)
        tstart = '' if st == 'Waiting' else '%d.0' % (submit + wait)
        tasks.append('%s,%s,%d.0,%s,%s,%s,%s,%s,%s,%s' % (
            name, role, inst, st, tstart, end, rng.choice(['600.0', '400.0', '1200.0', '50.0']),
            rng.choice(['29.296875', '2.0', '58.59375', '0.48828125']), g,
            gt if g and st != 'Waiting' else ''))
        nt += 1
rng.shuffle(tasks)  # the task table is not in job order
rng.shuffle(jobs)
with open(os.path.join(out, 'pai_task_table.csv'), 'w') as f:
    f.write('\n'.join(tasks[:N]) + '\n')
with open(os.path.join(out, 'pai_job_table.csv'), 'w') as f:
    f.write('\n'.join(jobs) + '\n')
print(len(jobs), 'jobs', min(N, len(tasks)), 'task rows')
