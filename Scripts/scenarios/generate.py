#!/usr/bin/env python3
"""Writes the scenario matrix with ground truth, deterministically (bit for bit with the same tools).

  .venv/bin/python Scripts/scenarios/generate.py --half test [--only ID,ID] [--out out/scenarios] [--check]

Per scenario, in OUT/HALF/ID/: mic.wav (1 or 2 channels), reference.wav (as played; absent without a far end),
near.wav (clean near end as it reaches the mic), echo.wav (echo alone), noise.wav (noise + floor alone),
labels.csv (per 10 ms: frame, near-end speech, echo active) and truth.json (spec, room, delay, drift, levels,
transcript, intervals). --extra-bargein N writes, instead of the matrix, N extra renderings of each barge-in scene
(double talk at every SER and rate_16k, ids ID_x1..ID_xN, new seeds, the half's own pools: matrix.extra_bargein) —
barge-in tuning material with more interruptions, tuning half only, into a folder of your own (never the shared
matrix), e.g. `--half tune --extra-bargein 2 --out out/extra`; score it with `bargein.py --half tune --scenarios
out/extra`. --extra-vad N does the same for the two VAD-in-noise scenes (pink 0 dB, babble 10 dB:
matrix.extra_vad), e.g. `--half tune --extra-vad 4 --out out/extra-vad`; score it with `evaluate.py --half tune
--scenarios out/extra-vad --vad-only`. --extra-echo N: the same for the hard echo-only scenes (music, speech+music, softclip, small speaker,
RT60 0.9 s: matrix.extra_echo), false barge-in material: `bargein.py --half tune --part echo --scenarios DIR`.
--far-voices other (with --extra-bargein or --extra-echo): their far ends speak voices of neither half
(matrix.OTHER_FAR_VOICES; ids ID_vK), e.g. `--half tune --extra-echo 4 --far-voices other --out out/extra-voices`.
--extra-path N: the same
for the two echo-path-change scenes (matrix.extra_path; the K-th pair in the K-th of living, bedroom, kitchen, meeting),
reconvergence material: `evaluate.py --half tune --scenarios DIR --vad-only --kinds path_change`. --check compares every file's SHA-256 with Scripts/scenarios/hashes/HALF.json and exits 1
on a difference; --write-hashes records them."""
import argparse
import hashlib
import json
import os
import subprocess
import sys
from multiprocessing import Pool

import numpy as np
import soundfile as sf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import matrix  # noqa: E402
import render  # noqa: E402
import synth  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write_scenario(args):
    spec, out = args
    d = os.path.join(out, spec["half"], spec["id"])
    os.makedirs(d, exist_ok=True)
    signals, labels, echo_active, truth = render.render(spec)
    files = {}
    for name, x in signals.items():
        path = os.path.join(d, name + ".wav")
        sf.write(path, synth.quantize(x), spec["rate"], subtype="PCM_16", format="WAV")
        files[name + ".wav"] = sha256(path)
    with open(os.path.join(d, "labels.csv"), "w") as f:
        f.write("frame,near_speech,echo_active\n")
        for i, (a, e) in enumerate(zip(labels, echo_active)):
            f.write(f"{i},{int(a)},{int(e)}\n")
    files["labels.csv"] = sha256(os.path.join(d, "labels.csv"))
    truth["files"] = files
    truth["tools"] = tool_versions()
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1, ensure_ascii=False)
    return spec["id"], files


_VERSIONS = None


def tool_versions():
    global _VERSIONS
    if _VERSIONS is None:
        import pyroomacoustics
        import scipy
        flite = subprocess.run(["flite", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
        espeak = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True).stdout
        _VERSIONS = {"numpy": np.__version__, "scipy": scipy.__version__, "pyroomacoustics": pyroomacoustics.__version__,
                     "soundfile": sf.__version__, "flite": flite[-1].strip() if flite else "?",
                     "espeak-ng": espeak.split("Data at")[0].strip()}
    return _VERSIONS


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--half", choices=["test", "tune"], required=True)
    p.add_argument("--only", help="comma-separated scenario ids (default: the whole half); 'ci' = the CI slice")
    p.add_argument("--out", default=os.path.join(ROOT, "out", "scenarios"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--check", action="store_true", help="compare hashes with hashes/HALF.json; exit 1 on a difference")
    p.add_argument("--extra-bargein", type=int, default=0, metavar="N",
                   help="write N extra renderings of each barge-in scene (tuning half only, no hashes) instead")
    p.add_argument("--extra-vad", type=int, default=0, metavar="N",
                   help="write N extra renderings of each VAD-in-noise scene (tuning half only, no hashes) instead")
    p.add_argument("--extra-echo", type=int, default=0, metavar="N",
                   help="write N extra renderings of each hard echo-only scene (tuning half only, no hashes) instead")
    p.add_argument("--extra-path", type=int, default=0, metavar="N",
                   help="write N extra renderings of each echo-path-change scene (tuning half only, no hashes) instead")
    p.add_argument("--far-voices", choices=["half", "other"], default="half",
                   help="--extra-bargein / --extra-echo: far ends from the half's pool (ids ID_xK) or from voices of "
                        "neither half (matrix.OTHER_FAR_VOICES, ids ID_vK)")
    p.add_argument("--write-hashes", action="store_true", help="record the hashes in hashes/HALF.json")
    a = p.parse_args()
    ids = None
    if a.only:
        ids = matrix.CI_SLICE if a.only == "ci" else a.only.split(",")
    extra = a.extra_bargein or a.extra_vad or a.extra_echo or a.extra_path
    if extra:
        if sum(1 for n in (a.extra_bargein, a.extra_vad, a.extra_echo, a.extra_path) if n) > 1:
            sys.exit("generate: one of --extra-bargein, --extra-vad, --extra-echo, --extra-path")
        if a.half != "tune" or a.check or a.write_hashes:
            sys.exit("generate: --extra-* renderings are tuning material: --half tune, without --check or --write-hashes")
        if os.path.realpath(a.out) == os.path.realpath(os.path.join(ROOT, "out", "scenarios")):
            sys.exit("generate: --extra-* renderings need their own --out (not the matrix's folder)")
    others = matrix.OTHER_FAR_VOICES if a.far_voices == "other" else None
    if others and not (a.extra_bargein or a.extra_echo):
        sys.exit("generate: --far-voices other goes with --extra-bargein or --extra-echo")
    if a.extra_bargein:
        specs = matrix.extra_bargein(a.half, a.extra_bargein, others)
    elif a.extra_vad:
        specs = matrix.extra_vad(a.half, a.extra_vad)
    elif a.extra_echo:
        specs = matrix.extra_echo(a.half, a.extra_echo, others)
    elif a.extra_path:
        specs = matrix.extra_path(a.half, a.extra_path)
    else:
        specs = matrix.by_id(a.half, ids)
    if extra and ids:
        specs = [s for s in specs if s["id"] in set(ids)]
    if not extra and ids and len(specs) != len(set(ids)):
        sys.exit(f"generate: unknown scenario id in {ids}")
    jobs = [(s, a.out) for s in specs]
    if a.jobs > 1:
        with Pool(a.jobs) as pool:
            results = dict(pool.map(write_scenario, jobs, chunksize=1))
    else:
        results = dict(map(write_scenario, jobs))
    hash_file = os.path.join(HERE, "hashes", a.half + ".json")
    status = 0
    if a.check:
        with open(hash_file) as f:
            recorded = json.load(f)
        for sid, files in results.items():
            if recorded.get(sid) != files:
                print(f"generate: {a.half}/{sid}: files differ from {os.path.relpath(hash_file, ROOT)}", file=sys.stderr)
                status = 1
        if status == 0:
            print(f"generate: {len(results)} scenarios of the {a.half} half match their recorded hashes")
    if a.write_hashes:
        recorded = {}
        if os.path.exists(hash_file):
            with open(hash_file) as f:
                recorded = json.load(f)
        recorded.update(results)
        order = [s["id"] for s in matrix.scenarios(a.half)]
        recorded = {k: recorded[k] for k in order if k in recorded}
        os.makedirs(os.path.dirname(hash_file), exist_ok=True)
        with open(hash_file, "w") as f:
            json.dump(recorded, f, indent=1)
            f.write("\n")
    print(f"generate: wrote {len(results)} scenarios to {os.path.join(a.out, a.half)}")
    sys.exit(status)


if __name__ == "__main__":
    main()
