"""What both protocol families share: the receive loop, deadlines, sending, failing and the injected faults."""

from __future__ import annotations

import asyncio
import json
import time
import traceback

from websockets.exceptions import ConnectionClosed

from .config import ServerConfig
from .faults import ConnectionFaults
from .log import EventLog, clip


# Connections frozen by the freeze fault: they never notice the peer going away, so the server aborts them when it
# stops (else closing them would wait for a reader that never runs).
FROZEN: set = set()


def abort_frozen() -> None:
    for ws in list(FROZEN):
        ws.transport.abort()
    FROZEN.clear()


class Session:
    """One WebSocket connection. Subclasses implement on_text, on_binary, on_deadline and the fault payloads."""

    def __init__(self, ws, config: ServerConfig, faults: ConnectionFaults, log: EventLog, number: int) -> None:
        self.ws = ws
        self.config = config
        self.faults = faults
        self.log = log
        self.number = number
        self.stalled = False  # stall / no-task-started: read everything, answer nothing
        self.closed = False
        self.generation = 0  # bumped per task, so timers of an old task do nothing
        self.timers: set[asyncio.Task] = set()
        self.connection_bytes = 0

    # --- to override -------------------------------------------------------------------------------------
    async def on_text(self, text: str) -> None:
        raise NotImplementedError

    async def on_binary(self, data: bytes) -> None:
        raise NotImplementedError

    def deadline(self) -> float | None:
        """Monotonic time at which on_deadline runs, or None."""
        return None

    async def on_deadline(self) -> None:
        pass

    async def on_disconnect(self) -> None:
        pass

    async def fail_injected(self, fault) -> None:
        raise NotImplementedError

    def oversized_message(self, size: int) -> str:
        raise NotImplementedError

    # --- the loop ----------------------------------------------------------------------------------------
    async def run(self) -> None:
        self.log.write(self.number, "open", path=self.ws.request.path.split("?")[0], family=self.family)
        try:
            while True:
                deadline = None if self.stalled or self.closed else self.deadline()
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    message = await asyncio.wait_for(self.ws.recv(), timeout)
                except asyncio.TimeoutError:
                    await self.on_deadline()
                    continue
                if self.stalled or self.closed:
                    # Keep reading while stalled or closing: unread frames would block the closing handshake.
                    self.log.write(self.number, "ignored", size=len(message))
                    continue
                if isinstance(message, str):
                    self.log.write(self.number, "recv-text", text=clip(message))
                    await self.on_text(message)
                else:
                    await self.on_binary(message)
        except ConnectionClosed as closed:
            if not self.closed:
                self.log.write(self.number, "closed-by-peer", code=closed.rcvd.code if closed.rcvd else None)
                self.closed = True
                await self.on_disconnect()
        finally:
            FROZEN.discard(self.ws)
            self.closed = True
            for timer in list(self.timers):
                timer.cancel()
            self.cleanup()

    def cleanup(self) -> None:
        pass

    # --- sending -----------------------------------------------------------------------------------------
    async def send_json(self, message: dict) -> None:
        if self.stalled or self.closed:
            return
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        self.log.write(self.number, "send", text=clip(text))
        await self.ws.send(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Starts the closing handshake; the receive loop drains what the client still sends until it ends."""
        if self.closed:
            return
        self.closed = True
        self.log.write(self.number, "close", code=code, reason=reason)
        closing = asyncio.get_running_loop().create_task(self.ws.close(code, reason))
        self.timers.add(closing)
        closing.add_done_callback(self.timers.discard)

    def abort(self) -> None:
        """Drops the TCP connection without a closing handshake."""
        self.closed = True
        self.log.write(self.number, "abort")
        self.ws.transport.abort()

    # --- timers and faults -------------------------------------------------------------------------------
    def later(self, delay_ms: int, action) -> None:
        """Runs `await action()` after delay_ms unless the task changed or the connection ended."""
        generation = self.generation

        async def fire() -> None:
            await asyncio.sleep(delay_ms / 1000.0)
            if self.closed or generation != self.generation:
                return
            try:
                await action()
            except ConnectionClosed:
                pass
            except Exception:  # a bug: make it visible (tests fail on a traceback in stderr)
                traceback.print_exc()
                raise

        timer = asyncio.get_running_loop().create_task(fire())
        self.timers.add(timer)
        timer.add_done_callback(self.timers.discard)

    async def acknowledge_start(self, send_started) -> None:
        """Runs `await send_started()` now, later (slow-start) or never (no-task-started)."""
        if self.faults.get("no-task-started"):
            self.log.write(self.number, "fault", name="no-task-started")
            self.stalled = True
            return
        slow = self.faults.get("slow-start")
        if slow:
            self.log.write(self.number, "fault", name="slow-start")
            self.later(slow["delay_ms"], send_started)
        else:
            await send_started()

    def arm_task_faults(self) -> None:
        """Schedules the faults that fire a while after the task started."""
        faults = self.faults
        failing = faults.get("task-failed")
        if failing and failing["after_bytes"] < 0:
            self.later(failing["after_ms"], lambda: self.fail_injected(failing))
        stall = faults.get("stall")
        if stall:
            self.later(stall["after_ms"], self._stall)
        freeze = faults.get("freeze")
        if freeze and freeze["after_bytes"] < 0:
            self.later(freeze["after_ms"], self._freeze)
        malformed = faults.get("malformed")
        if malformed:
            self.later(malformed["after_ms"], lambda: self._send_raw(malformed["text"]))
        oversized = faults.get("oversized")
        if oversized:
            self.later(oversized["after_ms"], lambda: self._send_raw(self.oversized_message(oversized["size"])))

    async def _stall(self) -> None:
        self.log.write(self.number, "fault", name="stall")
        self.stalled = True

    async def _freeze(self) -> None:
        """Stops reading the socket (so pings go unanswered and TCP back-pressure builds) and sends nothing;
        the connection stays open."""
        self.log.write(self.number, "fault", name="freeze", bytes=self.connection_bytes)
        self.stalled = True
        self.ws.transport.pause_reading()
        FROZEN.add(self.ws)

    async def _send_raw(self, text: str) -> None:
        if self.stalled:
            return
        self.log.write(self.number, "fault-send", size=len(text), text=clip(text, 120))
        await self.ws.send(text)

    def check_pacing(self, first_audio: float, audio_ms: int, now: float) -> None:
        """Logs a warning when a task's audio runs more than 2 s ahead of twice real time since its first frame."""
        wall_ms = (now - first_audio) * 1000.0
        if audio_ms > wall_ms * 2 + 2000:
            self.log.write(self.number, "warning", text=f"audio arrives faster than real time: "
                           f"{audio_ms} ms of audio in {wall_ms:.0f} ms")

    async def close_mid_stream(self) -> bool:
        """Fires close-mid-stream once connection_bytes reached its after_bytes; True if it fired."""
        fault = self.faults.get("close-mid-stream")
        if not fault or self.connection_bytes < fault["after_bytes"]:
            return False
        self.log.write(self.number, "fault", name="close-mid-stream", bytes=self.connection_bytes)
        if fault["how"] == "ws":
            await self.close(1011, "injected fault: close-mid-stream")
        else:
            self.abort()
        return True

    async def audio_faults(self, size: int) -> bool:
        """Counts audio bytes; fires close-mid-stream / task-failed(after_bytes). True if the frame is consumed."""
        self.connection_bytes += size
        if await self.close_mid_stream():
            return True
        fault = self.faults.get("freeze")
        if fault and 0 <= fault["after_bytes"] <= self.connection_bytes and not self.stalled:
            await self._freeze()
            return True
        fault = self.faults.get("task-failed")
        if fault and 0 <= fault["after_bytes"] <= self.connection_bytes:
            await self.fail_injected(fault)
            return True
        return False
