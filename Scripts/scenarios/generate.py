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


# Recorded levels (hashes/HALF.levels.json) a regenerated file may differ from when its bytes do, dB per second.
# Bit-for-bit holds on one machine; another CPU's numpy / scipy SIMD paths (AVX2 against AVX-512) can move a float
# by far less than an LSB and so round a few samples of one file the other way (test/dt_ser-10's mic.wav, 2026-12-07,
# an AMD EPYC without AVX-512): a flip of one LSB moves a second's level by about 1e-7 dB; anything the renderer
# really changed (a voice, a room, a level, a seed) moves it by far more than this.
LEVEL_TOLERANCE_DB = 0.001


def levels(path):
    """A file's level per second (all channels), dBFS rounded to 4 decimals: what --check compares when the bytes
    differ."""
    x, rate = sf.read(path, dtype="int16", always_2d=True)
    x = x.astype(np.float64) / 32768.0
    return [round(float(10 * np.log10(np.mean(x[i:i + rate] ** 2) + 1e-20)), 4) for i in range(0, len(x), rate)]


def scene_levels(out, spec):
    d = os.path.join(out, spec["half"], spec["id"])
    return {f: levels(os.path.join(d, f)) for f in sorted(os.listdir(d)) if f.endswith(".wav")}


def compare(recorded, files, recorded_levels, file_levels):
    """(ok, files that differ in bytes but not in level): a scene matches its record when every file's hash does,
    or, for a .wav, when every second's level is within ``LEVEL_TOLERANCE_DB`` of the recorded."""
    if recorded is None or set(recorded) != set(files):
        return False, []
    rounded = []
    for name, digest in files.items():
        if recorded[name] == digest:
            continue
        want, got = (recorded_levels or {}).get(name), file_levels.get(name)
        if not name.endswith(".wav") or want is None or got is None or len(want) != len(got) \
                or any(abs(a - b) > LEVEL_TOLERANCE_DB for a, b in zip(want, got)):
            return False, []
        rounded.append(name)
    return True, rounded


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
    levels_file = os.path.join(HERE, "hashes", a.half + ".levels.json")
    status = 0
    if a.check:
        with open(hash_file) as f:
            recorded = json.load(f)
        with open(levels_file) as f:
            recorded_levels = json.load(f)
        rounded_total = []
        for spec in specs:
            sid = spec["id"]
            ok, rounded = compare(recorded.get(sid), results[sid], recorded_levels.get(sid), scene_levels(a.out, spec))
            if not ok:
                print(f"generate: {a.half}/{sid}: files differ from {os.path.relpath(hash_file, ROOT)}", file=sys.stderr)
                status = 1
            rounded_total += [f"{sid}/{name}" for name in rounded]
        if status == 0:
            print(f"generate: {len(results)} scenarios of the {a.half} half match their recorded hashes"
                  + (f" ({', '.join(rounded_total)}: their recorded levels, within {LEVEL_TOLERANCE_DB} dB a second;"
                     " the bytes differ by rounding)" if rounded_total else ""))
    if a.write_hashes:
        for path, update in ((hash_file, results), (levels_file, {s["id"]: scene_levels(a.out, s) for s in specs})):
            recorded = {}
            if os.path.exists(path):
                with open(path) as f:
                    recorded = json.load(f)
            recorded.update(update)
            order = [s["id"] for s in matrix.scenarios(a.half)]
            recorded = {k: recorded[k] for k in order if k in recorded}
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                json.dump(recorded, f, indent=1 if path == hash_file else None)
                f.write("\n")
    print(f"generate: wrote {len(results)} scenarios to {os.path.join(a.out, a.half)}")
    sys.exit(status)


if __name__ == "__main__":
    main()
