#!/usr/bin/env python3
"""WER on the user's interrupting speech (issue 14 part 6): the recognizer's WER on the front end's output of
every scene where the user talks over the playback (the interrupt scenes of bargein.py), against its WER on the
same speech without playback (the scene's near.wav + noise.wav, the mic had the device been silent, through the
same front end without a reference). The issue asks for at most +10 points. The judge is asr.py's (`--asr-judge`,
task by default); words are pooled over the scenes (errors / reference words).

`--after-decision stop` (the default) scores what the device hears when it acts on its barge-in decisions as the
SDK does: the scene replayed closed loop by bargein.py (the far end stopped one device buffer after each decision
and resumed 500 ms after the user's utterance), so a talker found early is heard without the answer's echo, and a
missed one is heard over it. `continue` scores the scene as rendered, the far end playing on throughout (an app
that ignores the decision; what was reported before 2026-12-04 23:00 UTC).

  .venv/bin/python Scripts/scenarios/bargein_wer.py --half tune [--afe .build/release/afe] [--out out/bargein-wer]
      [--after-decision stop|continue] [--args "--barge-in min-ms=200"]"""
import argparse
import json
import os
import shlex

import numpy as np
import soundfile as sf

import asr
import bargein
import metrics
import synth


def output_wer(afe, mic, reference, out_dir, transcript, cache, args=(), scene=None):
    """The judge's WER on `afe`'s output; with `scene` = (scene_dir, truth), of the closed-loop replay's last run
    (bargein.closed_loop leaves its output in out_dir); returns (WER, reference words, decisions acted on)."""
    acted = []
    if scene is None:
        bargein.run_afe(afe, mic, reference, list(args), out_dir)
    else:
        acted, _, _ = bargein.closed_loop(afe, scene[0], scene[1], list(args), out_dir)
    x, rate = sf.read(os.path.join(out_dir, "out.wav"), dtype="float64", always_2d=True)
    text = asr.recognize(synth.resample(x[:, 0], rate, asr.RATE), cache_dir=cache)
    return metrics.wer(transcript, text), len(asr.words(transcript)), acted


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", required=True, choices=["tune", "test"])
    ap.add_argument("--scenarios", default=os.path.join(bargein.ROOT, "out", "scenarios"))
    ap.add_argument("--afe", default=os.path.join(bargein.ROOT, ".build", "release", "afe"))
    ap.add_argument("--out", default=os.path.join(bargein.ROOT, "out", "bargein-wer"))
    ap.add_argument("--asr-judge", default="task", choices=asr.JUDGES)
    ap.add_argument("--after-decision", default="stop", choices=["stop", "continue"],
                    help="the device stops the far end after a barge-in decision (closed loop, default) or plays on")
    ap.add_argument("--args", default="", help="extra `afe process` arguments for the playback runs")
    a = ap.parse_args()
    args = shlex.split(a.args)
    asr.use(a.asr_judge)
    out, cache = os.path.join(a.out, a.half), os.path.join(a.out, "asr-cache")
    totals = {}  # per scene kind and "all": errors with and without playback, words
    scenes = {}
    for sid, d, truth in bargein.scenes(os.path.join(a.scenarios, a.half)):
        if not truth["near_speech"] or not truth["echo_active"]:
            continue
        transcript = truth["near_transcript"]
        closed = (d, truth) if a.after_decision == "stop" else None
        played, n, acted = output_wer(a.afe, os.path.join(d, "mic.wav"), os.path.join(d, "reference.wav"),
                                      os.path.join(out, sid, "playback"), transcript, cache, args, closed)
        near, rate = sf.read(os.path.join(d, "near.wav"), dtype="float64", always_2d=True)
        noise, _ = sf.read(os.path.join(d, "noise.wav"), dtype="float64", always_2d=True)
        k = min(len(near), len(noise))
        silent_mic = os.path.join(out, sid, "silent-mic.wav")
        os.makedirs(os.path.dirname(silent_mic), exist_ok=True)
        sf.write(silent_mic, np.clip(near[:k, 0] + noise[:k, 0], -1, 1), rate, subtype="PCM_16")
        silent, _, _ = output_wer(a.afe, silent_mic, None, os.path.join(out, sid, "silent"), transcript, cache)
        scenes[sid] = {"wer_playback": played, "wer_silent": silent, "words": n, "decisions_acted_on": acted}
        for group in ("all", truth["spec"]["kind"]):
            t = totals.setdefault(group, {"playback": 0.0, "silent": 0.0, "words": 0})
            t["playback"] += played * n
            t["silent"] += silent * n
            t["words"] += n
        print(f"{sid:12s} WER with playback {played * 100:5.1f} %  without {silent * 100:5.1f} %  ({n} words, "
              f"{len(acted)} stops)", flush=True)
    pooled = {group: pooled_wer(t) for group, t in totals.items()}
    summary = dict(pooled.get("all", pooled_wer({"playback": 0, "silent": 0, "words": 0})),
                   by_kind={k: v for k, v in pooled.items() if k != "all"})
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bargein_wer.json"), "w") as f:
        json.dump({"half": a.half, "judge": a.asr_judge, "after_decision": a.after_decision, "args": a.args,
                   "scenes": scenes, "summary": summary}, f, indent=1)
    for kind, figures in summary["by_kind"].items():
        print(f"{kind:12s}", json.dumps(rounded(figures)))
    print("wer_summary", json.dumps(rounded({k: v for k, v in summary.items() if k != "by_kind"})))


def pooled_wer(t):
    """Errors over reference words with and without playback, and the difference in points."""
    figures = {"wer_playback_pct": 100 * t["playback"] / max(1, t["words"]),
               "wer_silent_pct": 100 * t["silent"] / max(1, t["words"]), "words": t["words"]}
    figures["difference_points"] = figures["wer_playback_pct"] - figures["wer_silent_pct"]
    return figures


def rounded(figures):
    return {k: round(v, 1) if isinstance(v, float) else v for k, v in figures.items()}


if __name__ == "__main__":
    main()
