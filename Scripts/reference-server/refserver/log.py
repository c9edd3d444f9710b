"""JSON-lines event log (--log FILE). Never receives credentials: callers pass no headers."""

from __future__ import annotations

import json
import threading
import time


class EventLog:
    def __init__(self, path: str | None) -> None:
        self.file = open(path, "a", encoding="utf-8") if path else None
        self.lock = threading.Lock()

    def write(self, connection: int, kind: str, **fields) -> None:
        if self.file is None:
            return
        record = {"t": round(time.time(), 3), "conn": connection, "kind": kind, **fields}
        line = json.dumps(record, ensure_ascii=False)
        with self.lock:
            self.file.write(line + "\n")
            self.file.flush()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


def clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + f"...(+{len(text) - limit} chars)"
