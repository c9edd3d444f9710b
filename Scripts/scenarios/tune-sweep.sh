#!/usr/bin/env bash
# The whole tuning material in one command, VAD-only (ERLE, delay, VAD; no WER): the tuning half and the extra
# renderings drawn from its pools (16 pink / babble, 14 double-talk, 20 hard echo-only, 12 path-change scenes),
# generated first when missing, scored for the systems given, then one summary line per system
# (tune_summary.py). What the defaults since 2026-12-05 were chosen on; never the test half. About 5 minutes per
# system on 2 cores once the scenes exist (rendering them all: about 10 minutes).
#   Scripts/scenarios/tune-sweep.sh OUT [evaluate.py system options]
#   e.g. Scripts/scenarios/tune-sweep.sh out/sweep-x --systems default --system 'x=--barge-in evidence-offset-db=2'
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -lt 1 ]; then sed -n '2,8p' "$0"; exit 2; fi
out=$1; shift
py=.venv/bin/python
render() { # FOLDER [generate.py extra option]
  [ -d "$1/tune" ] || $py Scripts/scenarios/generate.py --half tune --out "$1" "${@:2}"
}
render out/scenarios
render out/extra-vad --extra-vad 8
render out/extra-dt --extra-bargein 2
render out/extra-echo --extra-echo 4
render out/extra-path --extra-path 6
score() { # PART [evaluate.py options]
  $py Scripts/scenarios/evaluate.py --half tune --vad-only --jobs 2 --no-report "${args[@]}" --out "$out/$1" "${@:2}" \
    > "$out/$1.log"
}
args=("$@")
mkdir -p "$out"
score main
score vad --scenarios out/extra-vad --extra-vad 8
score dt --scenarios out/extra-dt --extra-bargein 2
score echo --scenarios out/extra-echo --extra-echo 4
score path --scenarios out/extra-path --extra-path 6 --kinds path_change
$py Scripts/scenarios/tune_summary.py "$out"
