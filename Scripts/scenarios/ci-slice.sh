#!/usr/bin/env bash
# CI slice of the scenario matrix (issue 12): 7 fixed test-half scenarios (3.5 min of audio), regenerated and
# checked against the recorded hashes, evaluated with the release afe (default and the baselines), the part-3
# thresholds printed; fails only on the thresholds in ci-enforced.json (those the defaults meet today), on a
# hash difference, or on the matrix's own tests (metrics, report rendered by headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
swift build -c release --product afe >/dev/null
py=.venv/bin/python
out=out/ci-scenarios
$py Scripts/scenarios/generate.py --half test --only ci --out "$out/scenarios" --check
$py Scripts/scenarios/evaluate.py --half test --only ci --scenarios "$out/scenarios" --out "$out/evaluation" \
  --enforce Scripts/scenarios/ci-enforced.json
echo "report: $out/evaluation/test/report/index.html"
$py -m unittest discover -s Scripts/scenarios -p 'test_*.py'
echo "scenario slice: $(( $(date +%s) - start )) s"
