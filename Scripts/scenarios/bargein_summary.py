#!/usr/bin/env python3
"""One line over a bargein-tune.sh run: onsets, missed, the median latency over all onsets (a miss counts as never)
and over the decided ones, the 95th percentile, and false barge-ins per part with their minutes, then every scene
with a false barge-in.

  .venv/bin/python Scripts/scenarios/bargein_summary.py OUT [LABEL]
"""
import json
import math
import os
import re
import sys

PARTS = ("tune", "dt", "vdt", "echo", "echo2", "voices", "path")


def summary(out):
    latencies, missed, false, minutes, scenes = [], 0, {}, {}, []
    for part in PARTS:
        path = os.path.join(out, part + ".log")
        if not os.path.exists(path):
            continue
        for line in open(path):
            m = re.match(r"(\S+)\s+latency ms (\[.*\])", line)
            if m:
                for v in json.loads(m.group(2).replace("'", '"')):
                    if v == "miss":
                        missed += 1
                    else:
                        latencies.append(float(v))
            m = re.match(r"(\S+)\s+[\d.]+ s\s+false barge-ins ([1-9]\d*) (\[.*\])", line)
            if m:
                scenes.append(f"{part}/{m.group(1)} {m.group(2)} {m.group(3)}")
            if line.startswith("echo_summary"):
                d = json.loads(line.split(" ", 1)[1])
                false[part], minutes[part] = d["false_barge_ins"], d["minutes"]
    return latencies, missed, false, minutes, scenes


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    latencies, missed, false, minutes, scenes = summary(sys.argv[1])
    every = sorted(latencies) + [math.inf] * missed
    pick = lambda xs, q: xs[int(q * (len(xs) - 1))] if xs else None
    decided = sorted(latencies)
    parts = " ".join(f"{k}={v}/{minutes[k]:.0f}m" for k, v in false.items())
    label = sys.argv[2] if len(sys.argv) > 2 else ""
    print(f"[{label}] onsets {len(every)} missed {missed} median {pick(every, 0.5)} ms (decided {pick(decided, 0.5)}) "
          f"p95 {pick(every, 0.95)} | false {parts} total {sum(false.values())}/{sum(minutes.values()):.0f}m")
    for s in scenes:
        print("   " + s)


if __name__ == "__main__":
    main()
