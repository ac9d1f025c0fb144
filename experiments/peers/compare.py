"""Compares one peer run with berth's on the same jobs, job by job; prints one Markdown row.
Usage: python3 compare.py tiresias|gavel PEER_OUTPUT BERTH_JOBS_CSV LABEL
  tiresias: PEER_OUTPUT is Tiresias' job.csv (job_id, JCT); ids match berth's as given
  gavel:    PEER_OUTPUT is the driver's stdout ("Job N: JCT" lines); berth numbers a Gavel
            trace's jobs from 1, Gavel from 0
"""
import csv
import re
import statistics
import sys

kind, peer_out, berth_csv, label = sys.argv[1:5]
if kind == 'tiresias':
    peer = {int(r['job_id']): float(r['JCT']) for r in csv.DictReader(open(peer_out))}
    shift = 0
else:
    peer = {}
    for line in open(peer_out):
        m = re.match(r'Job (\d+): ([\d.]+)$', line.strip())
        if m:
            peer[int(m.group(1))] = float(m.group(2))
    shift = 1
berth = {int(r['job_id']): float(r['jct_s']) for r in csv.DictReader(open(berth_csv))}
if not peer or len(peer) != len(berth):
    sys.exit(f'compare.py: {peer_out}: {len(peer)} jobs, berth has {len(berth)}')
same = sum(1 for i, j in peer.items() if abs(j - berth[i + shift]) < 1.0)
near = sum(1 for i, j in peer.items() if abs(j - berth[i + shift]) <= 0.01 * j)
pa, ba = statistics.mean(peer.values()), statistics.mean(berth.values())
pm, bm = statistics.median(peer.values()), statistics.median(berth.values())
print(f'| {label} | {len(peer)} | {pa:.1f} | {ba:.1f} | {100 * (ba - pa) / pa:+.2f} % | '
      f'{pm:.1f} | {bm:.1f} | {same} | {near} |')
