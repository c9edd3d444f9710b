"""Measures the PocketSphinx recogniser's real-time factor through the whole server (a benchmark, not a test).

Sends flite speech as fast as the server takes it and reports server CPU seconds and wall seconds per second of
audio (real-time factor; below 1 keeps up with real time). Run:
  .venv/bin/python Scripts/reference-server/measure_rtf.py [--recognizer pocketsphinx] [--format pcm|opus]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

import support as s

SENTENCES = (
    "turn on the kitchen lights", "please set a timer for ten minutes", "what is the weather like tomorrow",
    "play some music in the living room", "remind me to call my mother at six", "turn off all the lights",
)


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recognizer", default="pocketsphinx", choices=("pocketsphinx", "deterministic"))
    parser.add_argument("--format", default="pcm", choices=("pcm", "opus"))
    parser.add_argument("--repeat", type=int, default=3, help="times the six sentences are repeated")
    args = parser.parse_args()
    pcm = b"".join(s.flite_pcm(text) for text in SENTENCES) * args.repeat
    audio_seconds = len(pcm) / 2 / s.RATE
    data = pcm if args.format == "pcm" else s.ogg_opus(pcm)
    with s.ServerProcess("--recognizer", args.recognizer) as server:
        before = cpu_seconds(server.process.pid)
        started = time.monotonic()
        messages = asyncio.run(s.dashscope_session(server, data, chunk=3200 if args.format == "pcm" else 1000,
                                                   format=args.format))
        wall = time.monotonic() - started
        cpu = cpu_seconds(server.process.pid) - before
    finals = [m for m in messages if m["header"]["event"] == "result-generated"
              and m["payload"]["output"]["sentence"]["sentence_end"]]
    print(f"recognizer {args.recognizer}, format {args.format}: {audio_seconds:.1f} s of audio, "
          f"{len(finals)} sentences")
    print(f"  server CPU {cpu:.2f} s -> CPU real-time factor {cpu / audio_seconds:.3f}")
    print(f"  wall {wall:.2f} s -> wall real-time factor {wall / audio_seconds:.3f}")
    for final in finals[:len(SENTENCES)]:
        print("  " + final["payload"]["output"]["sentence"]["text"])


if __name__ == "__main__":
    main()
