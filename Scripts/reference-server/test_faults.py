"""Tests of the reference server's injected faults (--fault), on both protocol families."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import unittest

from websockets.exceptions import ConnectionClosed, ConnectionClosedError, InvalidStatus

import support as s


def run(coroutine):
    return asyncio.run(coroutine)


@contextlib.asynccontextmanager
async def started_task(server, model: str = "fun-asr-realtime"):
    """A DashScope connection with a started task: yields (ws, task_id, task-started message)."""
    async with s.dashscope(server) as ws:
        task = s.task_id()
        await ws.send(s.run_task(task, model=model))
        yield ws, task, await s.recv_json(ws)


class HandshakeFaultTests(unittest.TestCase):
    def status(self, server, path="/api-ws/v1/inference"):
        async def attempt():
            try:
                async with s.connect(server.url(path), open_timeout=5):
                    return 101
            except InvalidStatus as error:
                return error.response.status_code
        return run(attempt())

    def test_unauthorized_and_forbidden(self):
        with s.ServerProcess("--fault", "unauthorized") as server:
            self.assertEqual(self.status(server), 401)
            self.assertEqual(self.status(server, "/ws/v1"), 401)
        with s.ServerProcess("--fault", "forbidden") as server:
            self.assertEqual(self.status(server), 403)

    def test_times_limits_a_fault_to_the_first_connections(self):
        with s.ServerProcess("--fault", "unauthorized:times=2") as server:
            self.assertEqual([self.status(server) for _ in range(3)], [401, 401, 101])


class TaskFaultTests(unittest.TestCase):
    def test_task_failed_after_ms(self):
        with s.ServerProcess("--fault", "task-failed:after_ms=300") as server:
            async def scenario():
                async with started_task(server) as (ws, task, started):
                    self.assertEqual(started["header"]["event"], "task-started")
                    began = time.monotonic()
                    failed = await s.expect_failure(ws)
                    self.assertGreaterEqual(time.monotonic() - began, 0.25)
                    self.assertEqual(failed["header"]["task_id"], task)
                    self.assertEqual(failed["header"]["error_code"], "InternalError")
            run(scenario())

    def test_task_failed_after_bytes_with_custom_code(self):
        spec = "task-failed:after_bytes=6400,code=Throttling,message=slow down"
        with s.ServerProcess("--fault", spec) as server:
            async def scenario():
                async with started_task(server) as (ws, task, _):
                    await ws.send(s.silence(0.1))
                    await ws.send(s.silence(0.1))
                    failed = await s.expect_failure(ws)
                    self.assertEqual((failed["header"]["error_code"], failed["header"]["error_message"]),
                                     ("Throttling", "slow down"))
            run(scenario())

    def test_close_mid_stream_drops_tcp_without_close_frame(self):
        with s.ServerProcess("--fault", "close-mid-stream:after_bytes=9600") as server:
            async def scenario():
                async with started_task(server) as (ws, task, _):
                    with self.assertRaises(ConnectionClosedError) as caught:
                        for piece in s.chunks(s.silence(2.0), 3200):
                            await ws.send(piece)
                            await asyncio.sleep(0.01)
                        await asyncio.wait_for(ws.recv(), 5)
                    self.assertIsNone(caught.exception.rcvd, "no close frame expected")
            run(scenario())

    def test_close_mid_stream_ws_sends_1011(self):
        with s.ServerProcess("--fault", "close-mid-stream:after_bytes=3200,how=ws") as server:
            async def scenario():
                async with started_task(server) as (ws, task, _):
                    await ws.send(s.silence(0.1))
                    with self.assertRaises(ConnectionClosed):
                        await asyncio.wait_for(ws.recv(), 5)
                    self.assertEqual(ws.close_code, 1011)
            run(scenario())

    def test_stall_goes_silent_but_keeps_the_socket_open(self):
        with s.ServerProcess("--fault", "stall") as server:
            async def scenario():
                async with started_task(server) as (ws, task, started):
                    self.assertEqual(started["header"]["event"], "task-started")
                    for piece in s.chunks(s.tone_bursts(), 16000):
                        await ws.send(piece)
                    await ws.send(s.finish_task(task))
                    with self.assertRaises(asyncio.TimeoutError):
                        await asyncio.wait_for(ws.recv(), 1.0)
                    pong = await ws.ping()
                    await asyncio.wait_for(pong, 2)
            run(scenario())

    def test_freeze_stops_reading_and_answering_pings(self):
        with s.ServerProcess("--fault", "freeze:after_bytes=6400") as server:
            async def scenario():
                async with started_task(server) as (ws, task, _):
                    await ws.send(s.silence(0.1))
                    await ws.send(s.silence(0.1))
                    await asyncio.sleep(0.3)
                    pong = await ws.ping()
                    with self.assertRaises(asyncio.TimeoutError):
                        await asyncio.wait_for(pong, 1.5)
                    with self.assertRaises(asyncio.TimeoutError):
                        await asyncio.wait_for(ws.recv(), 0.5)
                    ws.transport.abort()
            run(scenario())

    def test_no_task_started(self):
        with s.ServerProcess("--fault", "no-task-started") as server:
            async def scenario():
                async with s.dashscope(server) as ws:
                    await ws.send(s.run_task(s.task_id()))
                    with self.assertRaises(asyncio.TimeoutError):
                        await asyncio.wait_for(ws.recv(), 1.0)
            run(scenario())

    def test_malformed_and_oversized_frames(self):
        with s.ServerProcess("--fault", "malformed", "--fault", "oversized:after_ms=100") as server:
            async def scenario():
                async with started_task(server) as (ws, task, started):
                    malformed = await asyncio.wait_for(ws.recv(), 5)
                    self.assertIsInstance(malformed, str)
                    with self.assertRaises(ValueError):
                        json.loads(malformed)
                    oversized = await asyncio.wait_for(ws.recv(), 5)
                    self.assertIsInstance(oversized, str)
                    self.assertGreaterEqual(len(oversized.encode()), 2 * 1024 * 1024)
                    self.assertEqual(json.loads(oversized)["header"]["task_id"], task)
                    await ws.send(s.finish_task(task))
                    messages = await s.until(ws, ("task-finished",))
                    self.assertEqual(messages[-1]["header"]["event"], "task-finished")
            run(scenario())

    def test_slow_start_fails_audio_sent_before_task_started(self):
        with s.ServerProcess("--fault", "slow-start:delay_ms=500") as server:
            async def scenario():
                async with s.dashscope(server) as ws:
                    task = s.task_id()
                    began = time.monotonic()
                    await ws.send(s.run_task(task))
                    started = await s.recv_json(ws)
                    self.assertEqual(started["header"]["event"], "task-started")
                    self.assertGreaterEqual(time.monotonic() - began, 0.45)
                async with s.dashscope(server) as ws:
                    await ws.send(s.run_task(task))
                    await ws.send(s.silence(0.1))
                    failed = await s.expect_failure(ws)
                    self.assertIn("before task-started", failed["header"]["error_message"])
            run(scenario())

    def test_slow_finish_delays_task_finished(self):
        with s.ServerProcess("--fault", "slow-finish:delay_ms=700") as server:
            async def scenario():
                async with started_task(server) as (ws, task, _):
                    await ws.send(s.silence(0.1))
                    began = time.monotonic()
                    await ws.send(s.finish_task(task))
                    messages = await s.until(ws, ("task-finished",))
                    self.assertGreaterEqual(time.monotonic() - began, 0.65)
            run(scenario())

    def test_nls_faults(self):
        with s.ServerProcess("--fault", "task-failed:after_ms=100", "--fault", "slow-finish:delay_ms=100") as server:
            async def scenario():
                async with s.nls(server) as ws:
                    task = s.task_id()
                    await ws.send(s.nls_message("StartTranscription", task, {}))
                    self.assertEqual((await s.recv_json(ws))["header"]["name"], "TranscriptionStarted")
                    failed = await s.nls_failure(ws)
                    self.assertEqual(failed["header"]["status"], 50000000)
                    self.assertEqual(failed["header"]["task_id"], task)
            run(scenario())


if __name__ == "__main__":
    unittest.main()
