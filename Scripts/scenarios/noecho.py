#!/usr/bin/env python3
"""A reference without an echo (headphones, a muted or distant loudspeaker): is the user heard while it plays?

Part `none`: every near-end-only scene of a half (`near_*`, `vad_*`: speech in noise, no far end) is run through
`afe process` three ways: without a reference; with each of the half's first six echo scenes' references pushed
(the mic holds no echo of it) and the defaults (`EchoGate.opensWithoutEcho`: the echo gate stands aside once the
delay estimator finds no echo; `FrontEndConfiguration.pausesCancellersWithoutEcho`: the cancellers pause); and the
same as before 2026-12-06 (`--echo-gate no-echo-open=0 --no-echo-pause off`: the gate waits for a convergence that
never comes). Scored against the scene's labels: frame recall and false-active of the VAD labels, the utterances a
speech segment overlaps (all, and those that overlap the reference's playback and start 3.5 s or more in: the
estimator's verdict needs about 3 s of reference), and the barge-in decisions (the user talks over the playback:
each is a right one).

Part `gone`: an echo that goes away while the reference plays on (a loudspeaker unplugged for headphones): every
double-talk, rate and echo scene of the half with its echo taken out of the mic from `GONE_S` (10 s) on (the
scene's `mic.wav` less its `echo.wav` from there), run the same three ways. Scored after
`GONE_S`: the talker's utterances starting 0.5 s or more after it that a segment overlaps, frame recall and
false-active in the talk scenes, false-active in the echo-only scenes (the room's noise, and whatever the
cancellers make of an echo that is no longer there, taken for speech).

  .venv/bin/python Scripts/scenarios/noecho.py --half tune [--part none|gone|both] [--afe .build/release/afe]
      [--scenarios out/scenarios] [--args "--echo-gate ..."]"""
import argparse
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np
import soundfile as sf

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LATE_S = 3.5
GONE_S = 10.0
WAYS = [("no reference", False, []), ("reference, defaults", True, []),
        ("reference, before (gate waits)", True, ["--echo-gate", "no-echo-open=0", "--no-echo-pause", "off"])]


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


def part_none(a, half, extra, work):
    mics = sorted(glob.glob(os.path.join(half, "near_*")) + glob.glob(os.path.join(half, "vad_*")))
    references = [d for d in sorted(glob.glob(os.path.join(half, "echo_*")))
                  if os.path.exists(os.path.join(d, "reference.wav"))][:6]
    if not mics or not references:
        sys.exit(f"noecho: no near-end-only or echo scenes in {half} (generate.py --half {a.half})")
    for name, with_reference, args in WAYS:
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
        print(f"{a.half} none {name:32} runs {len(rows):3}  frame recall {r[:, 0].mean():.3f} (min {r[:, 0].min():.3f})  "
              f"false-active {r[:, 1].mean():.3f}  utterances heard {int(r[:, 2].sum())}/{int(r[:, 3].sum())}, "
              f"during playback from {LATE_S} s {int(r[:, 4].sum())}/{int(r[:, 5].sum())}  barge-ins {int(r[:, 6].sum())}")


def gone_mic(scene, out):
    """The scene's mic less its echo from GONE_S on (16-bit samples: before GONE_S the mic as it is), written to
    `out`/mic.wav with the reference linked beside. The echo's reverberation ends with it."""
    os.makedirs(out, exist_ok=True)
    mic, rate = sf.read(os.path.join(scene, "mic.wav"), dtype="int16")
    echo, _ = sf.read(os.path.join(scene, "echo.wav"), dtype="int16")
    cut = int(GONE_S * rate)
    mic = mic.astype(np.int32)
    mic[cut:] -= echo[cut:len(mic)]
    sf.write(os.path.join(out, "mic.wav"), np.clip(mic, -32768, 32767).astype(np.int16), rate, subtype="PCM_16")
    os.symlink(os.path.join(scene, "reference.wav"), os.path.join(out, "reference.wav"))


def part_gone(a, half, extra, work):
    scenes = [d for d in sorted(glob.glob(os.path.join(half, "dt_*")) + glob.glob(os.path.join(half, "rate_*"))
                                + glob.glob(os.path.join(half, "echo_*")))
              if all(os.path.exists(os.path.join(d, f + ".wav")) for f in ("mic", "echo", "reference"))]
    if not scenes:
        sys.exit(f"noecho: no double-talk, rate or echo scenes with their echo in {half} (generate.py --half {a.half})")
    mics = os.path.join(work, "gone")
    for scene in scenes:
        gone_mic(scene, os.path.join(mics, os.path.basename(scene)))
    start = int(GONE_S * 100)
    for name, with_reference, args in WAYS:
        talk, echo_only = [], []
        for scene in scenes:
            mic = os.path.join(mics, os.path.basename(scene))
            vad, segments, _ = run(a.afe, mic, mic if with_reference else None, args + extra, work)
            with open(os.path.join(scene, "truth.json")) as f:
                utterances = json.load(f)["near_speech"]
            near = np.zeros(len(vad), bool)
            for u0, u1 in utterances:
                near[int(u0 * 100):int(u1 * 100)] = True
            after_near, after = near[start:], vad[start:]
            if not utterances:
                echo_only.append(after.mean())
                continue
            late = [(u0, u1) for u0, u1 in utterances if u0 >= GONE_S + 0.5]
            heard = sum(any(s0 < u1 and s1 > u0 for s0, s1 in segments) for u0, u1 in late)
            talk.append([heard, len(late), after[after_near].mean(), after[~after_near].mean()])
        if not talk or not echo_only:
            sys.exit(f"noecho: the half needs both talk and echo-only scenes ({len(talk)} / {len(echo_only)})")
        t = np.array(talk, dtype=float)
        print(f"{a.half} gone {name:32} talk scenes {len(talk)}: utterances heard {int(t[:, 0].sum())}/{int(t[:, 1].sum())}, "
              f"frame recall {t[:, 2].mean():.3f}, false-active {t[:, 3].mean():.3f}; echo-only scenes {len(echo_only)}: "
              f"false-active {np.mean(echo_only):.3f} (worst {max(echo_only):.3f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", required=True, choices=["tune", "test"])
    ap.add_argument("--part", default="both", choices=["none", "gone", "both"])
    ap.add_argument("--afe", default=os.path.join(ROOT, ".build", "release", "afe"))
    ap.add_argument("--scenarios", default=os.path.join(ROOT, "out", "scenarios"))
    ap.add_argument("--args", default="", help="extra afe process options for every run")
    a = ap.parse_args()
    half = os.path.abspath(os.path.join(a.scenarios, a.half))
    extra = shlex.split(a.args)
    with tempfile.TemporaryDirectory() as work:
        if a.part in ("none", "both"):
            part_none(a, half, extra, work)
        if a.part in ("gone", "both"):
            part_gone(a, half, extra, work)


if __name__ == "__main__":
    main()
