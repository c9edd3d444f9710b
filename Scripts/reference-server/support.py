"""Test support for the reference server's own tests: a server subprocess, test audio, and raw protocol clients."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
import tempfile
import unittest
import uuid
import wave
from functools import lru_cache

import numpy as np
from websockets.asyncio.client import connect

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "server.py")


class ServerProcess:
    """Runs server.py on a free loopback port; stops it by closing its stdin."""

    def __init__(self, *args: str) -> None:
        self.args = list(args)
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.stderr = ""

    def __enter__(self) -> "ServerProcess":
        self.process = subprocess.Popen(
            [sys.executable, SERVER, "--host", "127.0.0.1", "--port", "0", *self.args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 20)
        line = self.process.stdout.readline() if ready else ""
        if not line.startswith("LISTENING "):
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"server did not start: {line!r} {self.process.communicate()[1]}")
        self.first_line = line
        self.port = int(line.split()[1])
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        if "Traceback" in self.stderr and exc[0] is None:
            raise AssertionError("server printed a traceback:\n" + self.stderr)

    def stop(self) -> int:
        if self.process.stdin.closed:
            return self.process.returncode
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr = self.process.stderr.read()
        self.process.stdout.close()
        self.process.stderr.close()
        return self.process.returncode

    def url(self, path: str = "/api-ws/v1/inference", scheme: str = "ws") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"


class ServerTestCase(unittest.TestCase):
    """A test class sharing one server started with SERVER_ARGS."""

    SERVER_ARGS: tuple[str, ...] = ()
    server: ServerProcess

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(*cls.SERVER_ARGS).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)


# --- audio -------------------------------------------------------------------------------------------------
RATE = 16000
# Tone bursts (1 kHz, -23 dBFS) at exact 10 ms frame boundaries, silence elsewhere: the deterministic
# recogniser's sentences are [500, 1700) ms and [3500, 4200) ms of a 6 s signal.
BURSTS = ((0.5, 1.7), (3.5, 4.2))
BURSTS_SECONDS = 6.0


def tone_bursts(rate: int = RATE, bursts=BURSTS, seconds: float = BURSTS_SECONDS) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    signal = np.zeros_like(t)
    for start, end in bursts:
        mask = (t >= start - 1e-9) & (t < end - 1e-9)
        signal[mask] = 0.1 * np.sin(2 * np.pi * 1000 * t[mask])
    return (signal * 32767).astype("<i2").tobytes()


def silence(seconds: float, rate: int = RATE) -> bytes:
    return bytes(int(seconds * rate) * 2)


@lru_cache(maxsize=None)
def workdir() -> str:
    return tempfile.mkdtemp(prefix="refserver-test-")


@lru_cache(maxsize=None)
def flite_pcm(text: str) -> bytes:
    """16 kHz mono int16 speech from flite (voice slt), with 0.5 s of silence before and 1.5 s after."""
    path = os.path.join(workdir(), uuid.uuid4().hex + ".wav")
    subprocess.run(["flite", "-voice", "slt", "-t", text, "-o", path], check=True)
    with wave.open(path) as file:
        assert file.getframerate() == RATE and file.getnchannels() == 1
        speech = file.readframes(file.getnframes())
    return silence(0.5) + speech + silence(1.5)


def write_wav(path: str, pcm: bytes, rate: int = RATE) -> None:
    with wave.open(path, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(pcm)


def wav_bytes(pcm: bytes, rate: int = RATE) -> bytes:
    path = os.path.join(workdir(), uuid.uuid4().hex + ".wav")
    write_wav(path, pcm, rate)
    with open(path, "rb") as file:
        return file.read()


def ogg_opus(pcm: bytes, rate: int = RATE, channels: int = 1, extra: tuple = ()) -> bytes:
    """Encodes mono 16-bit PCM to Ogg Opus with opusenc (opus-tools)."""
    source = os.path.join(workdir(), uuid.uuid4().hex + ".wav")
    if channels == 2:
        samples = np.frombuffer(pcm, dtype="<i2")
        pcm = np.repeat(samples, 2).astype("<i2").tobytes()
    with wave.open(source, "wb") as file:
        file.setnchannels(channels)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(pcm)
    target = source[:-4] + ".opus"
    subprocess.run(["opusenc", "--quiet", "--bitrate", "32", *extra, source, target], check=True)
    with open(target, "rb") as file:
        return file.read()


def chunks(data: bytes, size: int):
    for start in range(0, len(data), size):
        yield data[start:start + size]


# --- DashScope family A -----------------------------------------------------------------------------------
def task_id() -> str:
    return uuid.uuid4().hex


def run_task(task: str, model: str = "fun-asr-realtime", input_: dict | None = None, **parameters) -> str:
    params = {"format": "pcm", "sample_rate": 16000}
    params.update(parameters)
    return json.dumps({"header": {"action": "run-task", "task_id": task, "streaming": "duplex"},
                       "payload": {"task_group": "audio", "task": "asr", "function": "recognition",
                                   "model": model, "parameters": params,
                                   "input": {} if input_ is None else input_}})


def finish_task(task: str) -> str:
    return json.dumps({"header": {"action": "finish-task", "task_id": task, "streaming": "duplex"},
                       "payload": {"input": {}}})


def continue_task(task: str, context: list) -> str:
    return json.dumps({"header": {"action": "continue-task", "task_id": task, "streaming": "duplex"},
                       "payload": {"input": {"context": context}}})


def dashscope(server: ServerProcess, key: str | None = None, path: str = "/api-ws/v1/inference", **options):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return connect(server.url(path), additional_headers=headers, max_size=None, compression=None,
                   open_timeout=5, **options)


async def recv_json(ws, timeout: float = 5.0) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def until(ws, names: tuple[str, ...], key: str = "event", timeout: float = 5.0) -> list[dict]:
    """Receives JSON messages until one whose header[key] is in names; returns them all."""
    messages = []
    while True:
        message = await recv_json(ws, timeout)
        messages.append(message)
        if message["header"].get(key) in names:
            return messages


async def dashscope_session(server: ServerProcess, audio: bytes, chunk: int = 3200, **parameters) -> list[dict]:
    """A whole valid task: run-task, audio, finish-task; returns every server message."""
    async with dashscope(server) as ws:
        task = task_id()
        await ws.send(run_task(task, **parameters))
        messages = [await recv_json(ws)]
        for piece in chunks(audio, chunk):
            await ws.send(piece)
        await ws.send(finish_task(task))
        messages += await until(ws, ("task-finished", "task-failed"))
        return messages


async def expect_failure(ws, timeout: float = 5.0) -> dict:
    """Reads until task-failed, then checks the server closes the connection; returns the task-failed."""
    messages = await until(ws, ("task-failed",), timeout=timeout)
    await asyncio.wait_for(ws.wait_closed(), timeout)
    return messages[-1]


# --- NLS family C -----------------------------------------------------------------------------------------
def nls_message(name: str, task: str, payload: dict | None = None, appkey: str | None = "testappkey",
                message_id: str | None = None) -> str:
    header = {"message_id": message_id if message_id is not None else uuid.uuid4().hex, "task_id": task,
              "namespace": "SpeechTranscriber", "name": name}
    if appkey is not None:
        header["appkey"] = appkey
    message = {"header": header}
    if payload is not None:
        message["payload"] = payload
    return json.dumps(message)


def nls(server: ServerProcess, token: str | None = None, path: str = "/ws/v1", header_token: str | None = None):
    query = f"?token={token}" if token else ""
    headers = {"X-NLS-Token": header_token} if header_token else {}
    return connect(server.url(path) + query, additional_headers=headers, max_size=None, compression=None,
                   open_timeout=5)


async def nls_session(server: ServerProcess, audio: bytes, chunk: int = 3200, path: str = "/ws/v1",
                      appkey: str | None = "testappkey", **payload) -> list[dict]:
    start = {"format": "pcm", "sample_rate": 16000}
    start.update(payload)
    async with nls(server, path=path) as ws:
        task = task_id()
        await ws.send(nls_message("StartTranscription", task, start, appkey=appkey))
        messages = [await recv_json(ws)]
        for piece in chunks(audio, chunk):
            await ws.send(piece)
        await ws.send(nls_message("StopTranscription", task, appkey=appkey))
        messages += await until(ws, ("TranscriptionCompleted", "TaskFailed"), key="name")
        return messages


async def nls_failure(ws, timeout: float = 5.0) -> dict:
    messages = await until(ws, ("TaskFailed",), key="name", timeout=timeout)
    await asyncio.wait_for(ws.wait_closed(), timeout)
    return messages[-1]
