#!/usr/bin/env bash
# Counts instructions per 10 ms frame of our reference pipeline and of the bare C pipeline under valgrind's
# callgrind, on the same input, and prints the ratio ours / C. Instruction counts repeat on a noisy machine;
# wall time does not. Only the measured frames on the pushing thread are counted (--toggle-collect on
# afe_bench_measured); the drain thread, set-up and warm-up are not.
#
# usage: Benchmarks/callgrind.sh [--seconds S] [--json FILE] [--check MAX_RATIO] [--keep DIR]
#   --seconds S     audio per run after 1 s of warm-up (default 12)
#   --json FILE     also write {"ours","c","ratio","frames"} there (afe-bench --instructions reads it)
#   --check R       exit 1 when the ratio exceeds R
#   --keep DIR      keep the callgrind output files in DIR (for callgrind_annotate)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=12 json="" check="" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --json) json="$2"; shift 2 ;;
    --check) check="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
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
  log=$(valgrind --tool=callgrind --callgrind-out-file="$file" --collect-atstart=no \
          --toggle-collect=afe_bench_measured "$bin" instructions --pipeline "$1" --seconds "$((seconds + 1))" 2>/dev/null)
  local frames
  frames=$(sed -n 's/^measured_frames //p' <<<"$log")
  local total
  total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' "$file" | head -1)
  echo "$total $frames"
}

read -r c_total frames < <(count c)
read -r ours_total ours_frames < <(count ours)
[ "$frames" = "$ours_frames" ] || { echo "callgrind.sh: frame counts differ ($frames, $ours_frames)" >&2; exit 1; }
python3 - "$c_total" "$ours_total" "$frames" "$json" "$check" <<'PY'
import json, sys
c, ours, frames, path, check = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
ratio = ours / c
print(f"frames measured: {frames} (10 ms each)")
print(f"bare C pipeline: {c / frames:,.0f} instructions per 10 ms")
print(f"ours (FrontEnd): {ours / frames:,.0f} instructions per 10 ms")
print(f"ratio ours / C:  {ratio:.3f}")
if path:
    with open(path, "w") as f:
        json.dump({"ours": ours / frames, "c": c / frames, "ratio": ratio, "frames": frames}, f, indent=2)
if check and ratio > float(check):
    print(f"FAIL: ratio {ratio:.3f} > {check}")
    sys.exit(1)
PY
