"""Tests of the reference server's DashScope (family A) endpoint, its command line, TLS and PocketSphinx.

Run: .venv/bin/python -m unittest discover -s Scripts/reference-server -p 'test_*.py'
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import unittest

from websockets.exceptions import ConnectionClosed, InvalidStatus

import support as s
from refserver.ogg import ogg_crc
from refserver.recognizers import WORD_LIST

DOC_RESULT_SENTENCE_KEYS = {"begin_time", "end_time", "text", "heartbeat", "sentence_end", "words"}
DOC_WORD_KEYS = {"begin_time", "end_time", "text", "punctuation"}


def run(coroutine):
    return asyncio.run(coroutine)


def nato(first: int, count: int) -> list[str]:
    return [WORD_LIST[(first + j) % len(WORD_LIST)] for j in range(count)]


class DashScopeSessionTests(s.ServerTestCase):

    def check_header(self, message: dict, task: str, event: str) -> None:
        self.assertEqual(set(message["header"]), {"task_id", "event", "attributes"}, message)
        self.assertEqual(message["header"]["task_id"], task)
        self.assertEqual(message["header"]["event"], event)
        self.assertEqual(message["header"]["attributes"], {})

    def test_pcm_session_events_match_the_documented_shapes(self):
        messages = run(s.dashscope_session(self.server, s.tone_bursts()))
        task = messages[0]["header"]["task_id"]
        self.check_header(messages[0], task, "task-started")
        self.assertEqual(messages[0]["payload"], {})
        self.check_header(messages[-1], task, "task-finished")
        self.assertEqual(messages[-1]["payload"], {"output": {}, "usage": None})
        results = messages[1:-1]
        finals = [m["payload"]["output"]["sentence"] for m in results if m["payload"]["output"]["sentence"]["sentence_end"]]
        # Exact, from the segmentation rule: bursts [500, 1700) and [3500, 4200) ms; one word per started 300 ms.
        self.assertEqual([(f["sentence_id"], f["begin_time"], f["end_time"]) for f in finals],
                         [(1, 500, 1700), (2, 3500, 4200)])
        self.assertEqual(finals[0]["text"], " ".join(nato(0, 4)) + ".")
        self.assertEqual(finals[1]["text"], " ".join(nato(3, 3)) + ".")
        self.assertEqual([(w["begin_time"], w["end_time"]) for w in finals[0]["words"]],
                         [(500, 800), (800, 1100), (1100, 1400), (1400, 1700)])
        self.assertEqual([w["punctuation"] for w in finals[1]["words"]], ["", "", "."])
        usages = [m["payload"]["usage"] for m in results if m["payload"]["output"]["sentence"]["sentence_end"]]
        self.assertEqual(usages, [{"duration": 3}, {"duration": 6}])  # audio processed at each sentence end
        for message in results:
            self.check_header(message, task, "result-generated")
            self.assertEqual(set(message["payload"]), {"output", "usage"})
            sentence = message["payload"]["output"]["sentence"]
            self.assertEqual(set(sentence), DOC_RESULT_SENTENCE_KEYS | {"sentence_id", "sentence_begin"}, sentence)
            self.assertFalse(sentence["heartbeat"])
            for word in sentence["words"]:
                self.assertEqual(set(word), DOC_WORD_KEYS)
            if not sentence["sentence_end"]:
                self.assertIsNone(sentence["end_time"])
                self.assertIsNone(message["payload"]["usage"])
        for index, final in enumerate(finals, start=1):
            partials = [m["payload"]["output"]["sentence"] for m in results
                        if m["payload"]["output"]["sentence"]["sentence_id"] == index
                        and not m["payload"]["output"]["sentence"]["sentence_end"]]
            self.assertGreaterEqual(len(partials), 2, f"sentence {index}")
            self.assertEqual([p["sentence_begin"] for p in partials], [True] + [False] * (len(partials) - 1))
            lengths = [len(p["words"]) for p in partials]
            self.assertEqual(lengths, sorted(lengths), f"partials of sentence {index} must grow")
            for partial in partials:
                self.assertTrue(final["text"].startswith(partial["text"]), (partial["text"], final["text"]))

    def test_results_do_not_depend_on_chunking(self):
        audio = s.tone_bursts()
        small = run(s.dashscope_session(self.server, audio, chunk=1000))
        large = run(s.dashscope_session(self.server, audio, chunk=16000))
        strip = lambda messages: [m["payload"] for m in messages]
        self.assertEqual(strip(small), strip(large))

    def test_paraformer_has_no_sentence_begin_and_punctuation_can_be_disabled(self):
        messages = run(s.dashscope_session(self.server, s.tone_bursts(), model="paraformer-realtime-v2",
                                           punctuation_prediction_enabled=False, language_hints=["en"]))
        sentences = [m["payload"]["output"]["sentence"] for m in messages[1:-1]]
        self.assertTrue(all(set(x) == DOC_RESULT_SENTENCE_KEYS | {"sentence_id"} for x in sentences))
        self.assertEqual(sentences[-1]["text"], " ".join(nato(3, 3)))

    def test_max_sentence_silence_splits_sentences(self):
        bursts = ((0.5, 1.0), (1.5, 2.0))  # a 500 ms pause
        audio = s.tone_bursts(bursts=bursts, seconds=3.5)
        default = run(s.dashscope_session(self.server, audio))
        short = run(s.dashscope_session(self.server, audio, max_sentence_silence=400))
        ends = lambda ms: [(m["payload"]["output"]["sentence"]["begin_time"], m["payload"]["output"]["sentence"]["end_time"])
                           for m in ms[1:-1] if m["payload"]["output"]["sentence"]["sentence_end"]]
        self.assertEqual(ends(default), [(500, 2000)])
        self.assertEqual(ends(short), [(500, 1000), (1500, 2000)])

    def test_8k_pcm_is_resampled_with_the_same_timing(self):
        audio = s.tone_bursts(rate=8000)
        messages = run(s.dashscope_session(self.server, audio, model="paraformer-realtime-8k-v2", sample_rate=8000))
        finals = [m["payload"]["output"]["sentence"] for m in messages[1:-1]
                  if m["payload"]["output"]["sentence"]["sentence_end"]]
        self.assertEqual([(f["begin_time"], f["end_time"]) for f in finals], [(500, 1700), (3500, 4200)])
        self.assertEqual(finals[0]["emo_tag"], "neutral")

    def test_wav_stream_is_accepted(self):
        messages = run(s.dashscope_session(self.server, s.wav_bytes(s.tone_bursts()), chunk=1024, format="wav"))
        finals = [m["payload"]["output"]["sentence"] for m in messages[1:-1]
                  if m["payload"]["output"]["sentence"]["sentence_end"]]
        self.assertEqual([(f["begin_time"], f["end_time"]) for f in finals], [(500, 1700), (3500, 4200)])

    def test_ogg_opus_session_matches_pcm_timing(self):
        pcm = s.flite_pcm("turn on the kitchen lights")
        opus = s.ogg_opus(pcm)
        from_pcm = run(s.dashscope_session(self.server, pcm))
        from_opus = run(s.dashscope_session(self.server, opus, chunk=700, format="opus"))
        self.assertEqual(from_opus[-1]["header"]["event"], "task-finished", from_opus[-1])
        finals = lambda ms: [m["payload"]["output"]["sentence"] for m in ms[1:-1]
                             if m["payload"]["output"]["sentence"]["sentence_end"]]
        self.assertEqual(len(finals(from_opus)), 1)
        for a, b in zip(finals(from_pcm), finals(from_opus)):
            self.assertLessEqual(abs(a["begin_time"] - b["begin_time"]), 60, (a, b))
            self.assertLessEqual(abs(a["end_time"] - b["end_time"]), 60, (a, b))

    def test_connection_reuse_needs_a_new_task_id(self):
        async def scenario():
            async with s.dashscope(self.server) as ws:
                first = s.task_id()
                for task in (first, s.task_id()):
                    await ws.send(s.run_task(task))
                    self.assertEqual((await s.recv_json(ws))["header"]["event"], "task-started")
                    for piece in s.chunks(s.tone_bursts(), 3200):
                        await ws.send(piece)
                    await ws.send(s.finish_task(task))
                    messages = await s.until(ws, ("task-finished", "task-failed"))
                    self.assertEqual(messages[-1]["header"]["event"], "task-finished")
                    self.assertEqual(messages[-1]["header"]["task_id"], task)
                await ws.send(s.run_task(first))
                failed = await s.expect_failure(ws)
                self.assertEqual(failed["header"]["error_code"], "CLIENT_ERROR")
                self.assertIn("Duplicate task_id", failed["header"]["error_message"])
        run(scenario())

    def test_continue_task_updates_context_mid_task(self):
        context = [{"role": "user", "content": [{"type": "input_text", "text": "hello"}]},
                   {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}]

        async def scenario():
            async with s.dashscope(self.server) as ws:
                task = s.task_id()
                await ws.send(s.run_task(task, input_={"context": context}))
                await s.recv_json(ws)
                await ws.send(s.silence(0.2))
                await ws.send(s.continue_task(task, context))
                await ws.send(s.finish_task(task))
                messages = await s.until(ws, ("task-finished", "task-failed"))
                self.assertEqual(messages[-1]["header"]["event"], "task-finished", messages[-1])
        run(scenario())

    def test_heartbeat_keeps_a_silent_task_alive(self):
        with s.ServerProcess("--silence-timeout", "1", "--heartbeat-interval", "1") as server:
            messages = run(s.dashscope_session(server, s.silence(3.5), heartbeat=True))
            self.assertEqual(messages[-1]["header"]["event"], "task-finished")
            beats = [m["payload"]["output"]["sentence"] for m in messages[1:-1]]
            self.assertEqual(len(beats), 3)
            for beat in beats:
                self.assertTrue(beat["heartbeat"])
                self.assertEqual((beat["sentence_id"], beat["text"]), (0, ""))
            messages = run(s.dashscope_session(server, s.silence(3.5)))
            failed = messages[-1]
            self.assertEqual(failed["header"]["event"], "task-failed")
            self.assertEqual(failed["header"]["error_code"], "RequestTimeOut")

    def test_gummy_results_carry_transcription_and_translation(self):
        messages = run(s.dashscope_session(self.server, s.tone_bursts(), model="gummy-realtime-v1",
                                           translation_enabled=True, translation_target_languages=["zh"]))
        output = messages[-2]["payload"]["output"]
        self.assertEqual(set(output), {"transcription", "translations"})
        self.assertTrue(output["transcription"]["sentence_end"])
        self.assertEqual(output["translations"][0]["lang"], "zh")
        self.assertEqual(output["translations"][0]["text"], "[zh] " + output["transcription"]["text"])


def mutated(message: str, path: str, value=None, delete: bool = False) -> str:
    data = json.loads(message)
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    if delete:
        del node[last]
    else:
        node[last] = value
    return json.dumps(data)


class PartialIntervalTests(s.ServerTestCase):
    """--partial-interval-ms: partials at 10 per second of speech (the one-hour soak's rate) instead of 5."""

    SERVER_ARGS = ("--partial-interval-ms", "100")

    def test_partials_come_at_the_interval_and_the_finals_do_not_change(self):
        messages = run(s.dashscope_session(self.server, s.tone_bursts()))
        sentences = [m["payload"]["output"]["sentence"] for m in messages[1:-1]]
        first = [x for x in sentences if x["sentence_id"] == 1 and not x["sentence_end"]]
        # Sentence 1 is 1200 ms of speech: one partial at its start, then one per 100 ms (13 in all; the default
        # 200 ms gives 7).
        self.assertEqual(len(first), 13, [x["text"] for x in first])
        finals = [x for x in sentences if x["sentence_end"]]
        self.assertEqual([(f["begin_time"], f["end_time"], f["text"]) for f in finals],
                         [(500, 1700, " ".join(nato(0, 4)) + "."), (3500, 4200, " ".join(nato(3, 3)) + ".")])

    def test_an_interval_below_one_frame_is_refused(self):
        result = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "server.py"),
                                 "--partial-interval-ms", "5"], capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--partial-interval-ms 5: at least 10", result.stderr)


class ShortPartialIntervalTests(s.ServerTestCase):
    """--partial-interval-ms 40: 25 partials per second of speech (the one-hour soak's 10 per second of audio when
    speech fills 40 % of it). Before the fix an interval of 40 ms or less gave only each sentence's first partial."""

    SERVER_ARGS = ("--partial-interval-ms", "40")

    def test_partials_come_every_40_ms(self):
        messages = run(s.dashscope_session(self.server, s.tone_bursts()))
        sentences = [m["payload"]["output"]["sentence"] for m in messages[1:-1]]
        first = [x for x in sentences if x["sentence_id"] == 1 and not x["sentence_end"]]
        # 1200 ms of speech: one partial when it opens (after 50 ms), then one per 40 ms of the rest (1 + 29).
        self.assertEqual(len(first), 30, [x["text"] for x in first])


class DashScopeValidationTests(s.ServerTestCase):
    """Every malformed or out-of-order client message gets the documented task-failed, then the socket closes."""


    def failure_after(self, *frames) -> dict:
        async def scenario():
            async with s.dashscope(self.server) as ws:
                for frame in frames:
                    try:
                        await ws.send(frame)
                    except ConnectionClosed:
                        break
                failed = await s.expect_failure(ws)
                self.assertEqual(set(failed["header"]), {"task_id", "event", "error_code", "error_message",
                                                         "attributes"})
                self.assertEqual(failed["payload"], {})
                return failed["header"]
        return run(scenario())

    def assert_invalid(self, message: str, code: str, text: str) -> None:
        header = self.failure_after(message)
        self.assertEqual(header["error_code"], code, header)
        self.assertIn(text, header["error_message"])

    def test_run_task_field_checks(self):
        task = s.task_id()
        good = s.run_task(task)
        cases = [
            ("not json {", "InvalidParameter", "not valid JSON"),
            (mutated(good, "header.action", delete=True), "InvalidParameter", "Missing required parameter 'header.action'"),
            (mutated(good, "header.action", "start-task"), "InvalidParameter", "unknown action"),
            (mutated(good, "header.task_id", "1234"), "InvalidParameter", "is not a UUID"),
            (mutated(good, "header.task_id", delete=True), "InvalidParameter", "'header.task_id'"),
            (mutated(good, "header.streaming", delete=True), "InvalidParameter", "'header.streaming'"),
            (mutated(good, "header.streaming", "out"), "InvalidParameter", "duplex"),
            (mutated(good, "payload.task_group", "aigc"), "InvalidParameter", "payload.task_group"),
            (mutated(good, "payload.task", "tts"), "InvalidParameter", "payload.task"),
            (mutated(good, "payload.function", delete=True), "InvalidParameter", "'payload.function'"),
            (mutated(good, "payload.model", delete=True), "InvalidParameter", "'payload.model'"),
            (mutated(good, "payload.model", "whisper-1"), "ModelNotFound", "whisper-1"),
            (mutated(good, "payload.input", delete=True), "InvalidParameter",
             "Missing required parameter 'payload.input'! Please follow the protocol!"),
            (mutated(good, "payload.input", []), "InvalidParameter", "Invalid payload data"),
            (mutated(good, "payload.parameters", delete=True), "InvalidParameter", "'payload.parameters'"),
            (mutated(good, "payload.parameters.format", delete=True), "InvalidParameter", "format"),
            (mutated(good, "payload.parameters.format", "flac"), "InvalidParameter", "format"),
            (mutated(good, "payload.parameters.format", "mp3"), "InvalidParameter", "decodes only"),
            (mutated(good, "payload.parameters.sample_rate", delete=True), "InvalidParameter", "sample_rate"),
            (mutated(good, "payload.parameters.sample_rate", "16000"), "InvalidParameter", "sample_rate"),
            (s.run_task(task, model="paraformer-realtime-8k-v2"), "InvalidParameter", "only 8000 Hz"),
            (s.run_task(task, max_sentence_silence=100), "InvalidParameter", "[200, 6000]"),
            (s.run_task(task, max_sentence_silence=6001), "InvalidParameter", "[200, 6000]"),
            (s.run_task(task, max_sentence_silence="800"), "InvalidParameter", "max_sentence_silence"),
            (s.run_task(task, speech_noise_threshold=1.5), "InvalidParameter", "[-1, 1]"),
            (s.run_task(task, semantic_punctuation_enabled="true"), "InvalidParameter", "boolean"),
            (s.run_task(task, heartbeat=1), "InvalidParameter", "heartbeat"),
            (s.run_task(task, multi_threshold_mode_enabled=None), "InvalidParameter", "multi_threshold"),
            (s.run_task(task, language_hints="en"), "InvalidParameter", "language_hints"),
            (s.run_task(task, model="paraformer-realtime-v2", language_hints=["xx"]), "InvalidParameter", "'xx'"),
            (s.run_task(task, vocabulary_id=5), "InvalidParameter", "vocabulary_id"),
            (s.run_task(task, vocabulary={"hi": 3}), "InvalidParameter", "Qwen-Audio"),
            (s.run_task(task, model="gummy-realtime-v1", translation_enabled=True), "InvalidParameter",
             "translation_target_languages"),
            (s.run_task(task, model="paraformer-realtime-v2", input_={"context": []}), "InvalidParameter",
             "context"),
        ]
        for message, code, text in cases:
            with self.subTest(message=message[:160]):
                self.assert_invalid(message, code, text)

    def test_order_checks(self):
        task = s.task_id()
        other = s.task_id()
        cases = [
            ((s.silence(0.1),), "CLIENT_ERROR", "before run-task"),
            ((s.finish_task(task),), "CLIENT_ERROR", "no task is running"),
            ((s.continue_task(task, []),), "CLIENT_ERROR", "no task is running"),
            ((s.run_task(task), s.finish_task(other)), "CLIENT_ERROR", "does not match"),
            ((s.run_task(task), s.run_task(other)), "CLIENT_ERROR", "is running"),
            ((s.run_task(task), b""), "InvalidParameter", "Audio frame is null"),
            ((s.run_task(task, model="paraformer-realtime-v2"),
              s.continue_task(task, [{"role": "user", "content": [{"type": "input_text", "text": "x"}]}])),
             "InvalidParameter", "not supported by model"),
            ((s.run_task(task), mutated(s.finish_task(task), "payload.input", {"end_of_stream": True})),
             "InvalidParameter", "Invalid payload data"),
            ((s.run_task(task), mutated(s.finish_task(task), "header.streaming", delete=True)),
             "InvalidParameter", "'header.streaming'"),
        ]
        for frames, code, text in cases:
            with self.subTest(frames=[f if isinstance(f, str) else f"<{len(f)} bytes>" for f in frames]):
                header = self.failure_after(*frames)
                self.assertEqual(header["error_code"], code, header)
                self.assertIn(text, header["error_message"])
                if isinstance(frames[0], str) and "run-task" in frames[0]:
                    self.assertEqual(header["task_id"], task)

    def test_broken_audio_fails_the_task(self):
        opus = s.ogg_opus(s.tone_bursts(seconds=1.0))
        bad_crc = bytearray(opus)
        bad_crc[40] ^= 0xFF
        second_page = opus.index(b"OggS", 4)
        stereo = s.ogg_opus(s.tone_bursts(seconds=1.0), channels=2)

        def patched_head(position: int, data: bytes) -> bytes:
            """The stream with bytes of its first page (OpusHead at offset 28) replaced, CRC recomputed."""
            page = bytearray(opus[:second_page])
            page[position:position + len(data)] = data
            page[22:26] = bytes(4)
            page[22:26] = ogg_crc(bytes(page)).to_bytes(4, "little")
            return bytes(page) + opus[second_page:]

        bad_wav = b"RIFX" + s.wav_bytes(s.silence(0.1))[4:]
        cases = [
            ("opus", bytes(bad_crc), "CRC mismatch"),
            ("opus", b"not an ogg stream at all", "capture pattern"),
            ("opus", opus[second_page:], "beginning-of-stream"),
            ("opus", patched_head(28, b"OpusHeaX"), "not an OpusHead"),
            ("opus", patched_head(28 + 18, b"\x01"), "mapping family 1"),
            ("opus", stereo, "mono"),
            ("opus", opus[:-10], "ends inside a page"),
            ("wav", bad_wav, "Invalid wav header"),
            ("pcm", b"\x01\x02\x03", "odd byte count"),
        ]
        for audio_format, data, text in cases:
            with self.subTest(format=audio_format, text=text):
                task = s.task_id()
                header = self.failure_after(s.run_task(task, format=audio_format), data, s.finish_task(task))
                self.assertEqual(header["error_code"], "NO_VALID_AUDIO_ERROR", header)
                self.assertIn(text, header["error_message"])


class TimeoutTests(unittest.TestCase):
    def test_no_audio_timeout_fails_the_task(self):
        with s.ServerProcess("--no-audio-timeout", "0.5") as server:
            async def scenario():
                async with s.dashscope(server) as ws:
                    await ws.send(s.run_task(s.task_id()))
                    await s.recv_json(ws)
                    failed = await s.expect_failure(ws)
                    self.assertEqual(failed["header"]["error_code"], "CLIENT_ERROR")
                    self.assertEqual(failed["header"]["error_message"], "request timeout after 0.5 seconds.")
            run(scenario())

    def test_idle_connection_is_closed(self):
        with s.ServerProcess("--idle-timeout", "0.5") as server:
            async def scenario():
                async with s.dashscope(server) as ws:
                    started = time.monotonic()
                    await asyncio.wait_for(ws.wait_closed(), 5)
                    self.assertGreaterEqual(time.monotonic() - started, 0.4)
                    self.assertEqual(ws.close_code, 1000)
            run(scenario())


class AuthenticationTests(unittest.TestCase):
    KEY = "sk-reference-test-key"

    def test_api_key_checks_and_the_key_is_never_logged(self):
        log = os.path.join(s.workdir(), "auth.log")
        with s.ServerProcess("--api-key", self.KEY, "--log", log) as server:
            async def status(path="/api-ws/v1/inference", **headers):
                try:
                    async with s.connect(server.url(path), additional_headers=headers, open_timeout=5):
                        return 101
                except InvalidStatus as error:
                    return error.response.status_code

            async def scenario():
                self.assertEqual(await status(), 401)
                self.assertEqual(await status(Authorization="Bearer wrong"), 401)
                self.assertEqual(await status(Authorization=f"Basic {self.KEY}"), 401)
                self.assertEqual(await status(Authorization=f"Bearer {self.KEY}"), 101)
                self.assertEqual(await status(Authorization=f"bearer {self.KEY}"), 101)
                self.assertEqual(await status("/api-ws/v1/inference/", Authorization=f"BEARER {self.KEY}"), 101)
                self.assertEqual(await status("/ws/v1"), 403)
                self.assertEqual(await status("/ws/v1?token=wrong"), 403)
                self.assertEqual(await status(f"/ws/v1?token={self.KEY}"), 101)
                self.assertEqual(await status("/ws/v1", **{"X-NLS-Token": self.KEY}), 101)
                self.assertEqual(await status(f"/api/ws/v1?mc={self.KEY}", **{"X-NLS-Token": "default"}), 101)
                self.assertEqual(await status("/api/ws/v1?mc=wrong", **{"X-NLS-Token": "default"}), 403)
                self.assertEqual(await status("/nowhere"), 404)
            run(scenario())
        with open(log) as file:
            text = file.read()
        self.assertIn('"status": 401', text)
        self.assertNotIn(self.KEY, text)
        self.assertNotIn(self.KEY, server.stderr)


class CommandLineTests(unittest.TestCase):
    def test_listening_line_and_exit_on_stdin_eof(self):
        with s.ServerProcess() as server:
            self.assertRegex(server.first_line, r"^LISTENING [1-9][0-9]*\n$")
            self.assertEqual(server.stop(), 0)
        self.assertEqual(server.stderr, "")

    def test_sigterm_exits_cleanly(self):
        server = s.ServerProcess("--no-exit-on-stdin-eof").__enter__()
        server.process.send_signal(signal.SIGTERM)
        self.assertEqual(server.process.wait(5), 0)
        server.stop()

    def test_non_loopback_hosts_are_refused(self):
        for host in ("0.0.0.0", "10.1.2.3", "example.com", "::"):
            result = subprocess.run([sys.executable, s.SERVER, "--host", host, "--port", "0"],
                                    capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=20)
            self.assertEqual(result.returncode, 2, host)
            self.assertEqual(result.stdout, "", host)
            self.assertIn("loopback", result.stderr)

    def test_bad_fault_specs_are_refused(self):
        for spec in ("explode", "stall:after=3", "slow-finish:delay_ms=soon"):
            result = subprocess.run([sys.executable, s.SERVER, "--fault", spec], capture_output=True, text=True,
                                    stdin=subprocess.DEVNULL, timeout=20)
            self.assertEqual(result.returncode, 2, spec)

    def test_tls(self):
        import ssl
        cert = os.path.join(s.workdir(), "cert.pem")
        key = os.path.join(s.workdir(), "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        with s.ServerProcess("--tls-cert", cert, "--tls-key", key) as server:
            context = ssl.create_default_context(cafile=cert)

            async def scenario():
                async with s.connect(server.url(scheme="wss"), ssl=context, open_timeout=5) as ws:
                    await ws.send(s.run_task(s.task_id()))
                    self.assertEqual((await s.recv_json(ws))["header"]["event"], "task-started")
            run(scenario())


class PocketSphinxTests(unittest.TestCase):
    def test_flite_command_is_recognised(self):
        sentence = "turn on the kitchen lights"
        pcm = s.flite_pcm(sentence)
        with s.ServerProcess("--recognizer", "pocketsphinx") as server:
            messages = run(s.dashscope_session(server, pcm))
            nls_messages = run(s.nls_session(server, s.ogg_opus(pcm), format="opus", chunk=500))
        finals = [m["payload"]["output"]["sentence"] for m in messages[1:-1]
                  if m["payload"]["output"]["sentence"]["sentence_end"]]
        self.assertEqual(len(finals), 1, finals)
        heard = re.sub(r"[^a-z ]", "", finals[0]["text"]).split()
        expected = sentence.split()
        right = sum(1 for word in expected if word in heard)
        self.assertGreaterEqual(right, 4, f"heard {heard!r} for {expected!r}")
        for word in finals[0]["words"]:
            self.assertLessEqual(finals[0]["begin_time"], word["begin_time"])
            self.assertLessEqual(word["begin_time"], word["end_time"])
            self.assertLessEqual(word["end_time"], finals[0]["end_time"])
        ends = [m for m in nls_messages if m["header"]["name"] == "SentenceEnd"]
        heard = ends[0]["payload"]["result"].split()
        self.assertGreaterEqual(sum(1 for word in expected if word in heard), 4, f"NLS/opus heard {heard!r}")


if __name__ == "__main__":
    unittest.main()
