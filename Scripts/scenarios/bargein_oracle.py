"""What a barge-in detector could see at best: per scene, over the frames where the user talks during playback,
the mic's excess over the echo alone (from the scene's own near.wav and echo.wav, 10 ms frames), broadband and in
the seven bands of BargeInBands (each -10...20 dB): the median of the bands' mean, of the loudest band, and the
share of frames whose mean stands 3 dB over the echo (the sequential test's offset).

  .venv/bin/python Scripts/scenarios/bargein_oracle.py out/extra/tune/dt_ser-15_x1 [SCENE_DIR ...]
"""
import json
import os
import sys

import numpy as np
import soundfile as sf

EDGES = [100, 300, 600, 1000, 1600, 2500, 4000, 8000]


def band_power(x, rate):
    n = int(rate * 0.01)
    frames = x[: len(x) // n * n].reshape(-1, n) * np.hanning(n)
    spectrum = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    hz = np.fft.rfftfreq(n, 1 / rate)
    return np.stack([spectrum[:, (hz >= a) & (hz < b)].sum(1) for a, b in zip(EDGES[:-1], EDGES[1:]) if a < rate / 2],
                    1) + 1e-12


def first_channel(path):
    x, rate = sf.read(path)
    return (x[:, 0] if x.ndim > 1 else x), rate


def main():
    for scene in sys.argv[1:]:
        spec = json.load(open(os.path.join(scene, "truth.json")))["spec"]
        near, rate = first_channel(os.path.join(scene, "near.wav"))
        echo, _ = first_channel(os.path.join(scene, "echo.wav"))
        labels = np.loadtxt(os.path.join(scene, "labels.csv"), delimiter=",", skiprows=1).astype(int)
        n, e = band_power(near, rate), band_power(echo, rate)
        m = min(len(n), len(labels))
        talk = (labels[:m, 1] == 1) & (labels[:m, 2] == 1)
        bands = np.clip(10 * np.log10((n[:m] + e[:m]) / e[:m])[talk], -10, 20)
        broadband = 10 * np.log10((n[:m].sum(1) + e[:m].sum(1)) / e[:m].sum(1))[talk]
        mean = bands.mean(1)
        print(f"{os.path.basename(scene.rstrip('/')):14s} near {spec['near_voice'][1]:6s} broadband {np.median(broadband):5.1f} "
              f"band mean {np.median(mean):5.1f} loudest band {np.median(bands.max(1)):5.1f} dB, "
              f"mean > 3 dB in {np.mean(mean > 3):.2f} of {int(talk.sum())} frames")


if __name__ == "__main__":
    main()
