"""Server-wide settings built from the command line."""

from __future__ import annotations

from dataclasses import dataclass, field

from .faults import Fault


@dataclass
class ServerConfig:
    recognizer: str = "deterministic"
    api_key: str | None = None
    nls_appkey: str | None = None
    faults: list[Fault] = field(default_factory=list)
    translate: str | None = None  # NLS/Tingwu: target language of ResultTranslated events
    energy_threshold_db: float = -40.0
    # Timeouts in seconds; None = the protocol's documented default (see README).
    idle_timeout: float | None = None
    no_audio_timeout: float | None = None
    silence_timeout: float | None = None
    heartbeat_interval: float = 10.0
    partial_interval_ms: int = 200  # a partial per this much speech audio

    def idle(self, default: float) -> float:
        return default if self.idle_timeout is None else self.idle_timeout

    def no_audio(self, default: float) -> float:
        return default if self.no_audio_timeout is None else self.no_audio_timeout
