#!/usr/bin/env bash
# Barge-in's tuning material in one command, closed loop (bargein.py): the tuning half, its extra renderings (14
# double-talk and rate, 20 hard echo-only, 16 more soft-clipping / small-loudspeaker, 12 path-change scenes) and
# renderings whose far ends speak voices of neither half (14 double-talk and rate, 20 hard echo-only), rendered
# first when missing; then one line (bargein_summary.py): onsets missed and the median over them all (a miss counts
# as never), false barge-ins per part. What the pitch veto (session 31) was chosen on; never the test half. About
# 5 minutes per setting on 2 cores once the scenes exist.
#   Scripts/scenarios/bargein-tune.sh OUT AFE ["afe process options"]
#   e.g. Scripts/scenarios/bargein-tune.sh out/bt-x .build/release/afe "--barge-in pitch=0.5"
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -lt 2 ]; then sed -n '2,9p' "$0"; exit 2; fi
out=$1 afe=$2 args=${3:-}
py=.venv/bin/python
render() { # FOLDER [generate.py options]
  [ -d "$1/tune" ] || $py Scripts/scenarios/generate.py --half tune --out "$1" "${@:2}" > /dev/null
}
nonlinear=$(for k in 5 6 7 8 9 10 11 12; do printf "echo_softclip_x%s,echo_small_speaker_x%s," $k $k; done)
render out/scenarios
render out/extra-dt --extra-bargein 2
render out/extra-echo --extra-echo 4
render out/extra-echo2 --extra-echo 12 --only "${nonlinear%,}"
render out/extra-path --extra-path 6
render out/extra-voices-dt --extra-bargein 2 --far-voices other
render out/extra-voices --extra-echo 4 --far-voices other
mkdir -p "$out"
run() { # PART [bargein.py options]
  $py Scripts/scenarios/bargein.py --half tune --afe "$afe" --args "$args" --out "$out/$1" "${@:2}" > "$out/$1.log"
}
run tune
run dt --scenarios out/extra-dt --part interrupts
run vdt --scenarios out/extra-voices-dt --part interrupts
run echo --scenarios out/extra-echo --part echo
run echo2 --scenarios out/extra-echo2 --part echo
run voices --scenarios out/extra-voices --part echo
run path --scenarios out/extra-path --part echo
$py Scripts/scenarios/bargein_summary.py "$out" "$args"
