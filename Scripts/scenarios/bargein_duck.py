#!/usr/bin/env python3
"""Barge-in with ducking, closed loop (issue 14 part 6): the front end's barge-in suspicion
(`FrontEndConfiguration.bargeInSuspicion`, `afe process --barge-in-suspicion SPEC`, `--suspect`: `on` = the
suggested setting) turns the playback down by `--duck-db` for `--hold-s` (each further suspicion while ducked
extends it from then), as `NeoNuiStreamInputTts` with barge-in does; a barge-in decision (`--args`, afe's
defaults unless given) stops the playback as `bargein.py`'s closed loop does. While ducked the talker stands
`--duck-db` higher over the echo, so the decision finds low-SER talkers it misses at full volume; a wrong
suspicion costs a dip in volume, not the answer.

  .venv/bin/python Scripts/scenarios/bargein_duck.py --half tune [--suspect on|KEY=VALUE,...] [--args ""]
      [--duck-db 20] [--hold-s 1.0] [--part interrupts|echo|all] [--only ID,...] [--scenarios DIR] [--out DIR]

One afe run gives both (its report's `barge_ins` and `barge_in_suspicions`) on what the device would then hear.
After each acted event the scene is re-rendered and afe runs again (causal: nothing before the event changes;
the device acts one 10 ms buffer after it). Interrupts: the
scenes of `bargein.py` (doubletalk and rate), scored as there — **stop latency** (onset to the strict decision the
device acted on, plus one 10 ms buffer; a miss after 2 s) and **duck latency** (onset to the first acted event of
either kind), false stops and false ducks outside every utterance. Echo only: the far-end-only scenes looped
`--loops` times at 16 kHz, closed loop for the ducks (a false duck dips the far end) while the far end plays on
after a decision, as `bargein.py` counts false barge-ins there (a stop and a resume 500 ms later would replay
the same answer, which no device does, and its restart can draw decisions of its own); every decision there is a
false barge-in (a false stop), every duck a false duck. The re-rendering is exact where the scene's echo is its
reference through the room's impulse response (every interrupt scene); for echo-only scenes whose echo is not
(nonlinear loudspeakers, volume changes, path changes: fit error over 5 %) the echo the device no longer plays is
taken out as `echo.wav` times the volume change shifted by the echo path's delay — an approximation that ignores
the room's tail of the louder playback and the loudspeaker's lower distortion at the lower volume.

Volume changes ramp over one 10 ms buffer. Writes OUT/HALF/bargein_duck.json and prints the summaries."""
import argparse
import json
import os
import shlex
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bargein  # noqa: E402
import rooms  # noqa: E402
import synth  # noqa: E402
from bargein import BUFFER_S, RATE  # noqa: E402

FIT_LIMIT = 0.05


class ArrayScene(bargein.StoppedScene):
    """A scene from arrays (the looped echo-only scenes at 16 kHz), re-rendered exactly when its echo fits the
    reference through the room, else approximately (see the module doc)."""

    def __init__(self, mic, reference, echo, rate, truth):
        self.mic, self.reference, self.rate = mic[:, None], reference, rate
        self.echo = echo
        spec = truth["spec"]
        self.delay = int(round(spec["delay_ms"] * rate / 1000.0))
        self.paths = rooms.impulse_responses(truth["room"], rate, "speaker", 1)
        unit = self.through_room(reference, self.paths[0])
        self.gains = [float(np.dot(unit, echo) / max(np.dot(unit, unit), 1e-30))]
        self.fit_error = float(np.sqrt(np.mean((echo - self.gains[0] * unit) ** 2) / max(np.mean(echo ** 2), 1e-30)))

    def write_volume(self, volume, out_dir):
        if self.fit_error <= FIT_LIMIT:
            return super().write_volume(volume, out_dir)
        shifted = np.concatenate([np.ones(self.delay), volume])[:len(volume)]
        mic = self.mic[:, 0] - self.echo * (1 - shifted)
        os.makedirs(out_dir, exist_ok=True)
        paths = os.path.join(out_dir, "mic.wav"), os.path.join(out_dir, "reference.wav")
        bargein.sf.write(paths[0], np.clip(mic, -1, 32767 / 32768), self.rate, subtype="PCM_16")
        bargein.sf.write(paths[1], self.reference * volume, self.rate, subtype="PCM_16")
        return paths


def looped_scene(scene_dir, truth, loops, cache_dir):
    """The echo-only scene `loops` times in a row at 16 kHz (mic, reference and echo, channel 1) as an ArrayScene;
    at each seam the mic and the echo also get the echo the previous loop's playback still produces
    (bargein.seam_tail, cached in `cache_dir`), as in bargein.looped."""
    def read(name):
        x, rate = bargein.sf.read(os.path.join(scene_dir, name), dtype="float64", always_2d=True)
        return synth.resample(x[:, 0], rate, RATE)
    mic, ref, echo = read("mic.wav"), read("reference.wav"), read("echo.wav")
    n = min(len(mic), len(ref), len(echo))
    mic, ref, echo = np.tile(mic[:n], loops), np.tile(ref[:n], loops), np.tile(echo[:n], loops)
    if loops > 1:
        tail = bargein.seam_tail(scene_dir, truth, cache_dir) / 32768.0
        mic, echo = (bargein.add_seam_tails(x, tail, n, loops) for x in (mic, echo))
    return ArrayScene(mic, ref, echo, RATE, truth)


def volume_curve(n, rate, stops, ducks, duck_gain):
    """The playback volume per sample: `duck_gain` over each duck [start, end) (cut short by a stop that begins
    inside it), 0 over each (stop, resume), ramps of one buffer at every change."""
    volume = np.ones(n)
    ramp = max(1, int(round(BUFFER_S * rate)))

    def index(t):
        return n if t is None else min(n, max(0, int(round(t * rate))))

    for start, end in ducks:
        for stop, _ in stops:
            if start <= stop < end:
                end = stop
        a, b = index(start), index(end)
        if b <= a:
            continue
        volume[a:b] = np.minimum(volume[a:b], duck_gain)
        down = np.linspace(1, duck_gain, min(ramp, b - a) + 1)[1:]
        volume[a:a + len(down)] = np.maximum(volume[a:a + len(down)], down)
        up = np.linspace(duck_gain, 1, min(ramp, n - b) + 1)[1:]
        volume[b:b + len(up)] = np.minimum(volume[b:b + len(up)], up)
    for stop, resume in stops:
        volume[index(stop):index(resume)] = 0
    return volume


def next_event(strict, loose, horizon, stops, ducks):
    """The earliest decision at or after `horizon` while the far end plays: ("stop", t) or ("duck", t) (a stop
    first when both fall in the same frame), or None."""
    def playing(d):
        return d >= horizon and not any(a < d < (b if b is not None else float("inf")) for a, b in stops)
    s = next((d for d in strict if playing(d)), None)
    l = next((d for d in loose if playing(d)), None)
    if s is None and l is None:
        return None
    if l is None or (s is not None and s <= l):
        return "stop", s
    return "duck", l


def duck_loop(run, scene, near, duck_gain, hold_s, out_dir, stops_silence=True):
    """Runs afe (`run(mic, reference)` -> decisions and suspicions in seconds) on the scene, acting on each
    event and re-rendering, until no event is left. With `stops_silence` false a decision is counted but the far
    end plays on (echo only, as `bargein.py` counts there). Returns the acted stops, the acted ducks, the (stop,
    resume) intervals, the duck intervals and the scene's duration."""
    stops, ducks, acted_stops, acted_ducks = [], [], [], []
    mic, reference = scene.write_volume(np.ones_like(scene.reference), out_dir)
    horizon, seconds = 0.0, len(scene.reference) / scene.rate
    while True:
        strict, loose = run(mic, reference)
        event = next_event(strict, loose, horizon, stops, ducks)
        if event is None:
            break
        kind, t = event
        if kind == "stop" and not stops_silence:
            acted_stops.append(t)
            horizon = t + 1e-6
            continue
        if kind == "stop":
            acted_stops.append(t)
            stops.append(bargein.stop_interval(t, near))
            if stops[-1][1] is None:
                break
            horizon = stops[-1][1]
        else:
            start = t + BUFFER_S
            active = [d for d in ducks if d[0] <= start < d[1]]
            if active:
                active[0][1] = start + hold_s
            else:
                ducks.append([start, start + hold_s])
                acted_ducks.append(t)
            horizon = t + 1e-6
        volume = volume_curve(len(scene.reference), scene.rate, stops, ducks, duck_gain)
        mic, reference = scene.write_volume(volume, out_dir)
    return acted_stops, acted_ducks, stops, ducks, seconds


def runner(afe, args, suspect, out_dir):
    """`run(mic, reference)` -> (decisions, suspicions) in seconds, from one afe run."""
    def run(mic, reference):
        bargein.run_afe(afe, mic, reference, args + ["--barge-in-suspicion", suspect], out_dir)
        with open(os.path.join(out_dir, "report.json")) as f:
            report = json.load(f)
        return ([b["ms"] / 1000 for b in report["barge_ins"]], [b["ms"] / 1000 for b in report["barge_in_suspicions"]])
    return run


def interrupts(a, all_scenes, strict_args, suspect, out, duck_gain):
    stop_lat, duck_lat, false_stops, false_ducks, result = [], [], 0, 0, {}
    for sid, d, truth in all_scenes:
        if not truth["near_speech"] or not truth["echo_active"]:
            continue
        scene = bargein.StoppedScene(d, truth)
        if scene.fit_error > FIT_LIMIT:
            raise RuntimeError(f"{d}: the echo is not the reference through the room (error {scene.fit_error:.3f})")
        run = runner(a.afe, strict_args, suspect, os.path.join(out, sid))
        acted_stops, acted_ducks, stops, ducks, _ = duck_loop(run, scene, truth["near_speech"], duck_gain, a.hold_s,
                                                              os.path.join(out, sid, "scene"))
        playing = bargein.playing_intervals(truth["echo_active"], stops, truth["spec"]["delay_ms"] / 1000)
        scored = dict(truth, echo_active=playing)
        onsets, stop_latencies, fs = bargein.score_interrupts(scored, acted_stops)
        _, first_latencies, fd = bargein.score_interrupts(scored, sorted(acted_stops + acted_ducks))
        fd = [x for x in fd if x not in fs]
        stop_lat += stop_latencies
        duck_lat += first_latencies
        false_stops += len(fs)
        false_ducks += len(fd)
        ms = [round(x * 1000) if np.isfinite(x) else None for x in stop_latencies]
        first = [round(x * 1000) if np.isfinite(x) else None for x in first_latencies]
        result[sid] = {"onsets_s": onsets, "stop_ms": ms, "first_ms": first, "false_stops_s": fs,
                       "false_ducks_s": fd, "stops": stops, "ducks": ducks}
        print(f"{sid:12s} stop ms {[x if x is not None else 'miss' for x in ms]}  first ms "
              f"{[x if x is not None else 'miss' for x in first]}"
              f"{'  false stops ' + str(fs) if fs else ''}{'  false ducks ' + str(fd) if fd else ''}", flush=True)

    def summary(lat):
        finite = [x for x in lat if np.isfinite(x)]
        return {"onsets": len(lat), "missed": len(lat) - len(finite),
                "median_ms": bargein.percentile([x * 1000 for x in lat], 50),
                "p95_ms": bargein.percentile([x * 1000 for x in lat], 95)}
    return result, {"stop": summary(stop_lat), "first": summary(duck_lat), "false_stops": false_stops,
                    "false_ducks": false_ducks}


def echo_only(a, all_scenes, strict_args, suspect, out, duck_gain):
    result, n_stops, n_ducks, total = {}, 0, 0, 0.0
    for sid, d, truth in all_scenes:
        if truth["spec"]["kind"] not in bargein.ECHO_KINDS:
            continue
        scene = looped_scene(d, truth, a.loops, os.path.join(out, "echo", sid, "looped"))
        run = runner(a.afe, strict_args, suspect, os.path.join(out, "echo", sid))
        stops, ducks, _, _, seconds = duck_loop(run, scene, [], duck_gain, a.hold_s, os.path.join(out, "echo", sid, "scene"),
                                                stops_silence=False)
        n_stops, n_ducks, total = n_stops + len(stops), n_ducks + len(ducks), total + seconds
        result[sid] = {"seconds": seconds, "false_stops_s": stops, "false_ducks_s": ducks,
                       "exact": scene.fit_error <= FIT_LIMIT}
        print(f"{sid:20s} {seconds:7.1f} s  {'exact ' if scene.fit_error <= FIT_LIMIT else 'approx'}"
              f"  false stops {stops}  false ducks {ducks}", flush=True)
    minutes = total / 60
    return result, {"minutes": minutes, "false_stops": n_stops, "false_ducks": n_ducks,
                    "false_stops_per_30_min": n_stops * 30 / minutes if minutes else None,
                    "false_ducks_per_30_min": n_ducks * 30 / minutes if minutes else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", required=True, choices=["tune", "test"])
    ap.add_argument("--scenarios", default=os.path.join(bargein.ROOT, "out", "scenarios"))
    ap.add_argument("--afe", default=os.path.join(bargein.ROOT, ".build", "release", "afe"))
    ap.add_argument("--args", default="", help="afe process options (the stopping decision's: --barge-in ...)")
    ap.add_argument("--suspect", default="on", help="--barge-in-suspicion's value: on (the suggested setting) or KEY=VALUE,...")
    ap.add_argument("--duck-db", type=float, default=20.0)
    ap.add_argument("--hold-s", type=float, default=1.0)
    ap.add_argument("--loops", type=int, default=3)
    ap.add_argument("--part", default="all", choices=["interrupts", "echo", "all"])
    ap.add_argument("--only", default="", help="comma-separated scene ids (a quick sweep)")
    ap.add_argument("--out", default=os.path.join(bargein.ROOT, "out", "bargein-duck"))
    a = ap.parse_args()
    strict_args = shlex.split(a.args)
    duck_gain = 10 ** (-a.duck_db / 20)
    half_dir, out = os.path.join(a.scenarios, a.half), os.path.join(a.out, a.half)
    all_scenes = list(bargein.scenes(half_dir))
    if a.only:
        keep = set(a.only.split(","))
        all_scenes = [s for s in all_scenes if s[0] in keep]
    result = {"half": a.half, "args": a.args, "suspect": a.suspect, "duck_db": a.duck_db, "hold_s": a.hold_s}
    if a.part in ("interrupts", "all"):
        result["interrupts"], result["interrupt_summary"] = interrupts(a, all_scenes, strict_args, a.suspect, out,
                                                                       duck_gain)
    if a.part in ("echo", "all"):
        result["echo_only"], result["echo_summary"] = echo_only(a, all_scenes, strict_args, a.suspect, out, duck_gain)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bargein_duck.json"), "w") as f:
        json.dump(result, f, indent=1)
    for key in ("interrupt_summary", "echo_summary"):
        if key in result:
            print(key, json.dumps(result[key]))


if __name__ == "__main__":
    main()
