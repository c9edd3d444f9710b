"""Family C: NLS SpeechTranscriber at /ws/v1 (ISI) and Tingwu MeetingJoinUrl ingest (docs/asr-protocols.md §11)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

from . import nls_params as nls
from .audio import DECODABLE_FORMATS
from .errors import AudioError, ProtocolError
from .pipeline import AudioPipeline
from .recognizers import Word
from .segmenter import Partial, SegmenterSettings, SentenceBegin, SentenceEnd
from .session import Session

IDLE_DEFAULT = 10.0  # IDLE_TIMEOUT: no data more than 10 s after connecting
DATA_DEFAULT = 10.0  # GET_CLIENT_DATA_TIMEOUT: audio not sent continuously

CONNECTED, STARTING, STARTED, COMPLETED = "connected", "starting", "started", "completed"


def new_id() -> str:
    return uuid.uuid4().hex


class NlsSession(Session):
    family = "nls"

    def __init__(self, *args, tingwu: bool = False) -> None:
        super().__init__(*args)
        self.tingwu = tingwu
        self.state = CONNECTED
        self.task_id = ""
        self.settings: dict = {}
        self.pipeline: AudioPipeline | None = None
        self.message_ids: set[str] = set()
        self.last_data = time.monotonic()
        self.audio_seen = False
        self.first_audio: float | None = None

    # --- deadlines ---------------------------------------------------------------------------------------
    def deadline(self) -> float | None:
        if self.state in (CONNECTED, COMPLETED) or (self.state == STARTED and not self.audio_seen):
            return self.last_data + self.config.idle(IDLE_DEFAULT)
        if self.state == STARTED:
            return self.last_data + self.config.no_audio(DATA_DEFAULT)
        return None

    async def on_deadline(self) -> None:
        if self.state == COMPLETED:
            await self.close(1000, "idle after TranscriptionCompleted")
        elif self.state == STARTED and self.audio_seen:
            seconds = self.config.no_audio(DATA_DEFAULT)
            await self.fail(nls.CLIENT_DATA_TIMEOUT, f"Gateway:GET_CLIENT_DATA_TIMEOUT:No audio data for "
                            f"{seconds:g} s; send audio continuously at about real-time rate!")
        else:
            seconds = self.config.idle(IDLE_DEFAULT)
            await self.fail(nls.IDLE_TIMEOUT, f"Gateway:IDLE_TIMEOUT:No data for {seconds:g} s "
                            f"({'no StartTranscription' if self.state == CONNECTED else 'no audio'})!")

    # --- sending -----------------------------------------------------------------------------------------
    def header(self, name: str, status: int = nls.OK, text: str = "Gateway:SUCCESS:Success.") -> dict:
        header = {"message_id": new_id(), "task_id": self.task_id, "namespace": "SpeechTranscriber",
                  "name": name, "status": status, "status_text": text}
        if status == nls.OK:
            header["status_message"] = "GATEWAY|SUCCESS|Success."
        return header

    async def event(self, name: str, payload: dict) -> None:
        await self.send_json({"header": self.header(name), "payload": payload})

    async def fail(self, status: int, text: str) -> None:
        await self.send_json({"header": self.header("TaskFailed", status, text), "payload": {}})
        await self.close(1000, "task failed")

    async def fail_injected(self, fault) -> None:
        self.log.write(self.number, "fault", name="task-failed")
        status = int(fault["code"]) if fault["code"].isdigit() else nls.GRPC_ERROR
        await self.fail(status, fault["message"] or "GRPC_ERROR:injected fault: task failed")

    # --- client messages ---------------------------------------------------------------------------------
    async def on_text(self, text: str) -> None:
        self.last_data = time.monotonic()
        try:
            message = nls.parse(text)
            name, task_id, message_id = nls.check_header(message, self.tingwu, self.config.nls_appkey)
            if message_id in self.message_ids:
                raise nls.message_invalid(f"Invalid message id '{message_id}': already used; "
                                          "every message needs a new message_id!")
            self.message_ids.add(message_id)
            payload = nls.payload_of(message)
            if name == "StartTranscription":
                await self.start(task_id, payload)
                return
            self.check_task(name, task_id)
            if name == "StopTranscription":
                await self.stop()
            else:
                nls.check_common(payload)
                if "max_sentence_silence" in payload:
                    self.pipeline.segmenter.settings.max_sentence_silence_ms = payload["max_sentence_silence"]
        except ProtocolError as error:
            await self.fail(error.code, error.message)

    def check_task(self, name: str, task_id: str) -> None:
        if self.state == CONNECTED:
            raise ProtocolError(nls.TASK_STATE_ERROR, f"Gateway:TASK_STATE_ERROR:Got {name} before "
                                "StartTranscription!")
        if task_id != self.task_id:
            raise nls.message_invalid(f"Invalid task id '{task_id}': the task of this connection is "
                                      f"'{self.task_id}'!")
        if self.state == STARTING:
            raise ProtocolError(nls.TASK_STATE_ERROR, f"Gateway:TASK_STATE_ERROR:Got {name} before "
                                "TranscriptionStarted!")
        if self.state == COMPLETED:
            raise ProtocolError(nls.TASK_STATE_ERROR, "Gateway:TASK_STATE_ERROR:Got stop directive while task "
                                "is stopping!" if name == "StopTranscription" else
                                f"Gateway:TASK_STATE_ERROR:Got {name} after the task completed!")

    async def start(self, task_id: str, payload: dict) -> None:
        if self.state != CONNECTED:
            raise ProtocolError(nls.TASK_STATE_ERROR, "Gateway:TASK_STATE_ERROR:Got StartTranscription while "
                                f"task '{self.task_id}' is {self.state}; one task per connection!")
        self.task_id = task_id
        settings = nls.check_start(payload)
        if settings["format"] not in DECODABLE_FORMATS:
            raise nls.message_invalid(f"Invalid format '{settings['format']}': valid, but this reference server "
                                      f"decodes only {', '.join(DECODABLE_FORMATS)}!")
        self.settings = settings
        self.generation += 1
        self.pipeline = AudioPipeline(settings["format"], settings["sample_rate"], self.config.recognizer,
                                      self.segmenter_settings())
        self.state = STARTING
        await self.acknowledge_start(self.started)

    def segmenter_settings(self) -> SegmenterSettings:
        settings = self.settings
        semantic = settings.get("enable_semantic_sentence_detection", False)
        return SegmenterSettings(
            threshold_db=self.config.energy_threshold_db + 10.0 * settings.get("speech_noise_threshold", 0),
            max_sentence_silence_ms=1000 if semantic else settings["max_sentence_silence"],
            multi_threshold=not semantic and settings.get("enable_multi_thresh_mod", False),
            partials=settings.get("enable_intermediate_result", False),
            partial_interval_ms=self.config.partial_interval_ms)

    async def started(self) -> None:
        self.state = STARTED
        self.last_data = time.monotonic()
        await self.event("TranscriptionStarted", {"session_id": new_id()})
        self.arm_task_faults()

    async def stop(self) -> None:
        try:
            events = self.pipeline.finish()
        except AudioError as error:
            await self.audio_failed(error)
            return
        await self.send_events(events)
        self.state = COMPLETED
        fault = self.faults.get("slow-finish")
        if fault:
            self.log.write(self.number, "fault", name="slow-finish")
            await asyncio.sleep(fault["delay_ms"] / 1000.0)
        await self.event("TranscriptionCompleted", {})
        self.generation += 1
        self.last_data = time.monotonic()

    async def audio_failed(self, error: AudioError) -> None:
        if error.kind == "header" and self.settings.get("format") == "wav":
            await self.fail(nls.INVALID_WAV, f"Meta:INVALID_WAV_HEADER:{error.message}")
        else:
            await self.fail(nls.DECODE_ERROR, f"Meta:DECODE_ERROR:{error.message}")

    async def on_binary(self, data: bytes) -> None:
        self.last_data = time.monotonic()
        if self.state != STARTED:
            where = {CONNECTED: "before StartTranscription", STARTING: "before TranscriptionStarted",
                     COMPLETED: "after StopTranscription"}[self.state]
            await self.fail(nls.TASK_STATE_ERROR, f"Gateway:TASK_STATE_ERROR:Audio data received {where}!")
            return
        if not data:
            await self.fail(nls.MESSAGE_INVALID, "Gateway:MESSAGE_INVALID:Audio frame is null!")
            return
        if await self.audio_faults(len(data)):
            return
        self.audio_seen = True
        now = time.monotonic()
        if self.first_audio is None:
            self.first_audio = now
        try:
            events = self.pipeline.feed(data)
        except AudioError as error:
            await self.audio_failed(error)
            return
        self.check_pacing(self.first_audio, self.pipeline.audio_ms, now)
        await self.send_events(events)

    async def send_events(self, events: list) -> None:
        punctuate = self.settings.get("enable_punctuation_prediction", False)
        with_words = self.settings.get("enable_words", False)
        for event in events:
            if isinstance(event, SentenceBegin):
                await self.event("SentenceBegin", {"index": event.index, "time": event.begin_ms})
            elif isinstance(event, Partial):
                payload = {"index": event.index, "time": event.time_ms, "result": text_of(event.words, False,
                                                                                          punctuate)}
                if with_words:
                    payload["words"] = words_of(event.words)
                payload["status"] = 0
                await self.event("TranscriptionResultChanged", payload)
            elif isinstance(event, SentenceEnd):
                result = text_of(event.words, True, punctuate)
                confidence = round(sum(w.confidence for w in event.words) / len(event.words), 3) \
                    if event.words else 0.0
                payload = {"index": event.index, "time": event.end_ms, "begin_time": event.begin_ms,
                           "result": result, "confidence": confidence}
                if with_words:
                    payload["words"] = words_of(event.words)
                payload["status"] = 0
                await self.event("SentenceEnd", payload)
                if self.config.translate:
                    await self.translated(event, result)

    async def translated(self, event: SentenceEnd, result: str) -> None:
        language = self.config.translate
        await self.event("ResultTranslated", {
            "index": event.index, "source_lang": "en", "target_lang": language,
            "translate_result": [{"index": event.index, "begin_time": event.begin_ms, "end_time": event.end_ms,
                                  "text": f"[{language}] {result}" if result else "", "partial": False}]})

    def oversized_message(self, size: int) -> str:
        head = json.dumps({"header": self.header("TranscriptionResultChanged"),
                           "payload": {"index": 0, "time": 0, "result": "", "status": 0}})
        return head.replace('"result": ""', '"result": "' + "x" * max(0, size - len(head)) + '"', 1)

    async def on_disconnect(self) -> None:
        if self.state in (STARTING, STARTED):
            self.log.write(self.number, "client-disconnect", task_id=self.task_id,
                           error="40010004 CLIENT_DISCONNECT")

    def cleanup(self) -> None:
        if self.pipeline is not None:
            self.pipeline.close()
            self.pipeline = None


def text_of(words: list[Word], final: bool, punctuate: bool) -> str:
    text = " ".join(word.text for word in words)
    return text + "." if final and punctuate and text else text


def words_of(words: list[Word]) -> list[dict]:
    return [{"text": word.text, "startTime": word.begin_ms, "endTime": word.end_ms} for word in words]
