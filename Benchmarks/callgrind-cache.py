#!/usr/bin/env python3
"""Per-frame cache misses from two callgrind files made with --cache-sim=yes (Benchmarks/callgrind.sh --cache).

usage: callgrind-cache.py C_FILE OURS_FILE FRAMES [--functions N]

Prints, per 10 ms frame, C vs ours: instructions, I1 misses, D1 read misses, D1 write misses and last-level
misses, in total and by object (the benchmark binary, i.e. our Swift pipeline; libwebrtc; libopus; libspeexdsp;
libm; libc and the rest), then the benchmark binary's N functions with the most I1 misses (ours).
"""
import re
import subprocess
import sys

EVENTS = ["Ir", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"]
GROUPS = [("afe-bench (our Swift code / the C harness)", "afe-bench"), ("libwebrtc_audio_processing", "libwebrtc"),
          ("libopus", "libopus"), ("libspeexdsp", "libspeexdsp"), ("libm", "libm."), ("libc, libstdc++, rest", "")]
ROW = re.compile(r"^\s*([\d,]+)\s.*?\s(\S+:.*?)(?: \[(.*)\])?$")


def annotate(path):
    """{(function, object): [counts in EVENTS order]} and the totals, from callgrind_annotate."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", "--inclusive=no", "--show=" + ",".join(EVENTS),
                           path], check=True, capture_output=True, text=True).stdout
    functions, totals = {}, None
    number = re.compile(r"([\d,]+|\.)(?: \(\s*[\d.]+%\))?")
    for line in text.splitlines():
        counts = []
        rest = line
        for _ in EVENTS:
            m = number.match(rest.lstrip())
            if not m:
                break
            counts.append(0 if m.group(1) == "." else int(m.group(1).replace(",", "")))
            rest = rest.lstrip()[m.end():]
        if len(counts) != len(EVENTS):
            continue
        rest = rest.strip()
        if rest.startswith("PROGRAM TOTALS"):
            totals = counts
            continue
        m = re.match(r"(.*?)(?: \[(.*)\])?$", rest)
        functions[(m.group(1), m.group(2) or "")] = counts
    return functions, totals


def group_of(obj):
    for name, key in GROUPS[:-1]:
        if key in obj.rsplit("/", 1)[-1]:
            return name
    return GROUPS[-1][0]


def by_group(functions):
    sums = {name: [0] * len(EVENTS) for name, _ in GROUPS}
    for (_, obj), counts in functions.items():
        sums[group_of(obj)] = [a + b for a, b in zip(sums[group_of(obj)], counts)]
    return sums


def demangle(names):
    try:
        out = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), check=True,
                             capture_output=True, text=True).stdout.splitlines()
        return out if len(out) == len(names) else names
    except (OSError, subprocess.CalledProcessError):
        return names


def main():
    c_path, ours_path, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
    top = int(sys.argv[sys.argv.index("--functions") + 1]) if "--functions" in sys.argv else 15
    c_functions, c_totals = annotate(c_path)
    ours_functions, ours_totals = annotate(ours_path)
    per = lambda v: f"{v / frames:,.0f}"
    print(f"\nCache simulation (valgrind's I1/D1 32 KiB 8-way, 64 B lines), per 10 ms frame, {frames} frames, C / ours:\n")
    print("| where | instructions | I1 misses | D1 read misses | D1 write misses | LL misses |")
    print("|---|---|---|---|---|---|")

    def row(name, c, o):
        ll = lambda v: v[4] + v[5] + v[6]
        print(f"| {name} | {per(c[0])} / {per(o[0])} | {per(c[1])} / {per(o[1])} | {per(c[2])} / {per(o[2])} "
              f"| {per(c[3])} / {per(o[3])} | {per(ll(c))} / {per(ll(o))} |")

    row("total", c_totals, ours_totals)
    c_groups, ours_groups = by_group(c_functions), by_group(ours_functions)
    for name, _ in GROUPS:
        row(name, c_groups[name], ours_groups[name])
    ours_own = sorted(((k, v) for k, v in ours_functions.items() if "afe-bench" in k[1]), key=lambda kv: -kv[1][1])[:top]
    names = demangle([k[0].split(":", 1)[-1] for k, _ in ours_own])
    print(f"\nOurs: the benchmark binary's {top} functions with the most I1 misses, per frame:\n")
    print("| I1 misses | D1 read misses | D1 write misses | instructions | function |")
    print("|---|---|---|---|---|")
    for (key, counts), name in zip(ours_own, names):
        name = name if len(name) <= 110 else name[:107] + "..."
        print(f"| {per(counts[1])} | {per(counts[2])} | {per(counts[3])} | {per(counts[0])} | `{name}` |")


if __name__ == "__main__":
    main()
