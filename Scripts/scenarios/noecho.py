#!/usr/bin/env python3
"""A reference without an echo (headphones, a muted or distant loudspeaker): is the user heard while it plays?

Every near-end-only scene of a half (`near_*`, `vad_*`: speech in noise, no far end) is run through `afe process`
three ways: without a reference; with each of the half's first six echo scenes' references pushed (the mic holds
no echo of it) and the echo gate's default (`EchoGate.opensWithoutEcho`: it stands aside once the delay estimator
finds no echo); and the same with the gate waiting for convergence (`--echo-gate no-echo-open=0`, the behaviour
before 2026-12-06). Scored against the scene's labels: frame recall and false-active of the VAD labels, the
utterances a speech segment overlaps (all, and those that overlap the reference's playback and start 3.5 s or more
in: the estimator's verdict needs about 3 s of reference), and the barge-in decisions (the user talks over the
playback: each is a right one).

  .venv/bin/python Scripts/scenarios/noecho.py --half tune [--afe .build/release/afe] [--scenarios out/scenarios]
      [--args "--echo-gate ..."]"""
import argparse
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LATE_S = 3.5


def run(afe, mic, reference, args, work):
    labels, report = os.path.join(work, "vad.csv"), os.path.join(work, "report.json")
    cmd = [afe, "process", "--mic", os.path.join(mic, "mic.wav"), "--output", os.devnull, "--vad-labels", labels,
           "--report", report] + args
    if reference:
        cmd += ["--reference", os.path.join(reference, "reference.wav")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"noecho: afe failed: {' '.join(cmd)}\n{p.stderr.strip()}")
    vad = np.loadtxt(labels, delimiter=",", dtype=int, ndmin=2)[:, 1].astype(bool)
    with open(report) as f:
        result = json.load(f)
    end = len(vad) / 100  # a segment still open at the end (none after finish, but the report allows it)
    segments = [(s["start_ms"] / 1000, end if s["end_ms"] is None else s["end_ms"] / 1000)
                for s in result["vad_segments"]]
    return vad, segments, len(result["barge_ins"])


def score(vad, segments, utterances, playing):
    """`playing`: the reference's active spans (its scene's `echo_active`, in the mic's time), or []."""
    near = np.zeros(len(vad), bool)
    for a, b in utterances:
        near[int(a * 100):int(b * 100)] = True
    def heard(spans):
        return sum(any(s < b and e > a for s, e in segments) for a, b in spans)
    late = [(a, b) for a, b in utterances if a >= LATE_S and any(p < b and q > a for p, q in playing)]
    return [vad[near].mean(), vad[~near].mean(), heard(utterances), len(utterances), heard(late), len(late)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", required=True, choices=["tune", "test"])
    ap.add_argument("--afe", default=os.path.join(ROOT, ".build", "release", "afe"))
    ap.add_argument("--scenarios", default=os.path.join(ROOT, "out", "scenarios"))
    ap.add_argument("--args", default="", help="extra afe process options for every run")
    a = ap.parse_args()
    half = os.path.join(a.scenarios, a.half)
    mics = sorted(glob.glob(os.path.join(half, "near_*")) + glob.glob(os.path.join(half, "vad_*")))
    references = [d for d in sorted(glob.glob(os.path.join(half, "echo_*")))
                  if os.path.exists(os.path.join(d, "reference.wav"))][:6]
    if not mics or not references:
        sys.exit(f"noecho: no near-end-only or echo scenes in {half} (generate.py --half {a.half})")
    extra = shlex.split(a.args)
    ways = [("no reference", None, []), ("reference, gate stands aside", True, []),
            ("reference, gate waits", True, ["--echo-gate", "no-echo-open=0"])]
    with tempfile.TemporaryDirectory() as work:
        for name, with_reference, args in ways:
            rows = []
            for mic in mics:
                with open(os.path.join(mic, "truth.json")) as f:
                    utterances = json.load(f)["near_speech"]
                for reference in (references if with_reference else [None]):
                    vad, segments, barge_ins = run(a.afe, mic, reference, args + extra, work)
                    playing = []
                    if reference:
                        with open(os.path.join(reference, "truth.json")) as f:
                            playing = json.load(f)["echo_active"]
                    rows.append(score(vad, segments, utterances, playing) + [barge_ins])
            r = np.array(rows, dtype=float)
            print(f"{a.half} {name:30} runs {len(rows):3}  frame recall {r[:, 0].mean():.3f} (min {r[:, 0].min():.3f})  "
                  f"false-active {r[:, 1].mean():.3f}  utterances heard {int(r[:, 2].sum())}/{int(r[:, 3].sum())}, "
                  f"during playback from {LATE_S} s {int(r[:, 4].sum())}/{int(r[:, 5].sum())}  barge-ins {int(r[:, 6].sum())}")


if __name__ == "__main__":
    main()
