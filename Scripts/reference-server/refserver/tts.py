"""Speech synthesis on the DashScope task protocol (/api-ws/v1/inference, docs/tts-protocol.md §2).

`SynthesisSession` is the DashScope session that also takes `run-task` with task_group audio, task tts,
function SpeechSynthesizer: continue-task texts are cut into sentences (at ! ? ; and their CJK forms, at a . followed by
white space or ending the text so far, and at line breaks; a text with no break is cut after MAX_SENTENCE characters), each synthesized as soon as it is
complete (finish-task flushes the rest) and sent as sentence-begin, sentence-synthesis + one binary frame per
audio chunk, sentence-end (with usage.characters), then task-finished. Recognition tasks go to the ASR code
unchanged; one connection may carry both, one task at a time. A run-task while a synthesis task runs ends that
task at once: its remaining audio is dropped and nothing more is sent for it (docs §2, "Interrupting" (c)).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from dataclasses import dataclass

from . import dashscope_params
from . import tts_params as params
from .dashscope import DashScopeSession, check_order
from .errors import ProtocolError
from .tts_audio import apply_volume, make_encoder, resample
from .tts_voices import VOICES, Speech, synthesize

NO_TEXT_DEFAULT = 23.0  # "request timeout after 23 seconds."
MAX_SENTENCE = 300
WORD_PLACES = ("sentence-end", "sentence-synthesis", "task-finished")
_BREAK = re.compile(r"[!?;。！？；\n]+|\.(?=\s|$)")


@dataclass
class SynthesisSettings:
    no_text_timeout: float = NO_TEXT_DEFAULT
    words_in: str = "sentence-end"


def add_arguments(parser) -> None:
    parser.add_argument("--no-text-timeout", type=float, default=NO_TEXT_DEFAULT,
                        help="speech synthesis: no continue-task text for this long while a task runs fails it "
                             "with 'request timeout after N seconds.' (default 23)")
    parser.add_argument("--tts-words-in", choices=WORD_PLACES, default="sentence-end",
                        help="speech synthesis: which event carries the word timestamps (default sentence-end)")


def settings(args) -> SynthesisSettings:
    return SynthesisSettings(no_text_timeout=args.no_text_timeout, words_in=args.tts_words_in)


def take_sentences(buffer: str, final: bool) -> tuple[list[str], str]:
    """Splits off the complete sentences of `buffer`; with `final`, the rest is a sentence too."""
    sentences = []
    start = 0
    for match in _BREAK.finditer(buffer):
        sentences.append(buffer[start:match.end()])
        start = match.end()
    rest = buffer[start:]
    while len(rest) > MAX_SENTENCE:
        cut = max(rest.rfind(" ", 0, MAX_SENTENCE), rest.rfind(",", 0, MAX_SENTENCE)) + 1 or MAX_SENTENCE
        sentences.append(rest[:cut])
        rest = rest[cut:]
    if final and rest.strip():
        sentences.append(rest)
        rest = ""
    return [s for s in sentences if s.strip()], rest


class SynthesisTask:
    def __init__(self, request: params.TtsRequest) -> None:
        self.request = request
        self.encoder = make_encoder(request.audio_format, request.sample_rate, request.bit_rate)
        self.buffer = ""
        self.started = False
        self.finishing = False
        self.last_text = time.monotonic()
        self.texts = 0
        self.characters = 0  # usage.characters: text synthesized so far
        self.received = 0  # text received so far (the 200,000 limit)
        self.sentences = 0
        self.audio_samples = 0  # output samples sent so far (word times are counted from the task's start)
        self.audio_bytes = 0
        self.all_words: list[dict] = []
        self.queue: asyncio.Queue = asyncio.Queue()
        self.worker: asyncio.Task | None = None

    def close(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
        if hasattr(self.encoder, "close"):
            self.encoder.close()


class SynthesisSession(DashScopeSession):
    """DashScope session with speech synthesis tasks (see the module doc)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.synthesis: SynthesisTask | None = None
        self.tts_settings: SynthesisSettings = getattr(self.config, "tts", None) or SynthesisSettings()

    # --- routing -----------------------------------------------------------------------------------------
    async def on_text(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            message = None
        if self.synthesis is None and not params.is_tts_run_task(message):
            await super().on_text(text)
            return
        task_id = None
        try:
            action, task_id = dashscope_params.check_header(message)
            if action == "run-task":
                if await self.idle_close_fault():
                    return
                self.end_synthesis()
                if not params.is_tts_run_task(message):
                    await super().on_text(text)
                    return
                await self.run_synthesis(message, task_id)
            else:
                self.check_synthesis(action, task_id)
                if action == "continue-task":
                    await self.continue_synthesis(params.check_continue_payload(message["payload"]))
                else:
                    dashscope_params.check_finish_payload(message["payload"])
                    await self.finish_synthesis()
        except ProtocolError as error:
            await self.fail(str(error.code), error.message, self.synthesis.request.task_id
                            if self.synthesis else task_id or "")

    async def on_binary(self, data: bytes) -> None:
        if self.synthesis is None:
            await super().on_binary(data)
            return
        await self.fail("CLIENT_ERROR", f"Binary frame of {len(data)} bytes received by a speech synthesis task! "
                        "Send text with continue-task.")

    def check_synthesis(self, action: str, task_id: str) -> None:
        task = self.synthesis
        check_order(action, task_id, task.request.task_id if task else None, task is not None and task.started)
        if task.finishing:
            raise ProtocolError("CLIENT_ERROR", f"{action} after finish-task! The task is finishing.")

    # --- the task ----------------------------------------------------------------------------------------
    async def run_synthesis(self, message: dict, task_id: str) -> None:
        self.check_new_task(task_id)
        request = params.check_run_task(message, task_id)
        self.used_ids.add(task_id)
        self.generation += 1
        self.synthesis = SynthesisTask(request)
        await self.acknowledge_start(self.start_synthesis)

    async def start_synthesis(self) -> None:
        task = self.synthesis
        task.started = True
        task.last_text = time.monotonic()
        await self.send_json({"header": {"task_id": task.request.task_id, "event": "task-started",
                                         "attributes": {}}, "payload": {}})
        task.worker = asyncio.get_running_loop().create_task(self.work(task))
        self.arm_task_faults()

    async def continue_synthesis(self, text: str) -> None:
        task = self.synthesis
        task.last_text = time.monotonic()
        task.texts += 1
        if task.request.ssml and task.texts > 1:
            raise ProtocolError(params.INVALID, "Text request limit violated, expected 1.")
        task.received += params.text_length(text)
        if task.received > params.MAX_TEXT_PER_TASK:
            raise ProtocolError(params.INVALID, f"Text length exceeds the limit: {task.received} characters in "
                                f"this task, at most {params.MAX_TEXT_PER_TASK} (a CJK character counts 2).")
        if task.request.ssml:
            if text.strip():
                task.queue.put_nowait(text)
            return
        sentences, task.buffer = take_sentences(task.buffer + text, final=False)
        for sentence in sentences:
            task.queue.put_nowait(sentence)

    async def finish_synthesis(self) -> None:
        task = self.synthesis
        task.finishing = True
        sentences, task.buffer = take_sentences(task.buffer, final=True)
        for sentence in sentences:
            task.queue.put_nowait(sentence)
        task.queue.put_nowait(None)

    async def work(self, task: SynthesisTask) -> None:
        """Synthesizes the queued sentences in order, then (after finish-task) sends task-finished."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                text = await task.queue.get()
                if text is None:
                    break
                try:
                    speech, frames = await loop.run_in_executor(None, self.render, task, text)
                except Exception as error:  # a voice or encoder failure: the task fails, as the service's would
                    await self.fail("InternalError", f"[tts:]synthesis failed: {error}")
                    return
                if not await self.send_sentence(task, text, speech, frames):
                    return
            fault = self.faults.get("slow-finish")
            if fault:
                self.log.write(self.number, "fault", name="slow-finish")
                await asyncio.sleep(fault["delay_ms"] / 1000.0)
            if self.synthesis is not task or self.closed:
                return
            words = task.all_words if self.tts_settings.words_in == "task-finished" else []
            # Logged before task-finished goes out: a client that has seen task-finished finds the summary.
            self.log.write(self.number, "task-summary", task_id=task.request.task_id, service="tts",
                           sentences=task.sentences, characters=task.characters, audio_bytes=task.audio_bytes,
                           audio_ms=task.audio_samples * 1000 // task.request.sample_rate)
            await self.send_json({"header": {"task_id": task.request.task_id, "event": "task-finished",
                                             "attributes": {"request_uuid": str(uuid.uuid4())}},
                                  "payload": {"output": {"sentence": {"words": words}},
                                              "usage": {"characters": task.characters}}})
            self.end_synthesis(finished=True)
        except asyncio.CancelledError:
            pass

    @staticmethod
    def render(task: SynthesisTask, text: str) -> tuple[Speech, list[bytes]]:
        """Synthesis and encoding of one sentence (on an executor thread)."""
        request = task.request
        speech = synthesize(VOICES[request.voice], text, request.rate, request.pitch, request.ssml)
        samples = resample(speech.samples, speech.rate, request.sample_rate)
        samples = apply_volume(samples, request.volume)
        return Speech(samples, request.sample_rate, speech.words), task.encoder.encode(samples)

    async def send_sentence(self, task: SynthesisTask, text: str, speech: Speech, frames: list[bytes]) -> bool:
        """Sends one sentence's events and audio; False if the task or connection ended meanwhile."""
        if self.synthesis is not task or self.closed or self.stalled:
            return False
        index = task.sentences
        offset_ms = task.audio_samples * 1000 // task.request.sample_rate
        words = [{"text": w.text, "begin_index": w.begin_index, "end_index": w.end_index,
                  "begin_time": offset_ms + w.begin_ms, "end_time": offset_ms + w.end_ms} for w in speech.words] \
            if task.request.word_timestamps else []
        header = {"task_id": task.request.task_id, "event": "result-generated", "attributes": {}}
        await self.send_json({"header": header, "payload": {"output": {
            "sentence": {"index": index, "words": []}, "type": "sentence-begin", "original_text": text}}})
        place = self.tts_settings.words_in
        frame_ms = 1000 * speech.samples.size / speech.rate / max(1, len(frames))
        for number, frame in enumerate(frames):
            begin, end = offset_ms + number * frame_ms, offset_ms + (number + 1) * frame_ms
            in_frame = [w for w in words if begin <= w["begin_time"] < end or (number == 0 and w["begin_time"] < begin)
                        or (number == len(frames) - 1 and w["begin_time"] >= end)] if place == "sentence-synthesis" else []
            await self.send_json({"header": header, "payload": {"output": {
                "sentence": {"index": index, "words": in_frame}, "type": "sentence-synthesis"}}})
            if self.synthesis is not task or self.closed or self.stalled:
                return False
            if await self.sent_audio_faults(len(frame)):
                return False
            await self.ws.send(frame)
            task.audio_bytes += len(frame)
        task.sentences += 1
        task.characters += params.text_length(text)
        task.audio_samples += speech.samples.size
        task.all_words += words
        await self.send_json({"header": header, "payload": {"output": {
            "sentence": {"index": index, "words": words if place == "sentence-end" else []},
            "type": "sentence-end", "original_text": text}, "usage": {"characters": task.characters}}})
        return True

    async def sent_audio_faults(self, size: int) -> bool:
        """close-mid-stream for synthesis: counts the audio bytes the server sends. True if it fired."""
        self.connection_bytes += size
        return await self.close_mid_stream()

    def end_synthesis(self, finished: bool = False) -> None:
        task = self.synthesis
        if task is None:
            return
        if not finished:
            self.log.write(self.number, "tts-task-ended", task_id=task.request.task_id, sentences=task.sentences)
        self.synthesis = None
        self.generation += 1
        self.idle_since = time.monotonic()
        if task.worker is not None and task.worker is not asyncio.current_task():
            task.worker.cancel()
        if hasattr(task.encoder, "close"):
            task.encoder.close()

    # --- deadlines, failures, faults ---------------------------------------------------------------------
    def deadline(self) -> float | None:
        task = self.synthesis
        if task is None:
            return super().deadline()
        if task.started and not task.finishing:
            return task.last_text + self.tts_settings.no_text_timeout
        return None

    async def on_deadline(self) -> None:
        if self.synthesis is None:
            await super().on_deadline()
            return
        await self.fail("CLIENT_ERROR", f"request timeout after {self.tts_settings.no_text_timeout:g} seconds.")

    async def fail(self, code: str, message: str, task_id: str | None = None) -> None:
        if task_id is None and self.synthesis is not None:
            task_id = self.synthesis.request.task_id
        self.end_synthesis()
        await super().fail(code, message, task_id)

    def oversized_message(self, size: int) -> str:
        if self.synthesis is None:
            return super().oversized_message(size)
        head = json.dumps({"header": {"task_id": self.synthesis.request.task_id, "event": "result-generated",
                                      "attributes": {}},
                           "payload": {"output": {"sentence": {"index": 0, "words": []}, "type": "sentence-begin",
                                                  "original_text": ""}}})
        marker = '"original_text": ""'
        return head.replace(marker, '"original_text": "' + "x" * max(0, size - len(head)) + '"', 1)

    async def on_disconnect(self) -> None:
        if self.synthesis is not None:
            self.log.write(self.number, "client-disconnect", task_id=self.synthesis.request.task_id,
                           error="ClientDisconnect: Client disconnected before task finished!")
        await super().on_disconnect()

    def cleanup(self) -> None:
        self.end_synthesis()
        super().cleanup()

