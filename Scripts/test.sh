#!/usr/bin/env bash
# The test command README.md gives: installs what is missing, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh
swift test
