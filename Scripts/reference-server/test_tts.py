"""Tests of the reference server's speech synthesis (DashScope CosyVoice task protocol, refserver/tts.py).

Run: .venv/bin/python -m unittest discover -s Scripts/reference-server -p 'test_*.py'
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import struct
import subprocess
import time
import unittest

import numpy as np
from websockets.exceptions import ConnectionClosed

import support as s
from refserver.ogg import OggPageReader, ogg_crc
from refserver.opus import OggOpusDecoder
from refserver.tts import take_sentences
from refserver.tts_audio import resample

TEXT = "Hello there, this is the reference server. It speaks a second sentence! And a third one?"


def run(coroutine):
    return asyncio.run(coroutine)


def run_task(task: str, model: str = "cosyvoice-v2", **parameters) -> str:
    params = {"text_type": "PlainText", "voice": "espeak-en-us", "format": "pcm", "sample_rate": 16000,
              "volume": 50, "rate": 1.0, "pitch": 1.0}
    params.update(parameters)
    for key in [k for k, v in params.items() if v is None]:
        del params[key]
    return json.dumps({"header": {"action": "run-task", "task_id": task, "streaming": "duplex"},
                       "payload": {"task_group": "audio", "task": "tts", "function": "SpeechSynthesizer",
                                   "model": model, "parameters": params, "input": {}}})


def continue_task(task: str, text: str) -> str:
    return json.dumps({"header": {"action": "continue-task", "task_id": task, "streaming": "duplex"},
                       "payload": {"input": {"text": text}}})


async def receive(ws, timeout: float = 10.0):
    message = await asyncio.wait_for(ws.recv(), timeout)
    return message if isinstance(message, bytes) else json.loads(message)


@contextlib.asynccontextmanager
async def started_task(server, **parameters):
    """A connection with a started synthesis task: yields (ws, task_id)."""
    async with s.dashscope(server) as ws:
        task = s.task_id()
        await ws.send(run_task(task, **parameters))
        started = await receive(ws)
        assert started["header"]["event"] == "task-started", started
        yield ws, task


async def json_until(ws, event: str) -> list[dict]:
    """The JSON messages (binary frames skipped) up to and including the first `event`."""
    messages = []
    while True:
        item = await receive(ws)
        if isinstance(item, dict):
            messages.append(item)
            if item["header"]["event"] == event:
                return messages


async def synthesis(server, texts, ws=None, **parameters) -> tuple[list, list[bytes]]:
    """One whole task: returns (every JSON message, the binary frames in order); checks each binary frame
    follows a sentence-synthesis event."""
    async def body(ws):
        task = s.task_id()
        await ws.send(run_task(task, **parameters))
        started = await receive(ws)
        assert started["header"]["event"] == "task-started", started
        for text in texts:
            await ws.send(continue_task(task, text))
        await ws.send(s.finish_task(task))
        messages, frames, previous = [started], [], None
        while True:
            item = await receive(ws)
            if isinstance(item, bytes):
                assert previous is not None and previous["payload"]["output"]["type"] == "sentence-synthesis"
                frames.append(item)
                previous = None
                continue
            messages.append(item)
            previous = item
            if item["header"]["event"] in ("task-finished", "task-failed"):
                return messages, frames
    if ws is not None:
        return await body(ws)
    async with s.dashscope(server) as ws:
        return await body(ws)


def results(messages) -> list[dict]:
    return [m["payload"]["output"] for m in messages if m["header"]["event"] == "result-generated"]


def decode_file(data: bytes, suffix: str) -> tuple[np.ndarray, int]:
    """Decodes with lame (mp3) or sox (wav) to 16-bit mono; returns samples and rate."""
    path = os.path.join(s.workdir(), f"{s.task_id()}.{suffix}")
    with open(path, "wb") as file:
        file.write(data)
    out = path + ".raw"
    if suffix == "mp3":
        wav = path + ".wav"
        subprocess.run(["lame", "--quiet", "--decode", path, wav], check=True)
        path = wav
    rate = int(subprocess.run(["soxi", "-r", path], capture_output=True, text=True, check=True).stdout)
    subprocess.run(["sox", "-V1", path, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", out], check=True)
    return np.fromfile(out, dtype="<i2"), rate


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2))) if samples.size else 0.0


class SentenceSplittingTests(unittest.TestCase):
    def test_sentences_cut_at_their_ends_and_rest_kept(self):
        self.assertEqual(take_sentences("One. Two! Thr", False), (["One.", " Two!"], " Thr"))
        self.assertEqual(take_sentences("Ends here.", False), (["Ends here."], ""))
        self.assertEqual(take_sentences("Pi is 3.14 today", False), ([], "Pi is 3.14 today"))
        self.assertEqual(take_sentences("你好。世界", True), (["你好。", "世界"], ""))
        long, rest = take_sentences("word " * 100, False)
        self.assertTrue(all(len(x) <= 300 for x in long) and len(rest) <= 300)

    def test_resampling_keeps_a_tone_and_the_length(self):
        t = np.arange(22050) / 22050
        tone = (8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
        for rate in (8000, 16000, 24000, 44100, 48000):
            out = resample(tone, 22050, rate)
            self.assertEqual(out.size, rate)
            reference = 8000 * np.sin(2 * np.pi * 440 * np.arange(rate) / rate)
            error = out[rate // 10:-rate // 10] - reference[rate // 10:-rate // 10]
            snr = 10 * np.log10(np.mean(reference ** 2) / np.mean(error ** 2))
            self.assertGreater(snr, 40, f"rate {rate}: SNR {snr:.1f} dB")


class SynthesisTests(s.ServerTestCase):

    def test_pcm_task_events_and_audio(self):
        messages, frames = run(synthesis(self.server, [TEXT[:30], TEXT[30:]]))
        task = messages[0]["header"]["task_id"]
        outputs = results(messages)
        begins = [o for o in outputs if o["type"] == "sentence-begin"]
        ends = [o for o in outputs if o["type"] == "sentence-end"]
        self.assertEqual([b["original_text"].strip() for b in begins],
                         ["Hello there, this is the reference server.", "It speaks a second sentence!",
                          "And a third one?"])
        self.assertEqual([b["sentence"]["index"] for b in begins], [0, 1, 2])
        self.assertEqual([e["original_text"] for e in ends], [b["original_text"] for b in begins])
        usage = [m["payload"]["usage"]["characters"] for m in messages if m["header"]["event"] == "result-generated"
                 and m["payload"]["output"]["type"] == "sentence-end"]
        self.assertEqual(usage[-1], len(TEXT))
        self.assertEqual(usage, sorted(usage))
        finished = messages[-1]
        self.assertEqual(finished["header"]["event"], "task-finished")
        self.assertEqual(finished["header"]["task_id"], task)
        self.assertEqual(len(finished["header"]["attributes"]["request_uuid"]), 36)
        self.assertEqual(finished["payload"]["usage"], {"characters": len(TEXT)})
        synth = [o for o in outputs if o["type"] == "sentence-synthesis"]
        self.assertEqual(len(synth), len(frames))
        audio = np.frombuffer(b"".join(frames), dtype="<i2")
        seconds = audio.size / 16000
        self.assertTrue(3.0 < seconds < 12.0, seconds)
        self.assertGreater(rms(audio), 500)
        self.assertTrue(all(len(f) <= 3200 for f in frames))

    def test_every_format_and_rate_decodes(self):
        for audio_format in ("pcm", "wav", "mp3", "opus"):
            for rate in (8000, 16000, 22050, 24000, 44100, 48000):
                with self.subTest(format=audio_format, rate=rate):
                    _, frames = run(synthesis(self.server, ["Testing one two three."], format=audio_format,
                                              sample_rate=rate))
                    data = b"".join(frames)
                    if audio_format == "pcm":
                        samples, got_rate = np.frombuffer(data, dtype="<i2"), rate
                    elif audio_format == "opus":
                        samples, got_rate = self.check_ogg_opus(frames, rate), 16000
                    else:
                        if audio_format == "wav":
                            self.assertEqual(data[:4], b"RIFF")
                            self.assertEqual(struct.unpack_from("<I", data, 24)[0], rate)
                            self.assertNotIn(b"RIFF", b"".join(frames[1:]))
                        samples, got_rate = decode_file(data, audio_format)
                    self.assertEqual(got_rate, rate if audio_format != "opus" else 16000)
                    seconds = samples.size / got_rate
                    self.assertTrue(0.8 < seconds < 4.0, f"{seconds:.2f} s")
                    self.assertGreater(rms(samples), 300)

    def check_ogg_opus(self, frames: list[bytes], rate: int) -> np.ndarray:
        """Each frame one whole Ogg page with a valid CRC; the stream valid by RFC 7845 (the server's own
        decoder checks headers, granules and end trimming)."""
        for frame in frames:
            pages = OggPageReader().feed(frame)
            self.assertEqual(len(pages), 1)
            self.assertEqual(pages[0].offset, 0)
            crc = struct.unpack_from("<I", frame, 22)[0]
            self.assertEqual(ogg_crc(frame[:22] + b"\0\0\0\0" + frame[26:]), crc)
        head = frames[0]
        self.assertEqual(head[28:36], b"OpusHead")
        self.assertEqual(struct.unpack_from("<I", head, 28 + 12)[0], rate)
        decoder = OggOpusDecoder()
        pcm = decoder.feed(b"".join(frames))
        decoder.finish()
        self.assertFalse(any(OggPageReader().feed(frame)[0].eos for frame in frames))
        return pcm

    def test_opus_stream_continues_across_sentences(self):
        _, frames = run(synthesis(self.server, ["First one. Second one. Third."], format="opus",
                                  sample_rate=24000, bit_rate=16))
        serials = {struct.unpack_from("<I", f, 14)[0] for f in frames}
        sequences = [struct.unpack_from("<I", f, 18)[0] for f in frames]
        self.assertEqual(len(serials), 1)
        self.assertEqual(sequences, list(range(len(frames))))
        self.assertEqual(sum(f[28:36] == b"OpusHead" for f in frames), 1)
        self.check_ogg_opus(frames, 24000)

    def test_volume_rate_and_pitch(self):
        def audio(**p):
            _, frames = run(synthesis(self.server, ["The quick brown fox jumps over the lazy dog."], **p))
            return np.frombuffer(b"".join(frames), dtype="<i2")
        normal, loud, quiet = audio(), audio(volume=100), audio(volume=10)
        self.assertAlmostEqual(rms(loud) / rms(normal), 2.0, delta=0.25)
        self.assertAlmostEqual(rms(quiet) / rms(normal), 0.2, delta=0.05)
        self.assertEqual(rms(audio(volume=0)), 0.0)
        fast, slow = audio(rate=2.0), audio(rate=0.5)
        self.assertLess(fast.size, normal.size * 0.7)
        self.assertGreater(slow.size, normal.size * 1.5)
        self.assertFalse(np.array_equal(audio(pitch=2.0), normal))
        for voice in ("flite-slt", "flite-kal"):
            base, quick = audio(voice=voice), audio(voice=voice, rate=2.0)
            self.assertGreater(rms(base), 300, voice)
            self.assertLess(quick.size, base.size * 0.7, voice)

    def test_word_timestamps(self):
        text = "Alpha bravo charlie. Delta echo."
        messages, frames = run(synthesis(self.server, [text], word_timestamp_enabled=True))
        ends = [o for o in results(messages) if o["type"] == "sentence-end"]
        words = [w for e in ends for w in e["sentence"]["words"]]
        self.assertEqual([w["text"] for w in words], ["Alpha", "bravo", "charlie", "Delta", "echo"])
        for end in ends:
            for w in end["sentence"]["words"]:
                self.assertEqual(end["original_text"][w["begin_index"]:w["end_index"]], w["text"])
                self.assertLess(w["begin_time"], w["end_time"])
        times = [w["begin_time"] for w in words]
        self.assertEqual(times, sorted(times))
        total_ms = len(b"".join(frames)) / 2 / 16
        self.assertLessEqual(words[-1]["end_time"], total_ms + 1)
        self.assertGreater(words[3]["begin_time"], words[2]["end_time"] - 1)  # counted from the task's start
        _, plain = run(synthesis(self.server, [text]))
        self.assertTrue(all(not o["sentence"]["words"] for o in results(_)))

    def test_cjk_characters_count_two(self):
        messages, frames = run(synthesis(self.server, ["你好。"], voice="espeak-zh"))
        self.assertEqual(messages[-1]["payload"]["usage"], {"characters": 6})  # full-width 。 counts 2 too
        self.assertGreater(len(frames), 0)

    def test_connection_reuse_and_asr_after_tts(self):
        async def scenario():
            async with s.dashscope(self.server) as ws:
                first = await synthesis(self.server, ["One."], ws=ws)
                second = await synthesis(self.server, ["Two."], ws=ws, format="mp3")
                task = s.task_id()
                await ws.send(s.run_task(task))
                started = await s.recv_json(ws)
                await ws.send(s.finish_task(task))
                finished = await s.recv_json(ws)
                return first, second, started, finished
        first, second, started, finished = run(scenario())
        self.assertEqual(first[0][-1]["header"]["event"], "task-finished")
        self.assertEqual(second[0][-1]["header"]["event"], "task-finished")
        self.assertEqual((started["header"]["event"], finished["header"]["event"]), ("task-started", "task-finished"))

    def test_new_run_task_ends_the_running_task(self):
        async def scenario():
            async with s.dashscope(self.server) as ws:
                old = s.task_id()
                await ws.send(run_task(old))
                await receive(ws)
                await ws.send(continue_task(old, "A long sentence that is still being spoken. " * 5))
                new = s.task_id()
                await ws.send(run_task(new))
                messages, _ = [], []
                while True:
                    item = await receive(ws)
                    if isinstance(item, dict):
                        messages.append(item)
                        if item["header"]["task_id"] == new and item["header"]["event"] == "task-started":
                            break
                await ws.send(continue_task(new, "New."))
                await ws.send(s.finish_task(new))
                while True:
                    item = await receive(ws)
                    if isinstance(item, dict):
                        messages.append(item)
                        if item["header"]["event"] in ("task-finished", "task-failed"):
                            return old, new, messages
        old, new, messages = run(scenario())
        self.assertEqual(messages[-1]["header"], {"task_id": new, "event": "task-finished",
                                                  "attributes": messages[-1]["header"]["attributes"]})
        self.assertFalse(any(m["header"]["task_id"] == old and m["header"]["event"] in ("task-finished",
                                                                                        "task-failed")
                             for m in messages))

    def failure(self, parameters=None, texts=(), raw=None, server=None) -> dict:
        async def scenario():
            async with s.dashscope(server or self.server) as ws:
                task = s.task_id()
                await ws.send(raw(task) if raw else run_task(task, **(parameters or {})))
                for text in texts:
                    await ws.send(continue_task(task, text))
                while True:
                    failed = await receive(ws)
                    if isinstance(failed, dict) and failed["header"]["event"] == "task-failed":
                        break
                await asyncio.wait_for(ws.wait_closed(), 5)
                self.assertEqual(failed["header"]["task_id"], task)
                return failed["header"]
        return run(scenario())

    def test_unknown_voice_is_418(self):
        header = self.failure({"voice": "nobody"})
        self.assertEqual((header["error_code"], header["error_message"]),
                         ("InvalidParameter", "[tts:]Engine return error code: 418"))

    def test_parameter_ranges(self):
        for bad in ({"volume": 101}, {"volume": -1}, {"rate": 0.4}, {"rate": 2.1}, {"pitch": 0.49},
                    {"sample_rate": 11025}, {"format": "flac"}, {"bit_rate": 5}, {"bit_rate": 511},
                    {"seed": 65536}, {"language_hints": ["xx"]}, {"enable_ssml": "yes"}, {"voice": None}):
            with self.subTest(bad=bad):
                header = self.failure(bad)
                self.assertEqual(header["error_code"], "InvalidParameter")

    def test_unknown_model_and_missing_input(self):
        header = self.failure(raw=lambda task: run_task(task, model="cosyvoice-v9"))
        self.assertEqual(header["error_code"], "ModelNotFound")

        def no_input(task):
            message = json.loads(run_task(task))
            del message["payload"]["input"]
            return json.dumps(message)
        header = self.failure(raw=no_input)
        self.assertEqual(header["error_message"], "task can not be null")

    def test_ssml_limits(self):
        header = self.failure({"enable_ssml": True}, ["<speak>One.</speak>", "<speak>Two.</speak>"])
        self.assertEqual(header["error_message"], "Text request limit violated, expected 1.")
        header = self.failure(raw=lambda task: run_task(task, model="cosyvoice-v1", enable_ssml=True))
        self.assertEqual(header["error_message"], "SSML text is not supported at the moment!")
        messages, frames = run(synthesis(self.server, ['<speak>Hello <break time="300ms"/> world.</speak>'],
                                         enable_ssml=True))
        self.assertEqual(messages[-1]["header"]["event"], "task-finished")
        self.assertGreater(len(frames), 0)

    def test_text_limits(self):
        header = self.failure(texts=["a" * 20001])
        self.assertIn("20000", header["error_message"])
        messages, frames = run(synthesis(self.server, ["a " * 10000]))  # 20,000 exactly is fine
        self.assertEqual(messages[-1]["header"]["event"], "task-finished")

    def test_binary_from_client_fails(self):
        async def scenario():
            async with started_task(self.server) as (ws, task):
                await ws.send(b"\0" * 100)
                return (await s.expect_failure(ws))["header"]
        self.assertEqual(run(scenario())["error_code"], "CLIENT_ERROR")


class SynthesisTimeoutTests(unittest.TestCase):
    def test_no_text_timeout(self):
        with s.ServerProcess("--no-text-timeout", "0.5") as server:
            async def scenario():
                async with started_task(server) as (ws, task):
                    began = time.monotonic()
                    await ws.send(continue_task(task, "Hello."))
                    messages = await json_until(ws, "task-failed")
                    return messages, time.monotonic() - began
            messages, elapsed = run(scenario())
            self.assertEqual(messages[-1]["header"]["error_message"], "request timeout after 0.5 seconds.")
            self.assertTrue(any(m["header"]["event"] == "result-generated" for m in messages))
            self.assertGreaterEqual(elapsed, 0.45)

    def test_default_timeout_is_23_seconds_in_help(self):
        out = subprocess.run([s.sys.executable, s.SERVER, "--help"], capture_output=True, text=True).stdout
        self.assertIn("--no-text-timeout", out)
        self.assertIn("(default 23)", out)


class SynthesisFaultTests(unittest.TestCase):
    def test_close_mid_stream_after_audio_bytes(self):
        for how in ("tcp", "ws"):
            with self.subTest(how=how), s.ServerProcess("--fault", f"close-mid-stream:after_bytes=20000,how={how}") as server:
                async def scenario():
                    async with started_task(server) as (ws, task):
                        await ws.send(continue_task(task, TEXT * 3))
                        await ws.send(s.finish_task(task))
                        received = 0
                        try:
                            while True:
                                item = await receive(ws)
                                if isinstance(item, bytes):
                                    received += len(item)
                                else:
                                    self.assertNotEqual(item["header"]["event"], "task-finished")
                        except ConnectionClosed:
                            return received
                received = run(scenario())
                self.assertLess(received, 20000)
                self.assertGreater(received, 0)

    def test_words_in_other_events(self):
        for place in ("sentence-synthesis", "task-finished"):
            with self.subTest(place=place), s.ServerProcess("--tts-words-in", place) as server:
                messages, _ = run(synthesis(server, ["Alpha bravo. Charlie."], word_timestamp_enabled=True))
                if place == "task-finished":
                    words = messages[-1]["payload"]["output"]["sentence"]["words"]
                else:
                    words = [w for o in results(messages) if o["type"] == "sentence-synthesis"
                             for w in o["sentence"]["words"]]
                self.assertEqual([w["text"] for w in words], ["Alpha", "bravo", "Charlie"])
                ends = [o for o in results(messages) if o["type"] == "sentence-end"]
                self.assertTrue(all(not e["sentence"]["words"] for e in ends))

    def test_task_failed_fault(self):
        with s.ServerProcess("--fault", "task-failed:after_ms=200,code=InternalError") as server:
            async def scenario():
                async with started_task(server) as (ws, task):
                    return task, (await json_until(ws, "task-failed"))[-1]
            task, failed = run(scenario())
            self.assertEqual(failed["header"]["task_id"], task)
            self.assertEqual(failed["header"]["error_code"], "InternalError")

    def test_idle_close_fault_closes_a_connection_at_its_second_run_task(self):
        with s.ServerProcess("--fault", "idle-close:times=1") as server:
            async def scenario():
                async with s.dashscope(server) as ws:
                    messages, _ = await synthesis(server, ["One."], ws=ws)
                    await ws.send(run_task(s.task_id()))
                    with self.assertRaises(ConnectionClosed) as closed:
                        await receive(ws)
                    first = (messages[-1]["header"]["event"], closed.exception.rcvd.code, closed.exception.rcvd.reason)
                async with s.dashscope(server) as ws:  # the next connection has no fault
                    messages, _ = await synthesis(server, ["Two."], ws=ws)
                    messages2, _ = await synthesis(server, ["Three."], ws=ws)
                return first, messages[-1]["header"]["event"], messages2[-1]["header"]["event"]
            first, second, third = run(scenario())
            self.assertEqual(first, ("task-finished", 1000, "idle timeout: no task"))
            self.assertEqual((second, third), ("task-finished", "task-finished"))


if __name__ == "__main__":
    unittest.main()
