#!/usr/bin/env bash
# Barge-in on the CI slice of the scenario matrix (issue 14 part 6), after ci-slice.sh generated it: decision
# latency on its double-talk scenes and false barge-ins on its far-end-only ones (each played once), printed, not
# enforced (the figures that count are the whole test half's: Scripts/scenarios/bargein.py --half test). ~15 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
.venv/bin/python Scripts/scenarios/bargein.py --half test --scenarios out/ci-scenarios/scenarios \
  --out out/ci-scenarios/bargein --loops 1
echo "barge-in slice: $(( $(date +%s) - start )) s"
