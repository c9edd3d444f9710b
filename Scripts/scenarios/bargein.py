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
answer, the first seconds of playback and of the canceller included — 30 minutes of the half's rooms. At each
seam the next loop's mic also holds the echo the previous loop's playback still produces (the bulk delay's worth
and the room's tail, which the render cuts off: re-rendered from the scene's spec, checked against echo.wav and
cached in OUT/HALF/looped/ID/echo_tail.*; see seam_tail), so the echo never vanishes while the reference plays
on. Every decision there is a false barge-in. Writes OUT/HALF/bargein.json and prints the summary.

After a decision (interrupts, `--after-decision stop`, the default): the device stops the answer, as the SDK does
(issue 14 part 4), so the scene is replayed closed-loop: from one device buffer after the decision the reference
is silent and the mic loses the echo of everything not played (re-rendered exactly: the scenes' echo is the
reference through the room's impulse response, linear in every interrupt scene), until the device answers
again 500 ms after the end of the user's utterance (after a decision outside every utterance, 500 ms after the
stop), the reference playing on from where its timeline then is. `afe` runs again on the changed scene after each
decision (its output before the change is the same: it is causal). An onset counts only while the far end plays
in that replay; a decision while it is stopped has nothing to stop and is not scored. `--after-decision continue`:
the far end plays on (an app that ducks or ignores the decision; the scenes as rendered). Echo only: every
decision counts and the far end plays on either way (an upper bound on what a device that stops would see)."""
import argparse
import json
import os
import shlex
import subprocess
import sys

import numpy as np
import soundfile as sf
from scipy import signal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import render  # noqa: E402
import rooms  # noqa: E402
import synth  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
ECHO_KINDS = ("echo", "echo_hard", "drift", "path_change")
BUFFER_S = 0.010
ONSET_PLAYING_TAIL_S = 0.3
WINDOW_BEFORE_S, WINDOW_AFTER_S, UTTERANCE_TAIL_S = 0.2, 2.0, 0.5
RATE = 16000
RESPONSE_S = 0.5
TAIL_MARGIN_S = 0.5
TAIL_CHECK_LSB = 2.0
TAIL_LEAD_S = 0.01


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


def seam_tail(scene_dir, truth, cache_dir):
    """The echo the scene's playback still produces after the scene's end (channel 1, int16 at 16 kHz, starting
    TAIL_LEAD_S before the end): what the render cuts off at its last sample (the bulk delay's worth of the echo
    of the last played samples, the room's reverberation tail). Re-rendered from the scene's spec by
    render.echo_continuation (the far end silent after the end: it stops there, and the next loop's reference
    starts afresh) over the bulk delay + the impulse response + TAIL_MARGIN_S, its first n samples checked
    against echo.wav (within TAIL_CHECK_LSB, else an error: the tail would not continue this scene's echo). The
    tail is quantized at the scene's rate and resampled as load16 does, from TAIL_LEAD_S of silence before it
    (the resampler's filter spreads its onset over the samples before the seam as well). Cached in `cache_dir`
    (echo_tail.wav at the scene's rate and echo_tail.json, keyed by echo.wav's SHA-256 from truth.json)."""
    spec = truth["spec"]
    rate = spec["rate"]
    n = int(round(spec["duration_s"] * rate))
    delay_ms = truth.get("bulk_delay_ms", spec["delay_ms"])
    extra = int(np.ceil((delay_ms / 1000 + truth["ir_length_s"] + TAIL_MARGIN_S) * rate))
    wav, meta_path = os.path.join(cache_dir, "echo_tail.wav"), os.path.join(cache_dir, "echo_tail.json")
    key = truth.get("files", {}).get("echo.wav")
    if key and os.path.exists(wav) and os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("echo_sha256") == key and meta.get("tail_samples") == extra:
            return load16(wav)
    continued = render.echo_continuation(spec, extra)
    stored = sf.read(os.path.join(scene_dir, "echo.wav"), dtype="int16", always_2d=True)[0]
    difference = float(np.max(np.abs(continued[:n] * 32767.0 - stored)))  # synth.quantize's scale
    if len(stored) != n or difference > TAIL_CHECK_LSB:
        raise RuntimeError(f"{scene_dir}: the re-rendered echo differs from echo.wav by {difference:.2f} LSB "
                           f"(limit {TAIL_CHECK_LSB}): no faithful continuation at the loop seams")
    last = float(np.max(np.abs(continued[-int(0.05 * rate):, 0]))) * 32767.0
    os.makedirs(cache_dir, exist_ok=True)
    lead = np.zeros(int(round(TAIL_LEAD_S * rate)))  # the resampler's spill of the tail's onset before the seam
    sf.write(wav, synth.quantize(np.concatenate([lead, continued[n:, 0]])), rate, subtype="PCM_16")
    with open(meta_path, "w") as f:
        json.dump({"echo_sha256": key, "rate": rate, "tail_samples": extra, "check_max_lsb": difference,
                   "last_50ms_peak_lsb": last}, f, indent=1)
    return load16(wav)


def add_seam_tails(x, tail, n, loops):
    """`x` (`loops` scenes of n samples in a row) with `tail` (seam_tail's, from TAIL_LEAD_S before the seam, cut
    to one scene) added at every seam; returns x (changed in place)."""
    lead = int(round(TAIL_LEAD_S * RATE))
    tail = tail[:lead + n]
    for k in range(1, loops):
        x[k * n - lead:k * n - lead + len(tail)] += tail
    return x


def looped(scene_dir, loops, out_dir, truth=None):
    """The scene's mic and reference (channel 1, 16 kHz) `loops` times in a row: one device in one room playing
    answer after answer. At each seam the next loop's mic also gets the echo the previous loop's playback still
    produces (seam_tail: without it the echo would vanish for the bulk delay while the reference plays on)."""
    os.makedirs(out_dir, exist_ok=True)
    mic, ref = load16(os.path.join(scene_dir, "mic.wav")), load16(os.path.join(scene_dir, "reference.wav"))
    n = min(len(mic), len(ref))
    mic = np.tile(mic[:n], loops)
    if loops > 1:
        if truth is None:
            with open(os.path.join(scene_dir, "truth.json")) as f:
                truth = json.load(f)
        mic = add_seam_tails(mic.astype(np.int32), seam_tail(scene_dir, truth, out_dir), n, loops)
        mic = np.clip(mic, -32768, 32767).astype(np.int16)
    paths = os.path.join(out_dir, "mic.wav"), os.path.join(out_dir, "reference.wav")
    sf.write(paths[0], mic, RATE, subtype="PCM_16")
    sf.write(paths[1], np.tile(ref[:n], loops), RATE, subtype="PCM_16")
    return paths


def stop_interval(decision, near):
    """The far end stops one device buffer after `decision` and plays on (from where its timeline then is)
    `RESPONSE_S` after the end of the user's utterance the decision belongs to, or after the stop for a decision
    outside every utterance; returns (stop, resume) in seconds."""
    stop = decision + BUFFER_S
    ends = [b for a, b in near if a - WINDOW_BEFORE_S <= decision <= b + UTTERANCE_TAIL_S]
    return stop, max([stop] + ends) + RESPONSE_S


def playing_intervals(echo_active, stops, delay_s):
    """The echo intervals at the mic with the far end stopped over each (stop, resume) (shifted by the echo path's
    delay: what was played before the stop still arrives)."""
    out = [list(x) for x in echo_active]
    for stop, resume in stops:
        a, b = stop + delay_s, (resume + delay_s if resume is not None else float("inf"))
        kept = []
        for x, y in out:
            if y <= a or x >= b:
                kept.append([x, y])
                continue
            if x < a:
                kept.append([x, a])
            if y > b:
                kept.append([b, y])
        out = kept
    return out


class StoppedScene:
    """A double-talk scene whose far end the device stops: the echo of the reference rebuilt from the room's
    impulse responses (per mic channel, its gain fitted to echo.wav), so the echo of a silenced stretch of the
    reference can be taken out of the mic exactly."""

    def __init__(self, scene_dir, truth):
        self.mic, self.rate = sf.read(os.path.join(scene_dir, "mic.wav"), always_2d=True)
        self.reference = sf.read(os.path.join(scene_dir, "reference.wav"), always_2d=True)[0][:, 0]
        echo = sf.read(os.path.join(scene_dir, "echo.wav"), always_2d=True)[0]
        spec = truth["spec"]
        self.delay = int(round(spec["delay_ms"] * self.rate / 1000.0))
        self.paths = rooms.impulse_responses(truth["room"], self.rate, "speaker", spec["channels"])
        unit = [self.through_room(self.reference, h) for h in self.paths]
        self.gains = [float(np.dot(u, echo[:, c]) / max(np.dot(u, u), 1e-30)) for c, u in enumerate(unit)]
        self.fit_error = max(float(np.sqrt(np.mean((echo[:, c] - g * u) ** 2) / max(np.mean(echo[:, c] ** 2), 1e-30)))
                             for c, (g, u) in enumerate(zip(self.gains, unit)))

    def through_room(self, x, h):
        n = len(self.mic)
        delayed = np.concatenate([np.zeros(self.delay), x])[:n]
        return signal.fftconvolve(delayed, h)[:n]

    def write(self, stops, out_dir):
        """The mic and reference with the far end silent over each (stop, resume); returns their paths."""
        volume = np.ones_like(self.reference)
        for stop, resume in stops:
            a = int(round(stop * self.rate))
            b = len(volume) if resume is None else int(round(resume * self.rate))
            volume[a:b] = 0
        return self.write_volume(volume, out_dir)

    def write_volume(self, volume, out_dir):
        """The mic and reference with the far end played at `volume` (a gain per sample, 0...1: what the device
        hands its speaker and pushes as the reference); returns their paths."""
        silenced = self.reference * (1 - volume)
        mic = self.mic.copy()
        if np.any(silenced):
            for c, (g, h) in enumerate(zip(self.gains, self.paths)):
                mic[:, c] -= g * self.through_room(silenced, h)
        os.makedirs(out_dir, exist_ok=True)
        paths = os.path.join(out_dir, "mic.wav"), os.path.join(out_dir, "reference.wav")
        sf.write(paths[0], np.clip(mic, -1, 32767 / 32768), self.rate, subtype="PCM_16")
        sf.write(paths[1], self.reference - silenced, self.rate, subtype="PCM_16")
        return paths


def closed_loop(afe, scene_dir, truth, args, out_dir):
    """Runs `afe` on the scene, stopping the far end after each decision and running again (see the module doc).
    Returns the decisions the device acted on, the (stop, resume) intervals and the scene's duration."""
    scene = StoppedScene(scene_dir, truth)
    if scene.fit_error > 0.05:
        raise RuntimeError(f"{scene_dir}: the echo is not the reference through the room (error {scene.fit_error:.3f})")
    stops, acted = [], []
    mic, reference = os.path.join(scene_dir, "mic.wav"), os.path.join(scene_dir, "reference.wav")
    while True:
        decisions, seconds = run_afe(afe, mic, reference, args, out_dir)
        horizon = stops[-1][1] if stops else 0.0
        if horizon is None:
            break
        later = [d for d in decisions if d >= horizon and not any(
            a < d < (b if b is not None else float("inf")) for a, b in stops)]
        if not later:
            break
        acted.append(later[0])
        stops.append(stop_interval(later[0], truth["near_speech"]))
        mic, reference = scene.write(stops, os.path.join(out_dir, "stopped"))
    return acted, stops, seconds


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
    ap.add_argument("--after-decision", default="stop", choices=["stop", "continue"],
                    help="interrupts: the device stops the far end after a decision (closed loop, default) or it plays on")
    a = ap.parse_args()
    args = shlex.split(a.args)
    half_dir, out = os.path.join(a.scenarios, a.half), os.path.join(a.out, a.half)
    all_scenes = list(scenes(half_dir))
    result = {"half": a.half, "args": a.args, "after_decision": a.after_decision, "interrupts": {}, "echo_only": {}}

    if a.part in ("interrupts", "all"):
        lat, n_false, minutes = [], 0, 0.0
        for sid, d, truth in all_scenes:
            if not truth["near_speech"] or not truth["echo_active"]:
                continue
            stops = []
            if a.after_decision == "stop":
                decisions, stops, seconds = closed_loop(a.afe, d, truth, args, os.path.join(out, sid))
                delay_s = truth["spec"]["delay_ms"] / 1000
                truth = dict(truth, echo_active=playing_intervals(truth["echo_active"], stops, delay_s))
            else:
                ref = os.path.join(d, "reference.wav")
                decisions, seconds = run_afe(a.afe, os.path.join(d, "mic.wav"), ref, args, os.path.join(out, sid))
            onsets, latencies, false = score_interrupts(truth, decisions)
            lat += latencies
            n_false += len(false)
            minutes += seconds / 60
            result["interrupts"][sid] = {"onsets_s": onsets, "latency_ms": [round(x * 1000) if np.isfinite(x) else None
                                                                            for x in latencies],
                                         "false_s": false, "decisions_s": decisions,
                                         "stopped_s": [[round(x, 3), None if y is None else round(y, 3)] for x, y in stops]}
            print(f"{sid:12s} latency ms {[round(x * 1000) if np.isfinite(x) else 'miss' for x in latencies]}"
                  f"{'  false at ' + str(false) if false else ''}", flush=True)
        finite = [x for x in lat if np.isfinite(x)]
        result["interrupt_summary"] = {
            "onsets": len(lat), "missed": len(lat) - len(finite),
            "median_ms": percentile([x * 1000 for x in lat], 50), "p95_ms": percentile([x * 1000 for x in lat], 95),
            "false_barge_ins": n_false, "minutes": minutes}

    if a.part in ("echo", "all"):
        echo_scenes = [s for s in all_scenes if s[2]["spec"]["kind"] in ECHO_KINDS]
        runs = [(sid,) + looped(d, a.loops, os.path.join(out, "looped", sid), truth) for sid, d, truth in echo_scenes]
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
