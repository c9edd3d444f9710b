"""Family A: the DashScope duplex task protocol at /api-ws/v1/inference (docs/asr-protocols.md §1-§9)."""

from __future__ import annotations

import asyncio
import json
import math
import time

from . import dashscope_params as params
from .audio import DECODABLE_FORMATS
from .dashscope_events import heartbeat_payload, result_payload
from .errors import AudioError, ProtocolError
from .pipeline import AudioPipeline
from .segmenter import Heartbeat, Partial, SegmenterSettings, SentenceBegin, SentenceEnd, SilenceTimeout
from .session import Session

IDLE_DEFAULT = 60.0  # no new run-task after a task ended (or after connecting)
NO_AUDIO_DEFAULT = 23.0  # "request timeout after 23 seconds."
SILENCE_DEFAULT = 60.0  # continuous silent audio without heartbeat


class Task:
    def __init__(self, request: params.TaskRequest, pipeline: AudioPipeline) -> None:
        self.request = request
        self.pipeline = pipeline
        self.started = False
        self.last_audio = time.monotonic()
        self.first_audio: float | None = None
        self.sentences = 0
        self.words = 0


def check_order(action: str, task_id: str, running_id: str | None, started: bool) -> None:
    """continue-task / finish-task need the running task's id, after its task-started."""
    if running_id is None:
        raise ProtocolError("CLIENT_ERROR", f"{action} for task '{task_id}', but no task is running "
                            "on this connection! Send run-task first.")
    if task_id != running_id:
        raise ProtocolError("CLIENT_ERROR", f"{action} task_id '{task_id}' does not match the running task "
                            f"'{running_id}'!")
    if not started:
        raise ProtocolError("CLIENT_ERROR", f"{action} sent before task-started! Wait for task-started.")


class DashScopeSession(Session):
    family = "dashscope"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.task: Task | None = None
        self.used_ids: set[str] = set()
        self.idle_since = time.monotonic()

    # --- deadlines ---------------------------------------------------------------------------------------
    def deadline(self) -> float | None:
        if self.task is None:
            return self.idle_since + self.config.idle(IDLE_DEFAULT)
        if self.task.started:
            return self.task.last_audio + self.config.no_audio(NO_AUDIO_DEFAULT)
        return None

    async def on_deadline(self) -> None:
        if self.task is None:
            await self.close(1000, "idle timeout: no task")
            return
        seconds = self.config.no_audio(NO_AUDIO_DEFAULT)
        await self.fail("CLIENT_ERROR", f"request timeout after {seconds:g} seconds.")

    async def idle_close_fault(self) -> bool:
        """The idle-close fault: a run-task on a connection that already carried a task meets the server's idle
        close (as when the client reuses a connection just as the idle timeout ends it). True if it fired."""
        if not self.used_ids or self.faults.get("idle-close") is None:
            return False
        self.log.write(self.number, "fault", name="idle-close")
        await self.close(1000, "idle timeout: no task")
        return True

    # --- failing -----------------------------------------------------------------------------------------
    async def fail(self, code: str, message: str, task_id: str | None = None) -> None:
        if task_id is None:
            task_id = self.task.request.task_id if self.task else ""
        await self.send_json({"header": {"task_id": task_id, "event": "task-failed", "error_code": code,
                                         "error_message": message, "attributes": {}}, "payload": {}})
        await self.close(1000, "task failed")

    async def fail_injected(self, fault) -> None:
        self.log.write(self.number, "fault", name="task-failed")
        await self.fail(fault["code"] or "InternalError", fault["message"] or "injected fault: task failed")

    # --- client messages ---------------------------------------------------------------------------------
    async def on_text(self, text: str) -> None:
        task_id = None
        try:
            try:
                message = json.loads(text)
            except ValueError:
                raise ProtocolError(params.INVALID, "Invalid payload data: the text frame is not valid JSON!")
            if isinstance(message, dict) and isinstance(message.get("header"), dict):
                candidate = message["header"].get("task_id")
                task_id = candidate if isinstance(candidate, str) else None
            action, task_id = params.check_header(message)
            if action == "run-task":
                if await self.idle_close_fault():
                    return
                await self.run_task(message, task_id)
            elif action == "continue-task":
                self.check_running(action, task_id)
                params.check_continue_payload(message["payload"], self.task.request.model)
            else:
                self.check_running(action, task_id)
                params.check_finish_payload(message["payload"])
                await self.finish_task()
        except ProtocolError as error:
            reported = self.task.request.task_id if self.task else (task_id or "")
            await self.fail(str(error.code), error.message, reported)

    def check_running(self, action: str, task_id: str) -> None:
        check_order(action, task_id, self.task.request.task_id if self.task else None,
                    self.task is not None and self.task.started)

    def check_new_task(self, task_id: str) -> None:
        """run-task: no recognition task may be running, and the task id must be new on the connection."""
        if self.task is not None:
            raise ProtocolError("CLIENT_ERROR", f"run-task '{task_id}' while task '{self.task.request.task_id}' "
                                "is running! Wait for task-finished before starting a new task.")
        if task_id in self.used_ids:
            raise ProtocolError("CLIENT_ERROR", f"Duplicate task_id '{task_id}': every task on a connection "
                                "needs a new task_id!")

    async def run_task(self, message: dict, task_id: str) -> None:
        self.check_new_task(task_id)
        request = params.check_run_task(message, task_id)
        if request.audio_format not in DECODABLE_FORMATS:
            raise ProtocolError(params.INVALID, f"format '{request.audio_format}' is valid but this reference "
                                f"server decodes only {', '.join(DECODABLE_FORMATS)}")
        self.used_ids.add(task_id)
        self.generation += 1
        self.task = Task(request, AudioPipeline(request.audio_format, request.sample_rate,
                                                self.config.recognizer, self.settings(request)))
        await self.acknowledge_start(self.start_task)

    def settings(self, request: params.TaskRequest) -> SegmenterSettings:
        semantic = request.flag("semantic_punctuation_enabled", False)
        heartbeat = request.flag("heartbeat", False) and request.family != "gummy"
        silence = self.config.silence_timeout if self.config.silence_timeout is not None else SILENCE_DEFAULT
        partials = request.model != "qwen-audio-3.1-asr-flash-message" or request.flag(
            "intermediate_result_enabled", False)
        return SegmenterSettings(
            threshold_db=self.config.energy_threshold_db + 10.0 * request.parameters.get("speech_noise_threshold", 0),
            max_sentence_silence_ms=1000 if semantic else request.parameters.get("max_sentence_silence", 1300),
            multi_threshold=not semantic and request.flag("multi_threshold_mode_enabled", False),
            partials=partials,
            partial_interval_ms=self.config.partial_interval_ms,
            heartbeat_interval_ms=int(self.config.heartbeat_interval * 100) * 10 if heartbeat else None,
            silence_timeout_ms=None if heartbeat else int(silence * 1000))

    async def start_task(self) -> None:
        task = self.task
        task.started = True
        task.last_audio = time.monotonic()
        await self.send_json({"header": {"task_id": task.request.task_id, "event": "task-started",
                                         "attributes": {}}, "payload": {}})
        self.arm_task_faults()

    async def finish_task(self) -> None:
        task = self.task
        try:
            events = task.pipeline.finish()
        except AudioError as error:
            await self.fail("NO_VALID_AUDIO_ERROR", error.message)
            return
        await self.send_events(events)
        fault = self.faults.get("slow-finish")
        if fault:
            self.log.write(self.number, "fault", name="slow-finish")
            await asyncio.sleep(fault["delay_ms"] / 1000.0)
        # The summary is logged before task-finished goes out: a client that has seen task-finished finds it.
        self.log.write(self.number, "task-summary", task_id=task.request.task_id, bytes=task.pipeline.bytes_in,
                       frames=task.pipeline.frames_in, audio_ms=task.pipeline.audio_ms, sentences=task.sentences)
        await self.send_json({"header": {"task_id": task.request.task_id, "event": "task-finished",
                                         "attributes": {}}, "payload": {"output": {}, "usage": None}})
        task.pipeline.close()
        self.task = None
        self.generation += 1
        self.idle_since = time.monotonic()

    async def on_binary(self, data: bytes) -> None:
        task = self.task
        if task is None:
            when = "after task-finished" if self.used_ids else "before run-task"
            await self.fail("CLIENT_ERROR", f"Binary audio received {when} while no task is running! "
                            "Send run-task first.", "")
            return
        if not task.started:
            await self.fail("CLIENT_ERROR", "Audio received before task-started! Wait for task-started "
                            "before sending audio.")
            return
        if not data:
            await self.fail(params.INVALID, "Audio frame is null! Do not send empty binary frames.")
            return
        if await self.audio_faults(len(data)):
            return
        now = time.monotonic()
        task.last_audio = now
        if task.first_audio is None:
            task.first_audio = now
        if len(data) > 16384 or len(data) < 1024 and task.request.audio_format in ("pcm", "wav"):
            self.log.write(self.number, "warning", text=f"audio frame of {len(data)} bytes; the docs recommend "
                           "about 100 ms per frame, 1-16 KB")
        try:
            events = task.pipeline.feed(data)
        except AudioError as error:
            await self.fail("NO_VALID_AUDIO_ERROR", error.message)
            return
        self.check_pacing(task.first_audio, task.pipeline.audio_ms, now)
        await self.send_events(events)

    async def send_events(self, events: list) -> None:
        task = self.task
        for event in events:
            if isinstance(event, SentenceBegin):
                continue
            if isinstance(event, SilenceTimeout):
                await self.fail("RequestTimeOut", f"Response timeout! {event.silence_ms / 1000:g} s of "
                                "continuous silence without heartbeat; set heartbeat to true or finish the task.")
                return
            if isinstance(event, Heartbeat):
                payload = heartbeat_payload(event.time_ms)
            elif isinstance(event, Partial):
                payload = result_payload(task.request, event.index, event.begin_ms, None, event.words,
                                         event.first, None)
            elif isinstance(event, SentenceEnd):
                task.sentences += 1
                task.words += len(event.words)
                usage = self.usage(task, event.audio_ms)
                payload = result_payload(task.request, event.index, event.begin_ms, event.end_ms, event.words,
                                         False, usage)
            else:
                continue
            await self.send_json({"header": {"task_id": task.request.task_id, "event": "result-generated",
                                             "attributes": {}}, "payload": payload})

    @staticmethod
    def usage(task: Task, audio_ms: int) -> dict:
        usage = {"duration": math.ceil(audio_ms / 1000)}
        if task.request.family == "qwen-audio":
            usage["input_tokens"] = math.ceil(audio_ms / 40)
            usage["output_tokens"] = task.words
            usage["total_tokens"] = usage["input_tokens"] + task.words
        return usage

    def oversized_message(self, size: int) -> str:
        task_id = self.task.request.task_id if self.task else ""
        head = json.dumps({"header": {"task_id": task_id, "event": "result-generated", "attributes": {}},
                           "payload": {"output": {"sentence": {"sentence_id": 0, "begin_time": 0, "end_time": None,
                                                              "text": "", "heartbeat": False, "sentence_end": False,
                                                              "words": []}}, "usage": None}})
        marker = '"text": ""'
        pad = max(0, size - len(head))
        return head.replace(marker, '"text": "' + "x" * pad + '"', 1)

    async def on_disconnect(self) -> None:
        if self.task is not None:
            self.log.write(self.number, "client-disconnect", task_id=self.task.request.task_id,
                           error="ClientDisconnect: Client disconnected before task finished!")

    def cleanup(self) -> None:
        if self.task is not None:
            self.task.pipeline.close()
            self.task = None
