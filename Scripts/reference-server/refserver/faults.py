"""Fault injection: parsing `--fault NAME[:key=value,...]` and counting how often each fault may fire."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

# name -> {parameter: (type, default, help)}
FAULTS: dict[str, dict[str, tuple[type, object, str]]] = {
    "unauthorized": {},
    "forbidden": {},
    "task-failed": {
        "after_ms": (int, 0, "wall-clock ms after task-started/TranscriptionStarted"),
        "after_bytes": (int, -1, "or: once this many audio bytes arrived (>= 0 overrides after_ms)"),
        "code": (str, "", "error_code (family A) or status (NLS); default InternalError / 50000000"),
        "message": (str, "", "error message; default 'injected fault: task failed'"),
    },
    "close-mid-stream": {
        "after_bytes": (int, 64000, "audio bytes received before the connection is dropped"),
        "how": (str, "tcp", "tcp: abort the TCP connection with no close frame; ws: close frame 1011"),
    },
    "stall": {
        "after_ms": (int, 0, "wall-clock ms after task-started before the server goes silent"),
    },
    "freeze": {
        "after_ms": (int, 0, "wall-clock ms after task-started before the server freezes"),
        "after_bytes": (int, -1, "or: once this many audio bytes arrived (>= 0 overrides after_ms)"),
    },
    "malformed": {
        "after_ms": (int, 0, "wall-clock ms after task-started"),
        "text": (str, "this is not JSON {", "the text frame to send"),
    },
    "oversized": {
        "after_ms": (int, 0, "wall-clock ms after task-started"),
        "size": (int, 2 * 1024 * 1024, "size of the text frame in bytes"),
    },
    "no-task-started": {},
    "slow-start": {
        "delay_ms": (int, 3000, "delay before task-started/TranscriptionStarted; audio before it fails the task"),
    },
    "slow-finish": {
        "delay_ms": (int, 5000, "delay before task-finished/TranscriptionCompleted"),
    },
    "idle-close": {},
}
COMMON = {"times": (int, 0, "fire on the first N connections only (0 = every connection)")}


@dataclass
class Fault:
    name: str
    params: dict
    times: int
    fired: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def claim(self) -> bool:
        """True if the fault applies to one more connection (counts it)."""
        with self.lock:
            if self.times and self.fired >= self.times:
                return False
            self.fired += 1
            return True

    def __getitem__(self, key: str):
        return self.params[key]


def parse_fault(spec: str) -> Fault:
    name, _, rest = spec.partition(":")
    if name not in FAULTS:
        raise ValueError(f"unknown fault '{name}' (known: {', '.join(FAULTS)})")
    schema = {**FAULTS[name], **COMMON}
    params = {key: default for key, (_, default, _) in schema.items()}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep or key not in schema:
            raise ValueError(f"fault '{name}': bad parameter '{item}' (known: {', '.join(schema)})")
        kind = schema[key][0]
        try:
            params[key] = kind(value)
        except ValueError:
            raise ValueError(f"fault '{name}': parameter {key} must be {kind.__name__}") from None
    times = params.pop("times")
    if name == "close-mid-stream" and params["how"] not in ("tcp", "ws"):
        raise ValueError("fault 'close-mid-stream': how must be tcp or ws")
    return Fault(name, params, times)


def describe_faults() -> str:
    lines = ["faults (repeatable; syntax NAME[:key=value,...]; every fault also takes times=N):"]
    for name, schema in FAULTS.items():
        lines.append(f"  {name}")
        for key, (kind, default, text) in schema.items():
            lines.append(f"      {key}={kind.__name__} (default {default!r}): {text}")
    return "\n".join(lines)


class ConnectionFaults:
    """The faults claimed by one connection."""

    def __init__(self, faults: list[Fault]) -> None:
        self.active: dict[str, Fault] = {}
        for fault in faults:
            if fault.name not in self.active and fault.claim():
                self.active[fault.name] = fault

    def get(self, name: str) -> Fault | None:
        return self.active.get(name)
