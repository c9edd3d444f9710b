"""One line per system over the whole tuning material a `tune-sweep.sh` run scored (VAD-only): what the
defaults have been chosen on since 2026-12-05 (double-talk and rate onsets within 150 ms and their F1, echo-only
false-active mean and worst, false speech starts per minute of far-end-only playback, the slowest reconvergence,
VAD F1 in pink 0 dB and babble 10 dB, mean far-end-only ERLE per kind).

  .venv/bin/python Scripts/scenarios/tune_summary.py OUT

OUT: the folder `tune-sweep.sh` wrote (its parts' `*/tune/results.json`, or any `results.json` below it).
"""
import glob
import json
import os
import sys

import numpy as np


def summarize(scenes):
    """scenes: evaluate.py result records (id, kind, systems: {name: metrics}). Returns {system: figures}."""
    rows = {}
    for s in scenes:
        for name, d in s["systems"].items():
            rows.setdefault(name, []).append((s["id"], s["kind"], d))
    out = {}
    for name, items in rows.items():
        onsets, f1, fa, pink, babble = [], [], [], [], []
        erle = {}
        starts = minutes = 0.0
        worst, reconvergence = (0.0, None), 0.0
        for sid, kind, d in items:
            if kind in ("doubletalk", "rate"):
                onsets += [o is not None and abs(o) <= 0.15 for o in d.get("onset_offsets_s") or []]
                if d.get("vad_f1") is not None:
                    f1.append(d["vad_f1"])
            if kind == "vad_noise" and d.get("vad_f1") is not None:
                (pink if "pink" in sid else babble).append(d["vad_f1"])
            if d.get("vad_false_active") is not None:
                fa.append(d["vad_false_active"])
                worst = max(worst, (d["vad_false_active"], sid), key=lambda w: w[0])
                starts += d.get("false_starts") or 0
                minutes += d.get("far_only_min") or 0
            if d.get("erle_db") is not None and kind in ("echo", "echo_hard", "drift", "path_change"):
                erle.setdefault(kind, []).append(d["erle_db"])
            if d.get("reconvergence_s") is not None:
                reconvergence = max(reconvergence, d["reconvergence_s"])
        mean = lambda x: float(np.mean(x)) if len(x) else None
        out[name] = {"onsets_within_150ms": mean(onsets), "onsets": len(onsets), "dt_f1": mean(f1),
                     "false_active_mean": mean(fa), "false_active_worst": worst[0], "worst_scene": worst[1],
                     "false_starts": int(starts), "far_only_min": minutes,
                     "false_starts_per_min": starts / minutes if minutes else None,
                     "reconvergence_max_s": reconvergence, "pink0_f1": mean(pink), "babble10_f1": mean(babble),
                     "erle_db": {k: mean(v) for k, v in sorted(erle.items())}}
    return out


def line(name, f):
    show = lambda v, fmt: "-" if v is None else format(v, fmt)
    erle = " / ".join(f"{k} {show(v, '.1f')}" for k, v in f["erle_db"].items()) or "-"
    return (f"{name}: DT+rate onsets {show(f['onsets_within_150ms'], '.3f')} of {f['onsets']}, F1 {show(f['dt_f1'], '.3f')}"
            f" | echo-only false-active {show(f['false_active_mean'], '.2%')}, worst {show(f['false_active_worst'], '.1%')}"
            f" ({f['worst_scene']}) | false starts {f['false_starts']} in {f['far_only_min']:.1f} min"
            f" | reconvergence max {f['reconvergence_max_s']:.2f} s | pink 0 dB F1 {show(f['pink0_f1'], '.3f')},"
            f" babble 10 dB {show(f['babble10_f1'], '.3f')} | ERLE {erle}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    scenes = []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "**", "results.json"), recursive=True)):
        scenes += json.load(open(path))
    if not scenes:
        sys.exit(f"tune_summary: no results.json under {sys.argv[1]}")
    for name, figures in summarize(scenes).items():
        print(line(name, figures))


if __name__ == "__main__":
    main()
