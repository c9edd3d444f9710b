#!/usr/bin/env bash
# The hostile-peer tests (Scripts/hostile-server/README.md) on their own:
#   bash Scripts/hostile-tests.sh            the hostile server's own Python test (about 2 s), then `afe stream`
#                                            against it as it ships: a release build of afe (about 25 s when the
#                                            release build is warm, a few minutes cold) and HostileStreamTests
#                                            with AFE_BINARY=.build/release/afe (about 50 s)
#   bash Scripts/hostile-tests.sh --all      also every Swift hostile test in the debug build (about 2.5 min; these
#                                            run in `swift test` anyway)
# Every case is bounded by its client timeout (at most 10 s with the defaults; 2 s in most tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/setup-python.sh
echo "== Hostile server self-test"
.venv/bin/python -m unittest discover -s Scripts/hostile-server -p 'test_*.py'
echo "== afe stream (release build) against the hostile server"
swift build -c release --product afe
swift build --build-tests
AFE_BINARY="$PWD/.build/release/afe" swift test --skip-build --filter 'HostileStreamTests'
if [ "${1:-}" = "--all" ]; then
  echo "== Every hostile-peer test (debug build)"
  swift test --skip-build --filter 'HostilePeerTests|HostileFloodTests|HostilePeerRecognitionTests|HostilePeerNuiTests|HostileStreamTests'
fi
