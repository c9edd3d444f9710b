#!/usr/bin/env bash
# The README's test command: installs what is missing, runs every Swift test, the concurrency stress test
# again under ThreadSanitizer, and the reference server's own tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh
bash Scripts/setup-python.sh # the reference server the streaming client's tests start
swift test
echo "== Concurrency stress test under ThreadSanitizer"
swift test --sanitize=thread --scratch-path .build/tsan --filter 'FrontEndConcurrencyTests|CallbackReentrancyTests|StateTableTests'
if [ -f Scripts/reference-server/test_server.py ]; then
  echo "== Reference server tests"
  .venv/bin/python -m unittest discover -s Scripts/reference-server -p 'test_*.py'
fi
