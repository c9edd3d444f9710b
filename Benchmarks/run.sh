#!/usr/bin/env bash
# Runs the whole benchmark: instruction counts under callgrind (Benchmarks/callgrind.sh), then afe-bench
# (release build), and writes Benchmarks/results/latest.{json,md}. Extra arguments go to afe-bench
# (e.g. --seconds 20 --no-alternatives). Takes about 3 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p Benchmarks/results
Benchmarks/callgrind.sh --seconds 12 --automatic --json Benchmarks/results/instructions.json
bin="$(swift build -c release --show-bin-path)/afe-bench"
# Latency once more with every thread at real-time priority, as audio threads run on devices (needs root or
# CAP_SYS_NICE; skipped otherwise). The threads sleep between 10 ms pushes, so FIFO cannot starve the machine.
realtime=()
if chrt -f 10 true 2>/dev/null; then
  chrt -f 10 "$bin" latency --json Benchmarks/results/latency-realtime.json >/dev/null
  realtime=(--latency-realtime Benchmarks/results/latency-realtime.json)
fi
swift_version="$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)"
"$bin" --instructions Benchmarks/results/instructions.json --json Benchmarks/results/latest.json \
  "${realtime[@]}" --swift "${swift_version:-unknown}" "$@" | tee Benchmarks/results/latest.md
