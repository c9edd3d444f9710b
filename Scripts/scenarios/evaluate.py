#!/usr/bin/env python3
"""Runs systems over a half of the scenario matrix with the release `afe process` and scores them.

  .venv/bin/python Scripts/scenarios/evaluate.py --half test [--only ID,ID|ci] [--kinds echo,near,...]
      [--systems default,webrtc,...] [--vad-only]
      [--system NAME="--ns moderate"] [--afe .build/release/afe] [--out out/evaluation] [--jobs 2]
      [--asr-judge task|general]

Systems: default (the library's defaults, no delay given), webrtc (WebRTC AEC2 alone), speex (speex MDF alone),
aecm (WebRTC AECM), raw (the mic, --aec off); --system adds a named alternative as extra `afe process` options.
Writes OUT/HALF/results.json (every metric per scenario and system), table.md / table.json (aggregates and the
part-3 thresholds) and report/index.html with a page per scenario (waveforms, spectrograms, ERLE and delay over
time, VAD against the truth)."""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from multiprocessing import Pool

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import asr  # noqa: E402
import matrix  # noqa: E402
import metrics as M  # noqa: E402
import synth  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
SYSTEMS = {"default": [], "webrtc": ["--aec", "webrtc"], "speex": ["--aec", "speex"],
           "aecm": ["--aec", "webrtc-mobile"], "raw": ["--aec", "off"]}
SINGLE_CANCELLERS = ["webrtc", "speex", "aecm"]


def load16(path):
    x, rate = sf.read(path, dtype="float64", always_2d=True)
    return synth.resample(x[:, 0], rate, M.RATE)


def run_afe(afe, scenario_dir, truth, args, out_dir, reuse=False):
    """Runs `afe process` into out_dir (or, with reuse, takes what an earlier run left there) and loads it."""
    os.makedirs(out_dir, exist_ok=True)
    done = all(os.path.exists(os.path.join(out_dir, f)) for f in ("out.wav", "vad.csv", "report.json"))
    if not (reuse and done):
        run_afe_process(afe, scenario_dir, truth, args, out_dir)
    with open(os.path.join(out_dir, "report.json")) as f:
        report = json.load(f)
    vad = np.loadtxt(os.path.join(out_dir, "vad.csv"), delimiter=",", dtype=int, ndmin=2)[:, 1].astype(bool)
    out, rate = sf.read(os.path.join(out_dir, "out.wav"), dtype="float64", always_2d=True)
    return synth.resample(out[:, 0], rate, M.RATE), vad, report


def run_afe_process(afe, scenario_dir, truth, args, out_dir):
    cmd = [afe, "process", "--mic", os.path.join(scenario_dir, "mic.wav"), "--output", os.path.join(out_dir, "out.wav"),
           "--vad-labels", os.path.join(out_dir, "vad.csv"), "--report", os.path.join(out_dir, "report.json")]
    if "reference.wav" in truth["files"]:
        cmd += ["--reference", os.path.join(scenario_dir, "reference.wav")]
    cmd += args
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"afe failed on {scenario_dir}: {' '.join(cmd)}\n{p.stderr.strip()}")


def score_system(truth, sig, labels, out, vad, report, asr_cache=None, vad_only=False):
    spec = truth["spec"]
    n = min(len(out), len(sig["mic"]))
    mic_p, out_p = M.frames_power(sig["mic"][:n]), M.frames_power(out[:n])
    noise_p = M.frames_power(sig["noise"][:n])
    f = len(mic_p)
    near, echo_active = labels["near"][:f], labels["echo"][:f]
    cls = M.frame_classes(near, echo_active)
    r = {"rtf": report.get("processing", {}).get("real_time_factor")}
    first_echo = truth["echo_active"][0][0] if truth.get("echo_active") else None
    if first_echo is not None:
        settle = 10.0 if spec["drift_ppm"] else first_echo + 3.0
        conv = cls["far_only"].copy()
        conv[:int(settle / 0.01)] = False
        if truth.get("path_change"):
            at = truth["path_change"]["at_s"]
            conv[int(at / 0.01):int((at + 2) / 0.01)] = False
        r["erle_db"] = M.erle(mic_p, out_p, conv)
        r["erle_cap_db"] = M.erle(mic_p, noise_p, conv)
        r["erle_per_s"] = M.erle_series(mic_p, out_p, cls["far_only"], 100)
        r["erle_250ms"] = M.erle_series(mic_p, out_p, cls["far_only"], 25)
        if truth.get("path_change"):
            r["reconvergence_s"] = M.reconvergence_s(mic_p, out_p, cls["far_only"], truth["path_change"]["at_s"])
        errors = M.delay_errors(report, truth)
        r["delay_series"] = [[t, e] for t, e in errors]
        late = [abs(e) for t, e in errors if t >= first_echo + 3]
        r["delay_err_ms"] = float(np.median(late)) if late else None
        r["delay_lock_s"] = M.delay_lock_s(errors, first_echo)
        far_min = cls["far_only"].sum() * 0.01 / 60
        r["far_only_min"] = round(float(far_min), 3)
        v = vad[:f]
        fo = cls["far_only"][:len(v)]
        r["vad_false_active"] = float(v[fo].mean()) if fo.sum() else None
        seg_starts = M.starts(report.get("vad_segments", []))
        r["false_starts"] = M.false_starts(seg_starts, near)
        r["false_starts_per_min"] = r["false_starts"] / far_min if far_min > 0.05 else None
    r["vad_f1"] = M.vad_scores(vad[:f], near) if spec["near"] else None
    if spec["near"]:
        segs = M.segments(report.get("vad_segments", []))
        offsets = M.onset_offsets(segs, truth["near_speech"])
        r["onset_offsets_s"] = offsets
        r["onsets_covered"] = int(sum(M.covered_onsets(segs, truth["near_speech"])))
        r["onsets_within_150ms"] = float(np.mean([o is not None and abs(o) <= 0.15 for o in offsets])) if offsets else None
        if not vad_only:
            r["pesq_wb"] = M.pesq_wb(sig["near"][:n], out[:n])
            r["stoi"] = M.stoi(sig["near"][:n], out[:n])
            r["hypothesis"] = M.recognize(out[:n], asr_cache)
            r["wer"] = M.wer(truth["near_transcript"], r["hypothesis"])
    r["vad"] = vad[:f].astype(int).tolist()
    r["delay_estimate"] = [[e["t_ms"] / 1000.0, e["delay_ms"]] for e in report.get("delay_estimate_ms", [])
                           if e.get("delay_ms") is not None]
    return r


def evaluate_scenario(job):
    afe, scenario_dir, systems, out_root, reuse, vad_only = job
    asr_cache = os.path.join(out_root, "asr-cache")
    with open(os.path.join(scenario_dir, "truth.json")) as f:
        truth = json.load(f)
    sig = {k: load16(os.path.join(scenario_dir, k + ".wav")) for k in ("mic", "near", "noise")}
    lab = np.loadtxt(os.path.join(scenario_dir, "labels.csv"), delimiter=",", skiprows=1, dtype=int, ndmin=2)
    labels = {"near": lab[:, 1].astype(bool), "echo": lab[:, 2].astype(bool)}
    result = {"id": truth["spec"]["id"], "kind": truth["spec"]["kind"], "truth": truth, "systems": {},
              "paths": {"scenario": scenario_dir, "runs": os.path.join(out_root, truth["spec"]["id"])},
              "asr_judge": asr.judge()}
    if truth["spec"]["near"] and not vad_only:
        hyp = M.recognize(sig["near"], asr_cache)
        result["clean"] = {"hypothesis": hyp, "wer": M.wer(truth["near_transcript"], hyp)}
    for name, args in systems.items():
        t0 = time.time()
        out, vad, report = run_afe(afe, scenario_dir, truth, args, os.path.join(out_root, truth["spec"]["id"], name), reuse)
        r = score_system(truth, sig, labels, out, vad, report, asr_cache, vad_only)
        r["eval_s"] = round(time.time() - t0, 2)
        result["systems"][name] = r
    return result


def parse_systems(names, extra):
    systems = {}
    for n in filter(None, names.split(",")):  # empty: only the --system alternatives
        if n not in SYSTEMS:
            sys.exit(f"evaluate: unknown system {n} (known: {', '.join(SYSTEMS)}; add others with --system NAME=ARGS)")
        systems[n] = SYSTEMS[n]
    for e in extra or []:
        name, _, args = e.partition("=")
        systems[name] = shlex.split(args)
    if not systems:
        sys.exit("evaluate: no system to run (--systems is empty and no --system NAME=ARGS was given)")
    return systems


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--half", choices=["test", "tune"], required=True)
    p.add_argument("--only", help="comma-separated scenario ids, or 'ci' for the CI slice")
    p.add_argument("--kinds", help="comma-separated scenario kinds (echo, doubletalk, vad_noise, ...)")
    p.add_argument("--systems", default="default,webrtc,speex,aecm,raw")
    p.add_argument("--system", action="append", help='a named alternative: NAME="afe process options"')
    p.add_argument("--scenarios", default=os.path.join(ROOT, "out", "scenarios"))
    p.add_argument("--out", default=os.path.join(ROOT, "out", "evaluation"))
    p.add_argument("--afe", default=os.path.join(ROOT, ".build", "release", "afe"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--no-report", action="store_true")
    p.add_argument("--reuse", action="store_true",
                   help="take afe outputs an earlier run left in OUT (same systems and afe!) and rescore them")
    p.add_argument("--asr-judge", choices=asr.JUDGES, default="task",
                   help="WER judge (asr.py): task = PocketSphinx with the matrix's command-set LM (default), "
                        "general = the bundled general LM, pruned (the judge before 2026-12-01)")
    p.add_argument("--vad-only", action="store_true",
                   help="score ERLE, delay and VAD only: no PocketSphinx WER, PESQ-WB or STOI (quick, for tuning)")
    extra_kinds = {"vad": "VAD-in-noise", "path": "path-change", "echo": "hard echo-only", "bargein": "double-talk"}
    for name, what in extra_kinds.items():
        p.add_argument(f"--extra-{name}", type=int, default=0, metavar="N",
                       help=f"score the N extra {what} renderings generate.py --extra-{name} wrote into --scenarios "
                            "(tuning half only) instead of the matrix")
    p.add_argument("--enforce", help="JSON list of threshold names that must pass (exit 1 if one fails)")
    a = p.parse_args()
    ids = matrix.CI_SLICE if a.only == "ci" else (a.only.split(",") if a.only else None)
    extra = next(((getattr(a, f"extra_{name}"), getattr(matrix, f"extra_{name}")) for name in extra_kinds
                  if getattr(a, f"extra_{name}")), None)
    if extra and a.half != "tune":
        sys.exit("evaluate: --extra-vad / --extra-path / --extra-echo / --extra-bargein are tuning material: --half tune")
    specs = extra[1](a.half, extra[0]) if extra else matrix.by_id(a.half, ids)
    if extra and ids:
        specs = [s for s in specs if s["id"] in set(ids)]
    if a.kinds:
        specs = [s for s in specs if s["kind"] in a.kinds.split(",")]
    systems = parse_systems(a.systems, a.system)
    out = os.path.join(a.out, a.half)
    jobs = [(a.afe, os.path.join(a.scenarios, a.half, s["id"]), systems, os.path.join(out, "runs"), a.reuse, a.vad_only)
            for s in specs]
    for _, d, *_ in jobs:
        if not os.path.exists(os.path.join(d, "truth.json")):
            sys.exit(f"evaluate: {d} missing; run generate.py --half {a.half} first")
    t0 = time.time()
    with Pool(a.jobs, initializer=asr.use, initargs=(a.asr_judge,)) as pool:
        results = pool.map(evaluate_scenario, jobs, chunksize=1)
    wall = time.time() - t0
    import tables
    summary = tables.write(results, systems, out, a.half, wall)
    if not a.no_report:
        import report
        report.write(results, systems, os.path.join(out, "report"))
    print(summary)
    if a.enforce:
        sys.exit(enforce(a.enforce, tables.thresholds(results, systems)))


def enforce(path, rows):
    """Exit status: 1 if a threshold listed in `path` fails or cannot be measured; prints one line per threshold."""
    with open(path) as f:
        wanted = json.load(f)["enforced"]
    by_name = {name: ok for name, _, _, ok in rows}
    status = 0
    print("Thresholds enforced in CI (those the defaults meet today; the others are reported above):")
    for name in wanted:
        ok = by_name.get(name)
        print(f"  {'pass' if ok else 'FAIL'}  {name}")
        if not ok:
            status = 1
    others = [name for name, _, _, ok in rows if name not in wanted and ok is False]
    print(f"Not enforced, failing today: {len(others)}")
    return status


if __name__ == "__main__":
    main()
