"""Measures the reference server's speech-synthesis speed per format (a benchmark, not a test).

For each format: one task with TEXT sent in one continue-task then finish-task; prints the time from the
continue-task to the first audio frame, the wall-clock real-time factor (continue-task → task-finished over the
seconds of audio made) and the server's CPU seconds per second of audio (its own and its children's, lame
included). Run:
  .venv/bin/python Scripts/reference-server/measure_tts_rtf.py [--voice espeak-en-us] [--sample-rate 22050]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time

import support as s
from measure_rtf import cpu_seconds
from test_tts import continue_task, decode_file, run_task
from refserver.opus import OggOpusDecoder

TEXT = ("The reference server reads this paragraph aloud. It has several sentences of ordinary length. "
        "Each one is synthesized as soon as it is complete! Would a listener notice the joins? "
        "Probably not, since every sentence ends with a pause. This is the last one.")


def children_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


async def one_task(server, audio_format: str, voice: str, rate: int) -> tuple[float, float, list[bytes]]:
    async with s.dashscope(server) as ws:
        task = s.task_id()
        await ws.send(run_task(task, voice=voice, format=audio_format, sample_rate=rate))
        await ws.recv()
        began = time.monotonic()
        await ws.send(continue_task(task, TEXT))
        await ws.send(s.finish_task(task))
        first, frames = None, []
        while True:
            item = await ws.recv()
            if isinstance(item, bytes):
                first = first or time.monotonic()
                frames.append(item)
            elif json.loads(item)["header"]["event"] in ("task-finished", "task-failed"):
                return first - began, time.monotonic() - began, frames


def seconds_of(audio_format: str, frames: list[bytes], rate: int) -> float:
    data = b"".join(frames)
    if audio_format == "pcm":
        return len(data) / 2 / rate
    if audio_format == "opus":
        return OggOpusDecoder().feed(data).size / 16000
    samples, got = decode_file(data, audio_format)
    return samples.size / got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--voice", default="espeak-en-us")
    parser.add_argument("--sample-rate", type=int, default=22050)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"voice {args.voice}, {args.sample_rate} Hz, {len(TEXT)} characters, best of {args.runs}")
    print("format  first-audio-ms  wall-RTF  cpu-RTF  audio-s")
    with s.ServerProcess() as server:
        pid = server.process.pid
        for audio_format in ("pcm", "wav", "mp3", "opus"):
            best = None
            for _ in range(args.runs):
                cpu = cpu_seconds(pid) + children_cpu(pid)
                first, wall, frames = asyncio.run(one_task(server, audio_format, args.voice, args.sample_rate))
                cpu = cpu_seconds(pid) + children_cpu(pid) - cpu
                audio = seconds_of(audio_format, frames, args.sample_rate)
                row = (first * 1000, wall / audio, cpu / audio, audio)
                best = row if best is None or row[1] < best[1] else best
            print(f"{audio_format:6}  {best[0]:14.1f}  {best[1]:8.3f}  {best[2]:7.3f}  {best[3]:7.2f}")


if __name__ == "__main__":
    main()
