"""Does the cancellers' output still follow the reference? A diagnosis for barge-in (issue 14), not a detector.

The barge-in decision's mic-excess tests hold back a talker at SER -10 / -15 dB, and every way of loosening them
so far let residual echo through (an echo path change, a long room's tail). After the cancellers, that talker
stands well above the residual echo, while a residual leak is still echo: a function of the reference. This
script measures, over frames that matter, how much of the output a reference could explain: per 10 ms frame the
magnitude-squared coherence between the output and the reference delayed by LAG_MIN...LAG frames (32 ms windows,
bins 200-4000 Hz, cross-spectra smoothed over SMOOTH ms), the largest over lags, averaged over bins.

Frames (from the scene's labels and the run's `vad.csv`, i.e. what the gate and VAD passed):
  talk  the user speaks during playback and the VAD says speech (what barge-in must decide on);
  leak  far end only and the VAD says speech, 2 s or more from the talker's speech (residual echo the gate let
        through: false barge-in material; nearer, a segment's bridged pauses and edges would count);
  the talk frames of each utterance's first 300 ms are shown apart (the decision falls there or is late).

  .venv/bin/python Scripts/scenarios/bargein_coherence.py [--quiet] [--decisions] SYSTEM SCENES_DIR:RUNS_DIR [...]

--decisions: instead, the run's barge-in decisions (`report.json`), each with the mean coherence over its own
run (its speech start to the decision), scored as `bargein.py` scores them (open loop) with the decisions over a
threshold taken away: what a veto on that statistic would keep and remove (a veto in the detector would hold
such frames back, so a later decision could still come; this counts it as none).

SCENES_DIR holds the scenes (`generate.py --out`, e.g. out/scenarios/tune), RUNS_DIR an `evaluate.py` run's
`runs` folder (`out.wav`, `vad.csv` per scene and system); every scene with a run of SYSTEM is read, drift scenes
left out. Environment: LAG_MIN and LAG (lags in 10 ms frames, default 0 and 40), SMOOTH (ms, default 200), MIC=1 (the mic
instead of the output: a check of the alignment). The reference is aligned by the truth's delay (drift
ignored): an upper bound on what a detector aligned by the front end's own estimate would see.
"""
import json
import os
import sys

import numpy as np
from scipy.signal import lfilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bargein  # noqa: E402

RATE = 16000
HOP = 160
WINDOW = 512
LAGS = int(os.environ.get("LAG", "40"))
FIRST_LAG = int(os.environ.get("LAG_MIN", "0"))
LEAK_GUARD = 200  # frames (2 s) either side of the talker's speech where no frame counts as a leak
SMOOTH_MS = float(os.environ.get("SMOOTH", "200"))


def _json(path):
    with open(path) as f:
        return json.load(f)


def _load(path):
    """Channel 1 at 16 kHz as bargein.py reads it (coherence does not care for the scale)."""
    return bargein.load16(path).astype(np.float64)


def stft(x, frames):
    x = np.concatenate([np.zeros(WINDOW - HOP), x, np.zeros(WINDOW)])
    idx = np.arange(frames)[:, None] * HOP + np.arange(WINDOW)[None, :]
    spec = np.fft.rfft(x[idx] * np.hanning(WINDOW), axis=1)
    hz = np.fft.rfftfreq(WINDOW, 1 / RATE)
    return spec[:, (hz >= 200) & (hz <= 4000)]


def smooth(a):
    lam = np.exp(-HOP / RATE / (SMOOTH_MS / 1000))
    return lfilter([1 - lam], [1, -lam], a, axis=0)


def coherence(out, ref):
    """Per frame: the largest over lags of the bin-mean magnitude-squared coherence."""
    syy = smooth(np.abs(out) ** 2) + 1e-12
    sxx = smooth(np.abs(ref) ** 2) + 1e-12
    best = np.zeros(len(out))
    for lag in range(FIRST_LAG, LAGS + 1):
        x = np.roll(ref, lag, axis=0)
        x[:lag] = 0
        xx = np.roll(sxx, lag, axis=0)
        xx[:lag] = 1e-12
        sxy = smooth(out * np.conj(x))
        c = (np.abs(sxy) ** 2 / (syy * xx)).mean(1)
        best = np.maximum(best, c)
    return best


def scene_frames(scenes, runs, system, scene):
    truth = _json(os.path.join(scenes, scene, "truth.json"))
    labels = np.loadtxt(os.path.join(scenes, scene, "labels.csv"), delimiter=",", skiprows=1).astype(int)
    vad = np.loadtxt(os.path.join(runs, scene, system, "vad.csv"), delimiter=",").astype(int)[:, 1]
    out = _load(os.path.join(scenes, scene, "mic.wav") if os.environ.get("MIC") else os.path.join(runs, scene, system, "out.wav"))
    ref = _load(os.path.join(scenes, scene, "reference.wav"))
    shift = int(round(truth["delay_ms"] * RATE / 1000))
    ref = np.concatenate([np.zeros(shift), ref])[: len(ref)]
    frames = min(len(labels), len(vad), len(out) // HOP, len(ref) // HOP)
    c = coherence(stft(out, frames), stft(ref, frames))
    near, echo, v = labels[:frames, 1] == 1, labels[:frames, 2] == 1, vad[:frames] == 1
    onset = np.zeros(frames, bool)  # the first 300 ms of each utterance: what a barge-in decision waits on
    for start in np.flatnonzero(near[1:] & ~near[:-1]) + 1:
        onset[start:start + 30] = True
    # Leaks only away from the talker: a segment bridges pauses, starts back-dated and ends after its last word.
    talker_near = np.convolve(near.astype(float), np.ones(2 * LEAK_GUARD + 1), "same") > 0
    return c, near & echo & v, ~talker_near & echo & v, onset & near & echo & v


def scene_decisions(scenes, runs, system, scene, c):
    """(decision s, mean coherence over its run) for each barge-in decision of the run, and the scene's truth."""
    truth = _json(os.path.join(scenes, scene, "truth.json"))
    report = _json(os.path.join(runs, scene, system, "report.json"))
    # A decision's time is the mic's at the end of the frame it came with; the stages' output the detector judged
    # lags it by the processing delay.
    lag_ms = report.get("output", {}).get("processing_delay_ms", 0)
    out = []
    for d in report.get("barge_ins", []):
        a, b = int(d["speech_start_ms"] // 10), int((d["ms"] - lag_ms) // 10)
        out.append((d["ms"] / 1000, float(np.mean(c[a:max(b, a + 1)])) if a < len(c) else 0.0))
    return out, truth


LIMITS = (None, 0.2, 0.15, 0.12, 0.10, 0.08, 0.06)


def veto_rows(scored, limits=LIMITS):
    """scored: [(truth, [(decision s, coherence)])]. Per threshold (None: no veto): onsets during playback,
    onsets decided, the median latency (s; inf a miss) and the false decisions, once the decisions whose
    coherence stands over the threshold are taken away."""
    rows = []
    for limit in limits:
        onsets = hits = false = 0
        latencies = []
        for truth, decisions in scored:
            kept = [t for t, coh in decisions if limit is None or coh <= limit]
            o, lat, f = bargein.score_interrupts(truth, kept)
            onsets += len(o)
            hits += sum(1 for x in lat if x != float("inf"))
            latencies += lat
            false += len(f)
        rows.append((limit, onsets, hits, bargein.percentile(latencies, 50), false))
    return rows


def veto_table(scored):
    for limit, onsets, hits, median, false in veto_rows(scored):
        shown = "a miss" if median is None or median == float("inf") else f"{median * 1000:.0f} ms"
        print(f"  veto over {limit if limit is not None else 'none':>4}: onsets decided {hits} of {onsets}, "
              f"median {shown}, false decisions {false}")


def show(x):
    if not len(x):
        return "    0 frames"
    return f"{len(x):5d} frames, median {np.median(x):.2f}, p10 {np.percentile(x, 10):.2f}, p90 {np.percentile(x, 90):.2f}"


def main():
    args = sys.argv[1:]
    quiet, decisions = "--quiet" in args, "--decisions" in args
    args = [a for a in args if a not in ("--quiet", "--decisions")]
    if len(args) < 2 or any(":" not in a for a in args[1:]):
        sys.exit(__doc__)
    system = args[0]
    talk, leak, onset, scored = [], [], [], []
    for pair in args[1:]:
        scenes, runs = pair.split(":", 1)
        for scene in sorted(os.listdir(runs)):
            has_far = "delay_ms" in _json(os.path.join(scenes, scene, "truth.json"))
            if scene.startswith("drift") or not has_far or not os.path.isdir(os.path.join(runs, scene, system)):
                continue
            c, t, k, o = scene_frames(scenes, runs, system, scene)
            if decisions:
                made, truth = scene_decisions(scenes, runs, system, scene, c)
                scored.append((truth, made))
                if not quiet and made:
                    print(f"{scene:22s} " + " ".join(f"{t:.2f}s:{coh:.2f}" for t, coh in made))
                continue
            onset.append(c[o])
            talk.append(c[t])
            leak.append(c[k])
            if not quiet and (t.any() or k.any()):
                print(f"{scene:22s} talk {show(c[t])} | leak {show(c[k])}")
    if decisions:
        print(f"LAG {FIRST_LAG}-{LAGS}, SMOOTH {SMOOTH_MS:g} ms, system {system}:")
        return veto_table(scored)
    talk, leak, onset = np.concatenate(talk), np.concatenate(leak), np.concatenate(onset)
    print(f"LAG {FIRST_LAG}-{LAGS}, SMOOTH {SMOOTH_MS:g} ms: talk {show(talk)} | onsets {show(onset)} | leak {show(leak)}")
    for t in (0.05, 0.08, 0.1, 0.12, 0.15, 0.2):
        print(f"  under {t:.2f}: talk frames {np.mean(talk < t):.2f}, their first 300 ms {np.mean(onset < t):.2f}, "
              f"leak frames {np.mean(leak < t):.2f}")


if __name__ == "__main__":
    main()
