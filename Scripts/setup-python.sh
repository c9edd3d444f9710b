#!/usr/bin/env bash
# Creates .venv at the repository root (if missing) and installs the pinned packages of the reference ASR server
# (Scripts/reference-server/requirements.txt) and of the scenario matrix (Scripts/scenarios/requirements.txt).
# Idempotent and quiet: prints nothing but errors.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
requirements=("$root/Scripts/reference-server/requirements.txt" "$root/Scripts/scenarios/requirements.txt")
stamp="$venv/.requirements.sha256"

python=python3
if ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  # Debian's python3 ships the venv module (with ensurepip) in a separate package.
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import sys" >/dev/null 2>&1; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi

wanted="$(cat "${requirements[@]}" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${requirements[@]/#/-r}"
  echo "$wanted" > "$stamp"
fi
