"""Tests of the reference server's NLS SpeechTranscriber endpoint (family C) and Tingwu meeting URLs."""

from __future__ import annotations

import asyncio
import json
import re
import unittest

from websockets.exceptions import ConnectionClosed

import support as s
from refserver.recognizers import WORD_LIST

ID = re.compile(r"^[0-9a-f]{32}$")


def run(coroutine):
    return asyncio.run(coroutine)


class NlsSessionTests(s.ServerTestCase):
    SERVER_ARGS = ("--nls-appkey", "testappkey")

    def check_header(self, message: dict, task: str, name: str) -> None:
        header = message["header"]
        self.assertEqual(set(header), {"message_id", "task_id", "namespace", "name", "status", "status_text",
                                       "status_message"}, header)
        self.assertRegex(header["message_id"], ID)
        self.assertEqual((header["task_id"], header["namespace"], header["name"], header["status"]),
                         (task, "SpeechTranscriber", name, 20000000))
        self.assertEqual(header["status_message"], "GATEWAY|SUCCESS|Success.")

    def test_pcm_session_event_sequence_and_shapes(self):
        messages = run(s.nls_session(self.server, s.tone_bursts(), enable_intermediate_result=True,
                                     enable_words=True, enable_punctuation_prediction=True))
        task = messages[0]["header"]["task_id"]
        names = [m["header"]["name"] for m in messages]
        for message in messages:
            self.check_header(message, task, message["header"]["name"])
        self.assertEqual(names[0], "TranscriptionStarted")
        self.assertRegex(messages[0]["payload"]["session_id"], ID)
        self.assertEqual(names[-1], "TranscriptionCompleted")
        # Each sentence: SentenceBegin, one or more TranscriptionResultChanged, SentenceEnd.
        compact = re.sub(r"(TranscriptionResultChanged,)+", "R+,", ",".join(names[1:-1]) + ",")
        self.assertEqual(compact, "SentenceBegin,R+,SentenceEnd," * 2)
        begins = [m["payload"] for m in messages if m["header"]["name"] == "SentenceBegin"]
        self.assertEqual(begins, [{"index": 1, "time": 500}, {"index": 2, "time": 3500}])
        ends = [m["payload"] for m in messages if m["header"]["name"] == "SentenceEnd"]
        self.assertEqual([(e["index"], e["begin_time"], e["time"]) for e in ends], [(1, 500, 1700), (2, 3500, 4200)])
        self.assertEqual(ends[0]["result"], " ".join(WORD_LIST[:4]) + ".")
        self.assertEqual(ends[0]["words"][0], {"text": WORD_LIST[0], "startTime": 500, "endTime": 800})
        for end in ends:
            self.assertEqual(set(end), {"index", "time", "begin_time", "result", "confidence", "words", "status"})
        for changed in (m["payload"] for m in messages if m["header"]["name"] == "TranscriptionResultChanged"):
            self.assertEqual(set(changed), {"index", "time", "result", "words", "status"})
            final = ends[changed["index"] - 1]["result"]
            self.assertTrue(final.startswith(changed["result"]), (changed, final))

    def test_defaults_send_no_intermediate_results_and_no_words(self):
        messages = run(s.nls_session(self.server, s.tone_bursts()))
        names = [m["header"]["name"] for m in messages]
        self.assertNotIn("TranscriptionResultChanged", names)
        ends = [m["payload"] for m in messages if m["header"]["name"] == "SentenceEnd"]
        self.assertEqual(ends[1]["result"], " ".join(WORD_LIST[3:6]))
        self.assertNotIn("words", ends[1])

    def test_ogg_opus_and_8k(self):
        opus = run(s.nls_session(self.server, s.ogg_opus(s.tone_bursts()), format="opus", chunk=640))
        self.assertEqual(opus[-1]["header"]["name"], "TranscriptionCompleted", opus[-1])
        ends = [m["payload"] for m in opus if m["header"]["name"] == "SentenceEnd"]
        self.assertEqual(len(ends), 2)
        for end, (begin_ms, end_ms) in zip(ends, ((500, 1700), (3500, 4200))):
            self.assertLessEqual(abs(end["begin_time"] - begin_ms), 30, end)
            self.assertLessEqual(abs(end["time"] - end_ms), 30, end)
        narrow = run(s.nls_session(self.server, s.tone_bursts(rate=8000), sample_rate=8000, chunk=1600))
        ends = [m["payload"] for m in narrow if m["header"]["name"] == "SentenceEnd"]
        self.assertEqual([(e["begin_time"], e["time"]) for e in ends], [(500, 1700), (3500, 4200)])

    def test_control_transcriber_changes_max_sentence_silence(self):
        async def scenario():
            async with s.nls(self.server) as ws:
                task = s.task_id()
                await ws.send(s.nls_message("StartTranscription", task, {"format": "pcm"}))
                await s.recv_json(ws)
                await ws.send(s.nls_message("ControlTranscriber", task, {"max_sentence_silence": 300}))
                await ws.send(s.tone_bursts(bursts=((0.5, 1.0), (1.5, 2.0)), seconds=3.0))
                await ws.send(s.nls_message("StopTranscription", task))
                messages = await s.until(ws, ("TranscriptionCompleted", "TaskFailed"), key="name")
                return [m["payload"] for m in messages if m["header"]["name"] == "SentenceEnd"]
        ends = run(scenario())
        self.assertEqual([(e["begin_time"], e["time"]) for e in ends], [(500, 1000), (1500, 2000)])

    def failure(self, *frames, path: str = "/ws/v1", server=None) -> dict:
        async def scenario():
            async with s.nls(server or self.server, path=path) as ws:
                for frame in frames:
                    try:
                        await ws.send(frame)
                    except ConnectionClosed:
                        break
                failed = await s.nls_failure(ws)
                self.assertEqual(failed["header"]["name"], "TaskFailed")
                self.assertEqual(failed["payload"], {})
                return failed["header"]
        return run(scenario())

    def test_message_checks(self):
        task = s.task_id()
        start = s.nls_message("StartTranscription", task, {"format": "pcm"})
        stop = s.nls_message("StopTranscription", task)

        def edit(message: str, key: str, value) -> str:
            data = json.loads(message)
            if value is None:
                del data["header"][key]
            else:
                data["header"][key] = value
            return json.dumps(data)

        cases = [
            (("{",), 40000002, "Gateway:MESSAGE_INVALID:"),
            ((edit(start, "message_id", ""),), 40000002, "Gateway:MESSAGE_INVALID:Invalid message id ''!"),
            ((edit(start, "message_id", "05450bf6-9c53-413f-8d88-aed1ee60abcd"),), 40000002, "Invalid message id"),
            ((edit(start, "task_id", task.upper()),), 40000002, "Invalid task id"),
            ((edit(start, "namespace", "SpeechRecognizer"),), 40000002, "Invalid namespace"),
            ((edit(start, "name", "StartRecognition"),), 40000002, "Invalid name"),
            ((edit(start, "appkey", None),), 40020105, "APPKEY_NOT_EXIST"),
            ((edit(start, "appkey", "otherkey"),), 40020105, "APPKEY_NOT_EXIST"),
            ((s.nls_message("StartTranscription", task, {"sample_rate": 44100}),), 41010101, "UNSUPPORTED_SAMPLE_RATE"),
            ((s.nls_message("StartTranscription", task, {"format": "flac"}),), 40000002, "Invalid format"),
            ((s.nls_message("StartTranscription", task, {"format": "mp3"}),), 40000002, "decodes only"),
            ((s.nls_message("StartTranscription", task, {"max_sentence_silence": 100}),), 40000002,
             "max_sentence_silence"),
            ((s.nls_message("StartTranscription", task, {"enable_words": "yes"}),), 40000002, "enable_words"),
            ((s.nls_message("StartTranscription", task, {"speech_noise_threshold": -2}),), 40000002,
             "speech_noise_threshold"),
            ((s.nls_message("StartTranscription", task, {"enable_semantic_sentence_detection": True}),), 40000002,
             "requires enable_intermediate_result"),
            ((s.silence(0.1),), 40010005, "before StartTranscription"),
            ((stop,), 40010005, "before StartTranscription"),
            ((start, s.nls_message("StopTranscription", s.task_id())), 40000002, "Invalid task id"),
            ((start, start), 40000002, "already used"),
            ((start, s.nls_message("StartTranscription", task, {})), 40010005, "one task per connection"),
            ((start, b""), 40000002, "Gateway:MESSAGE_INVALID:Audio frame is null!"),
            ((start, stop, s.nls_message("StopTranscription", task)), 40010005, "Got stop directive while task is stopping!"),
            ((start, stop, s.silence(0.1)), 40010005, "after StopTranscription"),
        ]
        for frames, status, text in cases:
            with self.subTest(frames=[f[:120] if isinstance(f, str) else f"<{len(f)} bytes>" for f in frames]):
                header = self.failure(*frames)
                self.assertEqual(header["status"], status, header)
                self.assertIn(text, header["status_text"])
                self.assertNotIn("status_message", header)

    def test_broken_audio(self):
        task = s.task_id()
        opus = bytearray(s.ogg_opus(s.tone_bursts(seconds=1.0)))
        opus[60] ^= 0x55
        cases = [
            ("opus", bytes(opus), 40270003, "CRC mismatch"),
            ("wav", b"RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00" + bytes(16), 40000009, "Invalid wav header"),
        ]
        for audio_format, data, status, text in cases:
            with self.subTest(format=audio_format):
                header = self.failure(s.nls_message("StartTranscription", task, {"format": audio_format}), data,
                                      s.nls_message("StopTranscription", task))
                self.assertEqual(header["status"], status, header)
                self.assertIn(text, header["status_text"])


class TingwuTests(unittest.TestCase):
    def test_meeting_url_without_appkey_and_translations(self):
        with s.ServerProcess("--translate", "--api-key", "meeting-code") as server:
            messages = run(s.nls_session(server, s.tone_bursts(), path="/api/ws/v1?mc=meeting-code", appkey=None))
        names = [m["header"]["name"] for m in messages]
        self.assertEqual(names.count("ResultTranslated"), 2)
        for index, name in enumerate(names):
            if name == "ResultTranslated":
                self.assertEqual(names[index - 1], "SentenceEnd")
                end, translated = messages[index - 1]["payload"], messages[index]["payload"]
                self.assertEqual(translated["target_lang"], "zh")
                self.assertEqual(translated["translate_result"][0]["text"], "[zh] " + end["result"])
                self.assertEqual(translated["translate_result"][0]["begin_time"], end["begin_time"])


class NlsTimeoutTests(unittest.TestCase):
    def test_idle_and_data_timeouts(self):
        with s.ServerProcess("--idle-timeout", "0.5", "--no-audio-timeout", "0.5") as server:
            async def scenario(send_audio: bool):
                async with s.nls(server) as ws:
                    task = s.task_id()
                    await ws.send(s.nls_message("StartTranscription", task, {}))
                    await s.recv_json(ws)
                    if send_audio:
                        await ws.send(s.silence(0.1))
                    return (await s.nls_failure(ws))["header"]

            async def silent_connection():
                async with s.nls(server) as ws:
                    return (await s.nls_failure(ws))["header"]

            self.assertEqual(run(silent_connection())["status"], 40000004)
            self.assertEqual(run(scenario(False))["status"], 40000004)
            header = run(scenario(True))
            self.assertEqual(header["status"], 41040201)
            self.assertIn("GET_CLIENT_DATA_TIMEOUT", header["status_text"])


if __name__ == "__main__":
    unittest.main()
