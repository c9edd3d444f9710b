#!/usr/bin/env python3
"""A numpy replica of the front end's delay estimator (Sources/AudioFrontEnd/Pipeline/DelayEstimator.swift), its
long cross-spectrum and first estimate only (no presence verdict, challenge, tracker or drift): what each update's
phase-transformed correlation peaks at and how confidently, and which update gives the first estimate under a
confidence rule. For diagnosis: it answers in seconds what a change of the first-estimate rule does over a
hundred scenes, before the Swift code is touched; the figures that count are the front end's (`evaluate.py`).

Per update (every 512 analysis samples at about 4 kHz while the reference plays in at least a fifth of the 10 ms
frames): the mic window (2048 samples ending `margin` before the newest) against the reference segment (the lags
plus twice the margin), cross-spectrum accumulated with a 4 s memory, whitened, transformed back; confidence =
highest peak over the mean magnitude over the lags 0-1000 ms; the lag = the earliest local peak within 30 ms before
the highest that stands at least 0.6 of it. The first estimate: two confident updates in a row within 2 ms.

    .venv/bin/python Scripts/scenarios/delay_replica.py 'out/scenarios/tune/*' ['out/extra-echo/tune/*' ...]
        [--until 6] [--margin 128] [--pairs]

prints, per scene with an echo, the first estimate under the front end's flat threshold (9) and under the early
schedule (`early_threshold`) against the truth, and a summary; `--pairs` adds no-echo pairs (each scene's mic
against the next scene's reference, same rate), where any estimate is a false one.
"""
import argparse
import glob
import json
import os

import numpy as np
import soundfile as sf

WINDOW = 2048
HOP = 512
FLAT_THRESHOLD = 9.0


def decimated(x, decimation):
    n = len(x) // decimation * decimation
    return x[:n].astype(np.float64).reshape(-1, decimation).mean(1)


def correlation_series(mic, ref, rate, margin=128, until=None, max_delay_ms=1000):
    """[(t_s, confidence, lag_ms)] per update with far end, as the front end's estimator computes them."""
    decimation = max(1, rate // 4000)
    analysis = rate // decimation
    count = min(len(mic), len(ref))
    if until is not None:
        count = min(count, int(until * rate) + rate)
    m, r = decimated(mic[:count], decimation), decimated(ref[:count], decimation)
    lags = max_delay_ms * analysis // 1000 + 1
    segment = WINDOW + lags + 2 * margin
    n = 2
    while n < segment:
        n *= 2
    forgetting = np.exp(-HOP / (4 * analysis))
    gate = 10 ** (-55 / 10) * 32768.0 ** 2
    frame = rate // 100
    back = 30 * analysis // 1000
    cross = np.zeros(n // 2 + 1, complex)
    out = []
    for end in range(HOP, len(m) + 1, HOP):
        t = end / analysis
        if until is not None and t > until:
            break
        raw = ref[(end - HOP) * decimation:end * decimation].astype(np.float64)
        frames = raw[:len(raw) // frame * frame].reshape(-1, frame)
        if (np.mean(frames ** 2, axis=1) > gate).sum() * 5 < len(frames):
            continue
        x, y = np.zeros(n), np.zeros(n)
        window = m[max(0, end - margin - WINDOW):end - margin]
        x[lags + margin + WINDOW - len(window):lags + margin + WINDOW] = window
        reference = r[max(0, end - segment):end]
        y[segment - len(reference):segment] = reference
        cross = forgetting * cross + np.fft.rfft(x) * np.conj(np.fft.rfft(y))
        magnitude = np.abs(cross)
        whitened = cross / np.sqrt(magnitude ** 2 + magnitude.max() ** 2 * 1e-12 + 1e-300)
        c = np.fft.irfft(whitened, n)[:lags]
        mean = np.abs(c).mean()
        if mean <= 0:
            continue
        highest = int(np.argmax(c))
        best = highest
        for lag in range(max(1, highest - back), highest):
            if c[lag] >= 0.6 * c[highest] and c[lag] >= c[lag - 1] and c[lag] >= c[lag + 1]:
                best = lag
                break
        out.append((t, float(c[highest] / mean), best * 1000.0 / analysis))
    return out


def flat_threshold(update):
    """The front end's first-estimate threshold today: the same at every update."""
    return FLAT_THRESHOLD


def early_threshold(update):
    """A first-estimate threshold that falls with the updates accumulated (1-based), from 28 to the flat 9: the
    chance peaks' level of no-echo pairs (see the scenario README, session 34)."""
    return max(FLAT_THRESHOLD, 9 + 19 * 2 ** (-(update - 1) / 4))


def first_estimate(series, threshold=flat_threshold):
    """(t_s, lag_ms) of the first estimate: two confident updates in a row within 2 ms; (None, None) without."""
    candidate = None
    for update, (t, confidence, lag) in enumerate(series, start=1):
        if confidence < threshold(update):
            continue
        if candidate is not None and abs(candidate - lag) <= 2:
            return t, lag
        candidate = lag
    return None, None


def load(folder):
    mic, rate = sf.read(os.path.join(folder, "mic.wav"), dtype="int16")
    ref, _ = sf.read(os.path.join(folder, "reference.wav"), dtype="int16")
    return (mic if mic.ndim == 1 else mic[:, 0]), (ref if ref.ndim == 1 else ref[:, 0]), rate


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="+", help="scene folders or glob patterns")
    p.add_argument("--until", type=float, default=6.0, help="seconds of each scene (default 6)")
    p.add_argument("--margin", type=int, default=128, help="DelayEstimator.edgeMargin (analysis samples)")
    p.add_argument("--pairs", action="store_true", help="also no-echo pairs")
    a = p.parse_args()
    folders = [f for pattern in a.folders for f in sorted(glob.glob(pattern))
               if os.path.exists(os.path.join(f, "truth.json"))]
    rules = {"flat 9": flat_threshold, "early schedule": early_threshold}
    tallies = {name: {"wrong": 0, "none": 0, "times": [], "false": 0} for name in rules}
    scenes = 0
    for folder in folders:
        truth = json.load(open(os.path.join(folder, "truth.json"))).get("delay_ms")
        mic, ref, rate = load(folder)
        if truth is None or not np.any(ref):
            continue
        scenes += 1
        series = correlation_series(mic, ref, rate, a.margin, a.until)
        cells = []
        for name, rule in rules.items():
            t, lag = first_estimate(series, rule)
            tally = tallies[name]
            if t is None:
                tally["none"] += 1
                cells.append(f"{name}: none")
                continue
            tally["times"].append(t)
            off = abs(lag - truth) > 2
            tally["wrong"] += off
            cells.append(f"{name}: {lag:7.2f} ms at {t:4.2f} s{' WRONG' if off else ''}")
        print(f"{os.path.basename(folder):24} truth {truth:7.2f} ms | " + " | ".join(cells))
    pairs = 0
    if a.pairs:
        for i, folder in enumerate(folders):
            other = folders[(i + 1) % len(folders)]
            mic, _, rate = load(folder)
            _, ref, other_rate = load(other)
            if rate != other_rate or not np.any(ref) or other == folder:
                continue
            pairs += 1
            series = correlation_series(mic, ref, rate, a.margin, a.until)
            for name, rule in rules.items():
                tallies[name]["false"] += first_estimate(series, rule)[0] is not None
    for name, tally in tallies.items():
        mean = np.mean(tally["times"]) if tally["times"] else float("nan")
        line = (f"{name}: first estimate wrong (> 2 ms off) in {tally['wrong']} of {scenes} scenes, none in "
                f"{tally['none']}, mean time {mean:.2f} s")
        if a.pairs:
            line += f"; an estimate in {tally['false']} of {pairs} no-echo pairs"
        print(line)


if __name__ == "__main__":
    main()
