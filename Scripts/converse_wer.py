"""The recognizer's word error rate on a user who interrupts the device (issue 14 §6), measured with `afe converse`.

For each bundled user utterance (TestVectors/nearend_16k.wav, flite rms, the four requests of the manifest) in each
room below, `afe converse` runs twice against one local reference server (PocketSphinx): with the answer playing
(espeak-ng; the user starts 4 s into it and barge-in stops it) and with --no-playback (the same user in the same
room and noise, the device silent). WER counts the finals that overlap the user's speech, summed over utterances
(errors / words). The rooms are fixed here, not tuned on anything: the synthetic room of the test vectors at
three RT60s, delays and echo gains.
  .venv/bin/python Scripts/converse_wer.py [--afe .build/release/afe] [--out DIR] [--check]
--check exits 1 when the WER with playback is more than 10 points above the WER without.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOMS = [  # name, RT60 s, echo delay ms, echo gain dB, seed
    ("rt60-0.25 d40", 0.25, 40, -3, 1),
    ("rt60-0.5 d120", 0.5, 120, -3, 2),
    ("rt60-0.35 d80 +0dB", 0.35, 80, 0, 3),
]


def utterances() -> list[tuple[float, float, str]]:
    manifest = json.load(open(os.path.join(ROOT, "TestVectors", "manifest.json")))
    entry = next(v for v in manifest["vectors"] if v["file"] == "nearend_16k.wav")
    return [(start - 0.1, end + 0.2, u["text"]) for (start, end), u in zip(entry["speech"], entry["utterances"])]


def start_server(log: str) -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Scripts", "reference-server", "server.py"),
                               "--host", "127.0.0.1", "--port", "0", "--recognizer", "pocketsphinx"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    ready, _, _ = select.select([server.stdout], [], [], 30)
    line = server.stdout.readline() if ready else ""
    if not line.startswith("LISTENING "):
        server.kill()
        raise SystemExit(f"the reference server did not start; see {log}")
    return server, int(line.split()[1])


def words(text: str) -> int:
    return len([w for w in "".join(c if c.isalpha() or c == "'" else " " for c in text.lower()).split()])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--afe", default=os.path.join(ROOT, ".build", "release", "afe"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "converse-wer"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    server, port = start_server(os.path.join(args.out, "server.log"))
    url = f"ws://127.0.0.1:{port}/api-ws/v1/inference"
    totals = {"playback": [0.0, 0], "baseline": [0.0, 0]}
    decisions, position_errors, failures = [], [], []
    print(f"{'room':<20} {'utterance':<46} {'WER played':>10} {'WER silent':>10} {'decision':>9}")
    try:
        for room, rt60, delay, gain, seed in ROOMS:
            for index, (start, end, text) in enumerate(utterances()):
                row = {}
                for condition, extra in (("playback", []), ("baseline", ["--no-playback"])):
                    report = os.path.join(args.out, f"{seed}-{index}-{condition}.json")
                    command = [args.afe, "converse", "--url", url, "--user", os.path.join(ROOT, "TestVectors", "nearend_16k.wav"),
                               "--user-from", f"{start:.2f}", "--user-to", f"{end:.2f}", "--user-text", text,
                               "--rt60", str(rt60), "--echo-delay-ms", str(delay), "--echo-gain-db", str(gain),
                               "--seed", str(seed), "--report", report, "--quiet", *extra]
                    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
                    if run.returncode != 0:
                        failures.append(f"{room} {index} {condition}: {run.stderr.strip()}")
                        continue
                    result = json.load(open(report))
                    count = words(text)
                    totals[condition][0] += result["wer"] * count
                    totals[condition][1] += count
                    row[condition] = result["wer"]
                    if condition == "playback":
                        timings = result["timings"]
                        row["decision"] = timings.get("decision_after_onset_ms")
                        if row["decision"] is not None:
                            decisions.append(row["decision"])
                        if "played_position_error_ms" in timings:
                            position_errors.append(timings["played_position_error_ms"])
                decision = f"{row['decision']:.0f} ms" if row.get("decision") is not None else "none"
                print(f"{room:<20} {text[:46]:<46} {row.get('playback', float('nan')):>10.2f} "
                      f"{row.get('baseline', float('nan')):>10.2f} {decision:>9}")
    finally:
        server.stdin.close()
        server.wait(10)
    played = totals["playback"][0] / max(totals["playback"][1], 1)
    silent = totals["baseline"][0] / max(totals["baseline"][1], 1)
    print(f"WER over {totals['playback'][1]} words: {played:.3f} with the answer playing (barge-in on), "
          f"{silent:.3f} without playback: {100 * (played - silent):+.1f} points (bound +10)")
    if decisions:
        decisions.sort()
        print(f"barge-in decisions after the user's onset: {len(decisions)} of {len(ROOMS) * len(utterances())}, "
              f"median {decisions[len(decisions) // 2]:.0f} ms, max {decisions[-1]:.0f} ms")
    if position_errors:
        print(f"played position against the samples handed to the device: max error {max(position_errors):.1f} ms")
    for failure in failures:
        print("failed:", failure)
    if args.check and (failures or played > silent + 0.10 or totals["playback"][1] == 0):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
