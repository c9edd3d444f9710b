#!/usr/bin/env bash
# Counts instructions per 10 ms frame of our reference pipeline and of the bare C pipeline under valgrind's
# callgrind, on the same input, and prints the ratio ours / C. Instruction counts repeat on a noisy machine;
# wall time does not. Only the measured frames on the pushing thread are counted (--toggle-collect on
# afe_bench_measured); the drain thread, set-up and warm-up are not.
#
# usage: Benchmarks/callgrind.sh [--seconds S] [--json FILE] [--check MAX_RATIO] [--keep DIR] [--cache]
#   --seconds S     audio per run after 1 s of warm-up (default 12)
#   --json FILE     also write {"ours","c","ratio","frames"} there (afe-bench --instructions reads it)
#   --check R       exit 1 when the ratio exceeds R or our measured frames allocate on the push thread
#   --keep DIR      keep the callgrind output files in DIR (for callgrind_annotate)
#   --automatic     also count our pipeline with automatic alignment (the delay estimator), for information
#   --cache         also simulate the caches (--cache-sim=yes: I1 and D1 32 KiB 8-way) and print the misses per
#                   10 ms frame, C / ours, in total and by library, and our functions with the most I1 misses
#                   (Benchmarks/callgrind-cache.py); `--seconds 6 --cache` is the 600-frame run of the README
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=12 json="" check="" keep="" automatic="" cache=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --json) json="$2"; shift 2 ;;
    --check) check="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --automatic) automatic=1; shift ;;
    --cache) cache=(--cache-sim=yes); shift ;;
    *) echo "callgrind.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || bash Scripts/install-dependencies.sh
swift build -c release --product afe-bench >/dev/null
out="${keep:-$(mktemp -d)}"
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT
# Debian 12's valgrind cannot read the DWARF the Swift toolchain writes ("Possibly corrupted debuginfo file"):
# run a copy without debug information; the symbol table (function names) stays.
bin="$out/afe-bench"
cp "$(swift build -c release --show-bin-path)/afe-bench" "$bin"
strip --strip-debug "$bin"

count() { # pipeline → instructions per measured frame, frames
  local file="$out/callgrind.$1.out"
  local log
  # --fair-sched=yes: valgrind runs one thread at a time; its default lock lets the pushing thread take it back
  # at once, which can starve the front end's drain thread (afe-bench now also waits for it, and checks that
  # every frame was processed inside the measured pushes).
  log=$(valgrind --tool=callgrind --fair-sched=yes ${cache[@]+"${cache[@]}"} --callgrind-out-file="$file" --collect-atstart=no \
          --toggle-collect=afe_bench_measured "$bin" instructions --pipeline "$1" --seconds "$((seconds + 1))" 2>/dev/null)
  local frames allocations total
  frames=$(sed -n 's/^measured_frames //p' <<<"$log")
  allocations=$(sed -n 's/^allocations //p' <<<"$log")
  total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' "$file" | head -1)
  [ -n "$total" ] && [ -n "$frames" ] || { echo "callgrind.sh: the $1 run failed" >&2; exit 1; }
  echo "$total $frames $allocations"
}

read -r c_total frames c_allocations < <(count c)
read -r ours_total ours_frames ours_allocations < <(count ours)
[ "$frames" = "$ours_frames" ] || { echo "callgrind.sh: frame counts differ ($frames, $ours_frames)" >&2; exit 1; }
automatic_total=0
[ -z "$automatic" ] || read -r automatic_total _ _ < <(count ours-automatic)
python3 - "$c_total" "$ours_total" "$frames" "$json" "$check" "$ours_allocations" "$automatic_total" <<'PY'
import json, sys
c, ours, frames, path, check = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
allocations, automatic = int(sys.argv[6]), int(sys.argv[7])
ratio = ours / c
print(f"frames measured: {frames} (10 ms each)")
print(f"bare C pipeline: {c / frames:,.0f} instructions per 10 ms")
print(f"ours (FrontEnd): {ours / frames:,.0f} instructions per 10 ms")
print(f"ratio ours / C:  {ratio:.3f}")
if automatic:
    print(f"ours with automatic alignment (delay estimator up to 1000 ms): {automatic / frames:,.0f} per 10 ms "
          f"({automatic / c:.3f} × C)")
print(f"heap allocations on our push thread in the measured frames: {allocations}")
if path:
    with open(path, "w") as f:
        result = {"ours": ours / frames, "c": c / frames, "ratio": ratio, "frames": frames}
        if automatic:
            result["oursAutomaticAlignment"] = automatic / frames
        json.dump(result, f, indent=2)
if check and (ratio > float(check) or allocations != 0):
    print(f"FAIL: ratio {ratio:.3f} (limit {check}), {allocations} allocations (limit 0)")
    sys.exit(1)
PY
[ ${#cache[@]} -eq 0 ] || python3 Benchmarks/callgrind-cache.py "$out/callgrind.c.out" "$out/callgrind.ours.out" "$frames"
