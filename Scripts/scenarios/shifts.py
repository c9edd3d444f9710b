#!/usr/bin/env python3
"""How much a scene's figures move when its input starts a few samples later: each scene's files (mic, reference
and the ground-truth components alike) shifted by 0, 1, ..., N-1 samples, each shift evaluated (`evaluate.py
--vad-only`), then per scene and metric the values over the shifts (min / median / max and how many pass the
part-3 row, where there is one). A shift of a few samples (under 0.2 ms at 44.1 / 48 kHz) changes nothing a
listener or the truth could tell; it moves the 10 ms frame boundaries, so the cancellers adapt on other blocks.
What a single run's figure is worth before two systems are compared on it.

  .venv/bin/python Scripts/scenarios/shifts.py --half tune --only path_moved,path_door [--shifts 8]
      [--afe .build/release/afe] [--system NAME="afe options"] [--scenarios out/scenarios] [--out out/shifts]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
METRICS = [("reconvergence_s", lambda v: v <= 0.5), ("delay_lock_s", lambda v: v <= 3.0), ("erle_db", None),
           ("false_starts", lambda v: v == 0), ("onsets_within_150ms", lambda v: v >= 1.0), ("vad_f1", None)]


def shifted_copy(scene_dir, out_dir, shift):
    """Copies a scene with every .wav delayed by `shift` samples (zeros in front, the same length)."""
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(scene_dir):
        path = os.path.join(scene_dir, name)
        if not os.path.isfile(path):
            continue
        if not name.endswith(".wav"):
            shutil.copy(path, out_dir)
            continue
        info = sf.info(path)
        x, rate = sf.read(path, dtype="int16", always_2d=True)
        y = np.concatenate([np.zeros((shift, x.shape[1]), np.int16), x])[: len(x)]
        sf.write(os.path.join(out_dir, name), y, rate, subtype=info.subtype)


def summarize(values, passes):
    present = [v for v in values if v is not None]
    if not present:
        return "none"
    text = " / ".join(f"{v:.3g}" for v in (min(present), statistics.median(present), max(present)))
    if passes:
        text += f", {sum(1 for v in present if passes(v))} of {len(values)} pass"
    if len(present) < len(values):
        text += f", {len(values) - len(present)} none"
    return text


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--half", choices=["test", "tune"], required=True)
    p.add_argument("--only", required=True, help="comma-separated scenario ids")
    p.add_argument("--shifts", type=int, default=8)
    p.add_argument("--afe", default=os.path.join(ROOT, ".build", "release", "afe"))
    p.add_argument("--system", action="append", default=[], help='a named alternative: NAME="afe process options"')
    p.add_argument("--scenarios", default=os.path.join(ROOT, "out", "scenarios"))
    p.add_argument("--out", default=os.path.join(ROOT, "out", "shifts"))
    a = p.parse_args()
    if a.shifts < 1:
        sys.exit("shifts: --shifts must be at least 1")
    ids = a.only.split(",")
    systems = ["default"] + [s.split("=", 1)[0] for s in a.system]
    values = {}  # (id, system, metric) -> [value per shift]
    for shift in range(a.shifts):
        root = os.path.join(a.out, f"shift{shift}")
        for sid in ids:
            scene = os.path.join(a.scenarios, a.half, sid)
            if not os.path.exists(os.path.join(scene, "truth.json")):
                sys.exit(f"shifts: {scene} missing; run generate.py --half {a.half} first")
            target = os.path.join(root, "scenes", a.half, sid)
            shutil.rmtree(target, ignore_errors=True)  # (never a stale copy of a scene rendered again since)
            shifted_copy(scene, target, shift)
        cmd = [sys.executable, os.path.join(HERE, "evaluate.py"), "--half", a.half, "--only", a.only,
               "--scenarios", os.path.join(root, "scenes"), "--systems", "default", "--vad-only", "--no-report",
               "--afe", a.afe, "--out", os.path.join(root, "evaluation")]
        for s in a.system:
            cmd += ["--system", s]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"shifts: evaluate.py failed at shift {shift}:\n{run.stderr.strip()}")
        with open(os.path.join(root, "evaluation", a.half, "results.json")) as f:
            for r in json.load(f):
                for system in systems:
                    m = r["systems"].get(system, {})
                    for metric, _ in METRICS:
                        values.setdefault((r["id"], system, metric), []).append(m.get(metric))
    summary = {}
    for sid in ids:
        for system in systems:
            print(f"{sid} ({system}), {a.shifts} shifts: min / median / max")
            for metric, passes in METRICS:
                vals = values.get((sid, system, metric), [])
                if all(v is None for v in vals):
                    continue
                summary.setdefault(sid, {}).setdefault(system, {})[metric] = vals
                print(f"  {metric:22s} {summarize(vals, passes)}   {[v if v is None else float(f'{v:.4g}') for v in vals]}")
    with open(os.path.join(a.out, "shifts.json"), "w") as f:
        json.dump({"half": a.half, "shifts": a.shifts, "afe": a.afe, "values": summary}, f, indent=1)


if __name__ == "__main__":
    main()
