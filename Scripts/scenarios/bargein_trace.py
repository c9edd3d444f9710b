#!/usr/bin/env python3
"""Per-frame band excess of a scene, as BargeInBands would see it with ideal labels (branch barge23): the mic and
the reference (shifted by the scene's delay) in the seven bands of BargeInBands (10 ms frames, 256-point FFT),
each band's reference envelope (the 1 s room's decay, 0.6 dB per frame) and path gain (1/n, then 0.01 a frame)
learned on the frames the labels call echo-only, and each band's excess of the mic over the predicted echo
(-10...20 dB); levels in dB of the windowed FFT, not dBFS. An approximation: afe learns on the frames its VAD and gate call echo-only, not on the labels.

  .venv/bin/python Scripts/scenarios/bargein_trace.py SCENE_DIR FROM_S TO_S
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bargein_oracle import EDGES, first_channel  # noqa: E402 (the same seven bands and reader)


def bands(x, rate):
    n = int(rate * 0.01)
    frames = x[: len(x) // n * n].reshape(-1, n) * np.hanning(n)
    spectrum = np.abs(np.fft.rfft(frames, 256, axis=1)) ** 2
    hz = np.fft.rfftfreq(256, 1 / rate)
    return 10 * np.log10(np.stack([spectrum[:, (hz >= a) & (hz <= b)].mean(1)
                                   for a, b in zip(EDGES[:-1], EDGES[1:])], 1) + 1e-16)


def trace(scene, decay=0.6):
    truth = json.load(open(os.path.join(scene, "truth.json")))
    mic, rate = first_channel(os.path.join(scene, "mic.wav"))
    ref, _ = first_channel(os.path.join(scene, "reference.wav"))
    shift = int(round(truth["delay_ms"] * rate / 1000)) - int(0.002 * rate)
    ref = np.concatenate([np.zeros(shift), ref])[: len(mic)]
    labels = np.loadtxt(os.path.join(scene, "labels.csv"), delimiter=",", skiprows=1).astype(int)
    m_levels, r_levels = bands(mic, rate), bands(ref, rate)
    count = min(len(m_levels), len(labels))
    m_levels, r_levels, labels = m_levels[:count], r_levels[:count], labels[:count]
    envelope, gain, learned = np.full(m_levels.shape[1], -160.0), np.zeros(m_levels.shape[1]), 0
    envelopes, excess = np.zeros_like(m_levels), np.zeros_like(m_levels)
    echo_only = (labels[:, 2] == 1) & (labels[:, 1] == 0)
    for i in range(count):
        envelope = np.maximum(r_levels[i], envelope - decay)
        envelopes[i] = envelope
        excess[i] = np.clip(m_levels[i] - envelope - gain, -10, 20)
        if echo_only[i] and m_levels[i].max() > -60 and envelope.max() > -60:
            learned += 1
            gain += max(0.01, 1 / learned) * (m_levels[i] - envelope - gain)
    return m_levels, envelopes, excess, labels


def main():
    scene, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    m_levels, envelopes, excess, labels = trace(scene)
    for i in range(int(start * 100), min(int(end * 100), len(excess))):
        print(f"{i / 100:6.2f} near {labels[i, 1]} echo {labels[i, 2]} mic {m_levels[i].max():6.1f} "
              f"ref envelope {envelopes[i].max():6.1f} excess " + " ".join(f"{v:5.1f}" for v in excess[i])
              + f" | mean {excess[i].mean():5.1f}")


if __name__ == "__main__":
    main()
