#!/usr/bin/env python3
"""WER on the user's interrupting speech (issue 14 part 6): the recognizer's WER on the front end's output of
every scene where the user talks over the playback (the interrupt scenes of bargein.py), against its WER on the
same speech without playback (the scene's near.wav + noise.wav, the mic had the device been silent, through the
same front end without a reference). The issue asks for at most +10 points. The judge is asr.py's (`--asr-judge`,
task by default); words are pooled over the scenes (errors / reference words).

  .venv/bin/python Scripts/scenarios/bargein_wer.py --half tune [--afe .build/release/afe] [--out out/bargein-wer]"""
import argparse
import json
import os

import numpy as np
import soundfile as sf

import asr
import bargein
import metrics
import synth


def output_wer(afe, mic, reference, out_dir, transcript, cache):
    bargein.run_afe(afe, mic, reference, [], out_dir)
    x, rate = sf.read(os.path.join(out_dir, "out.wav"), dtype="float64", always_2d=True)
    text = asr.recognize(synth.resample(x[:, 0], rate, asr.RATE), cache_dir=cache)
    return metrics.wer(transcript, text), len(asr.words(transcript))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", required=True, choices=["tune", "test"])
    ap.add_argument("--scenarios", default=os.path.join(bargein.ROOT, "out", "scenarios"))
    ap.add_argument("--afe", default=os.path.join(bargein.ROOT, ".build", "release", "afe"))
    ap.add_argument("--out", default=os.path.join(bargein.ROOT, "out", "bargein-wer"))
    ap.add_argument("--asr-judge", default="task", choices=asr.JUDGES)
    a = ap.parse_args()
    asr.use(a.asr_judge)
    out, cache = os.path.join(a.out, a.half), os.path.join(a.out, "asr-cache")
    totals = {"playback": 0.0, "silent": 0.0, "words": 0}
    scenes = {}
    for sid, d, truth in bargein.scenes(os.path.join(a.scenarios, a.half)):
        if not truth["near_speech"] or not truth["echo_active"]:
            continue
        transcript = truth["near_transcript"]
        played, n = output_wer(a.afe, os.path.join(d, "mic.wav"), os.path.join(d, "reference.wav"),
                               os.path.join(out, sid, "playback"), transcript, cache)
        near, rate = sf.read(os.path.join(d, "near.wav"), dtype="float64", always_2d=True)
        noise, _ = sf.read(os.path.join(d, "noise.wav"), dtype="float64", always_2d=True)
        k = min(len(near), len(noise))
        silent_mic = os.path.join(out, sid, "silent-mic.wav")
        os.makedirs(os.path.dirname(silent_mic), exist_ok=True)
        sf.write(silent_mic, np.clip(near[:k, 0] + noise[:k, 0], -1, 1), rate, subtype="PCM_16")
        silent, _ = output_wer(a.afe, silent_mic, None, os.path.join(out, sid, "silent"), transcript, cache)
        scenes[sid] = {"wer_playback": played, "wer_silent": silent, "words": n}
        for key, value in (("playback", played), ("silent", silent)):
            totals[key] += value * n
        totals["words"] += n
        print(f"{sid:12s} WER with playback {played * 100:5.1f} %  without {silent * 100:5.1f} %  ({n} words)", flush=True)
    summary = {"wer_playback_pct": 100 * totals["playback"] / max(1, totals["words"]),
               "wer_silent_pct": 100 * totals["silent"] / max(1, totals["words"]), "words": totals["words"]}
    summary["difference_points"] = summary["wer_playback_pct"] - summary["wer_silent_pct"]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bargein_wer.json"), "w") as f:
        json.dump({"half": a.half, "judge": a.asr_judge, "scenes": scenes, "summary": summary}, f, indent=1)
    print("wer_summary", json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in summary.items()}))


if __name__ == "__main__":
    main()
