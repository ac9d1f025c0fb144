"""Writes a berth native CSV (from `berth gen`) in a peer's own trace format, so the peer's
simulator and berth read the same jobs: experiments/peers.sh uses it.
Usage: python3 convert.py tiresias|gavel IN.csv OUT
  tiresias: job_id,num_gpu,submit_time,iterations,model_name,duration,interval (ids from 0;
            seconds are whole, as berth gen writes them; the model only names tensors
            for Tiresias' network placements, which the count scheme never reads)
  gavel:    Gavel's tab-separated trace (job type, command, dir, steps flag, data dir, total
            steps, scale factor = GPUs, priority 1, no SLO, arrival) for --profile gavel
"""
import csv
import sys

kind, src, dst = sys.argv[1:4]
rows = list(csv.DictReader(open(src)))
with open(dst, 'w', newline='') as out:
    if kind == 'tiresias':
        w = csv.writer(out, lineterminator='\n')
        w.writerow(['job_id', 'num_gpu', 'submit_time', 'iterations', 'model_name', 'duration',
                    'interval'])
        for i, r in enumerate(rows):
            d = int(r['duration_s'])
            w.writerow([i, int(r['num_gpus']), int(r['arrival_s']), d, 'resnet50', d, 0])
    elif kind == 'gavel':
        for r in rows:
            out.write('\t'.join([r['job_type'], 'cmd', 'dir', '--num_steps', '0',
                                 r['total_steps'], r['num_gpus'], '1', '-1',
                                 str(float(r['arrival_s']))]) + '\n')
    else:
        sys.exit(f'convert.py: unknown format {kind!r} (tiresias or gavel)')
