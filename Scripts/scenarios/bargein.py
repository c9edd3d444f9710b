#!/usr/bin/env python3
"""Barge-in on the scenario matrix (issue 14 part 6): decision latency over the scenes where the user talks over
the playback, and false barge-ins over echo-only playback, from `afe process --report`'s `barge_ins`.

  .venv/bin/python Scripts/scenarios/bargein.py --half tune [--afe .build/release/afe] [--args "--barge-in min-ms=200"]
      [--out out/bargein] [--part interrupts|echo|all]

Interrupts: every scene with near-end speech and a far end (doubletalk, rate). Each labelled near-end onset that
falls while the far end plays (an echo interval from its start to 300 ms after its end) is one barge-in to make;
its latency is the first decision from 200 ms before the onset to 2 s after it (and no later than 500 ms after
the utterance's end), minus the onset, plus one 10 ms
device buffer (the playback stops at the next buffer after the decision); none in that window is a miss (counted,
and infinite in the percentiles). A decision outside every near-end utterance (200 ms before its start to 500 ms
after its end) is a false barge-in.

Echo only: the far-end-only scenes (echo, echo_hard, drift, path_change: 10 minutes a half), each played
`--loops` (3) times in a row at 16 kHz through one front end — one device in one room playing answer after
answer, the first seconds of playback and of the canceller included — 30 minutes of the half's rooms. Every
decision there is a false barge-in. Writes OUT/HALF/bargein.json and prints the summary."""
import argparse
import json
import os
import shlex
import subprocess
import sys

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import synth  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
ECHO_KINDS = ("echo", "echo_hard", "drift", "path_change")
BUFFER_S = 0.010
ONSET_PLAYING_TAIL_S = 0.3
WINDOW_BEFORE_S, WINDOW_AFTER_S, UTTERANCE_TAIL_S = 0.2, 2.0, 0.5
RATE = 16000


def run_afe(afe, mic, reference, args, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    report = os.path.join(out_dir, "report.json")
    cmd = [afe, "process", "--mic", mic, "--output", os.path.join(out_dir, "out.wav"), "--report", report]
    if reference:
        cmd += ["--reference", reference]
    p = subprocess.run(cmd + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"afe failed: {' '.join(cmd + args)}\n{p.stderr.strip()}")
    with open(report) as f:
        r = json.load(f)
    return [b["ms"] / 1000 for b in r["barge_ins"]], r["mic"]["duration_s"]


def scenes(half_dir):
    for sid in sorted(os.listdir(half_dir)):
        path = os.path.join(half_dir, sid, "truth.json")
        if os.path.exists(path):
            with open(path) as f:
                yield sid, os.path.join(half_dir, sid), json.load(f)


def score_interrupts(truth, decisions):
    near, echo = truth["near_speech"], truth["echo_active"]
    latencies, onsets = [], []
    for start, end in near:
        if not any(a <= start <= b + ONSET_PLAYING_TAIL_S for a, b in echo):
            continue
        onsets.append(start)
        hits = [d for d in decisions if start - WINDOW_BEFORE_S <= d <= min(start + WINDOW_AFTER_S, end + UTTERANCE_TAIL_S)]
        latencies.append(min(hits) - start + BUFFER_S if hits else float("inf"))
    false = [d for d in decisions if not any(a - WINDOW_BEFORE_S <= d <= b + UTTERANCE_TAIL_S for a, b in near)]
    return onsets, latencies, false


def load16(path):
    x, rate = sf.read(path, dtype="float64", always_2d=True)
    return np.clip(np.round(synth.resample(x[:, 0], rate, RATE) * 32768), -32768, 32767).astype(np.int16)


def looped(scene_dir, loops, out_dir):
    """The scene's mic and reference (channel 1, 16 kHz) `loops` times in a row: one device in one room playing
    answer after answer."""
    os.makedirs(out_dir, exist_ok=True)
    mic, ref = load16(os.path.join(scene_dir, "mic.wav")), load16(os.path.join(scene_dir, "reference.wav"))
    n = min(len(mic), len(ref))
    paths = os.path.join(out_dir, "mic.wav"), os.path.join(out_dir, "reference.wav")
    sf.write(paths[0], np.tile(mic[:n], loops), RATE, subtype="PCM_16")
    sf.write(paths[1], np.tile(ref[:n], loops), RATE, subtype="PCM_16")
    return paths


def percentile(values, q):
    """The nearest-rank percentile (a miss, infinite, ranks last and makes a percentile it reaches infinite)."""
    if not values:
        return None
    ranked = sorted(values)
    return float(ranked[max(0, int(np.ceil(q / 100 * len(ranked))) - 1)])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", required=True, choices=["tune", "test"])
    ap.add_argument("--scenarios", default=os.path.join(ROOT, "out", "scenarios"))
    ap.add_argument("--afe", default=os.path.join(ROOT, ".build", "release", "afe"))
    ap.add_argument("--args", default="", help="extra afe process options, e.g. \"--barge-in min-ms=200\"")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "bargein"))
    ap.add_argument("--part", default="all", choices=["interrupts", "echo", "all"])
    ap.add_argument("--loops", type=int, default=3, help="times each echo-only scene plays in a row (3: 30 min a half)")
    a = ap.parse_args()
    args = shlex.split(a.args)
    half_dir, out = os.path.join(a.scenarios, a.half), os.path.join(a.out, a.half)
    all_scenes = list(scenes(half_dir))
    result = {"half": a.half, "args": a.args, "interrupts": {}, "echo_only": {}}

    if a.part in ("interrupts", "all"):
        lat, n_false, minutes = [], 0, 0.0
        for sid, d, truth in all_scenes:
            if not truth["near_speech"] or not truth["echo_active"]:
                continue
            ref = os.path.join(d, "reference.wav")
            decisions, seconds = run_afe(a.afe, os.path.join(d, "mic.wav"), ref, args, os.path.join(out, sid))
            onsets, latencies, false = score_interrupts(truth, decisions)
            lat += latencies
            n_false += len(false)
            minutes += seconds / 60
            result["interrupts"][sid] = {"onsets_s": onsets, "latency_ms": [round(x * 1000) if np.isfinite(x) else None
                                                                            for x in latencies],
                                         "false_s": false, "decisions_s": decisions}
            print(f"{sid:12s} latency ms {[round(x * 1000) if np.isfinite(x) else 'miss' for x in latencies]}"
                  f"{'  false at ' + str(false) if false else ''}", flush=True)
        finite = [x for x in lat if np.isfinite(x)]
        result["interrupt_summary"] = {
            "onsets": len(lat), "missed": len(lat) - len(finite),
            "median_ms": percentile([x * 1000 for x in lat], 50), "p95_ms": percentile([x * 1000 for x in lat], 95),
            "false_barge_ins": n_false, "minutes": minutes}

    if a.part in ("echo", "all"):
        echo_scenes = [s for s in all_scenes if s[2]["spec"]["kind"] in ECHO_KINDS]
        runs = [(sid,) + looped(d, a.loops, os.path.join(out, "looped", sid)) for sid, d, _ in echo_scenes]
        n_false, seconds_total = 0, 0.0
        for name, mic, ref in runs:
            decisions, seconds = run_afe(a.afe, mic, ref, args, os.path.join(out, "echo", name))
            n_false += len(decisions)
            seconds_total += seconds
            result["echo_only"][name] = {"seconds": seconds, "false_s": decisions}
            print(f"{name:20s} {seconds:7.1f} s  false barge-ins {len(decisions)} {decisions if decisions else ''}",
                  flush=True)
        result["echo_summary"] = {"minutes": seconds_total / 60, "false_barge_ins": n_false,
                                  "per_30_min": n_false * 30 / (seconds_total / 60) if seconds_total else None}

    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bargein.json"), "w") as f:
        json.dump(result, f, indent=1)
    for key in ("interrupt_summary", "echo_summary"):
        if key in result:
            print(key, json.dumps({k: (round(v, 1) if isinstance(v, float) else v) for k, v in result[key].items()}))


if __name__ == "__main__":
    main()
