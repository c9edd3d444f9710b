#!/usr/bin/env bash
# Runs the whole benchmark: instruction counts under callgrind (Benchmarks/callgrind.sh), then afe-bench
# (release build), and writes Benchmarks/results/latest.{json,md}. Extra arguments go to afe-bench
# (e.g. --seconds 20 --no-alternatives). Takes about 3 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p Benchmarks/results
Benchmarks/callgrind.sh --seconds 12 --automatic --json Benchmarks/results/instructions.json
bin="$(swift build -c release --show-bin-path)/afe-bench"
swift_version="$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)"
"$bin" --instructions Benchmarks/results/instructions.json --json Benchmarks/results/latest.json \
  --swift "${swift_version:-unknown}" "$@" | tee Benchmarks/results/latest.md
