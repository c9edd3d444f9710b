"""Validation of DashScope speech-synthesis (CosyVoice / Qwen-Audio-TTS) run-task and continue-task messages.

Follows docs/tts-protocol.md §2 and the stream-input TTS SDK's parameter table. Every check raises
ProtocolError(code, message), which the session reports as task-failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dashscope_params import INVALID, check_task_kind, invalid, is_int, is_number, missing
from .errors import ProtocolError
from .tts_voices import VOICES

MODELS = ("cosyvoice-v1", "cosyvoice-v2", "cosyvoice-v3-flash", "cosyvoice-v3-plus", "cosyvoice-v3.5-flash",
          "cosyvoice-v3.5-plus", "qwen-audio-3.0-tts-flash", "qwen-audio-3.0-tts-plus")
FORMATS = ("pcm", "wav", "mp3", "opus")
SAMPLE_RATES = (8000, 16000, 22050, 24000, 44100, 48000)
LANGUAGES = ("zh", "en", "fr", "de", "ja", "ko", "ru", "pt", "th", "id", "vi", "it", "ms")
BOOLEANS = ("enable_ssml", "word_timestamp_enabled", "enable_aigc_tag", "phoneme_timestamp_enabled")
# SSML is refused for these models ("SSML text is not supported at the moment!"); inferred from the docs'
# restriction of SSML to CosyVoice v2 and later.
NO_SSML_MODELS = ("cosyvoice-v1", "qwen-audio-3.0-tts-flash", "qwen-audio-3.0-tts-plus")
VOICE_ERROR = "[tts:]Engine return error code: 418"
MAX_TEXT_PER_MESSAGE = 20000  # characters per continue-task (a CJK character counts 2)
MAX_TEXT_PER_TASK = 200000


@dataclass
class TtsRequest:
    task_id: str
    model: str
    voice: str
    audio_format: str = "mp3"
    sample_rate: int = 22050
    volume: int = 50
    rate: float = 1.0
    pitch: float = 1.0
    bit_rate: int = 32
    ssml: bool = False
    word_timestamps: bool = False
    seed: int = 0
    parameters: dict = field(default_factory=dict)


def is_tts_run_task(message) -> bool:
    """Whether a (well-formed enough) message is a run-task for speech synthesis, not recognition."""
    if not isinstance(message, dict) or not isinstance(message.get("header"), dict):
        return False
    payload = message.get("payload")
    return message["header"].get("action") == "run-task" and isinstance(payload, dict) \
        and payload.get("task") == "tts" and payload.get("function", "SpeechSynthesizer") == "SpeechSynthesizer"


def check_run_task(message: dict, task_id: str) -> TtsRequest:
    payload = message["payload"]
    model = check_task_kind(payload, ("audio", "tts", "SpeechSynthesizer"), "speech synthesis", MODELS)
    if "input" not in payload:
        raise ProtocolError(INVALID, "task can not be null")
    if not isinstance(payload["input"], dict):
        raise ProtocolError(INVALID, "Invalid payload data: payload.input must be an object ({} when empty)!")
    parameters = payload.get("parameters")
    if parameters is None:
        raise missing("payload.parameters")
    if not isinstance(parameters, dict):
        raise invalid("payload.parameters", "must be an object")
    return check_parameters(task_id, model, parameters)


def check_parameters(task_id: str, model: str, p: dict) -> TtsRequest:
    prefix = "payload.parameters."
    voice = p.get("voice")
    if voice is None:
        raise missing(prefix + "voice")
    if not isinstance(voice, str) or voice not in VOICES:
        raise ProtocolError(INVALID, VOICE_ERROR)
    request = TtsRequest(task_id, model, voice, parameters=p)
    for name in BOOLEANS:
        if name in p and not isinstance(p[name], bool):
            raise invalid(prefix + name, f"must be a boolean (true/false), got {p[name]!r}")
    if "text_type" in p and p["text_type"] not in ("PlainText", "SSML"):
        raise invalid(prefix + "text_type", f"must be PlainText or SSML, got {p['text_type']!r}")
    if "format" in p:
        if p["format"] not in FORMATS:
            raise invalid(prefix + "format", f"{p['format']!r} is not one of {', '.join(FORMATS)}")
        request.audio_format = p["format"]
    if request.audio_format == "opus" and model == "cosyvoice-v1":
        raise invalid(prefix + "format", "cosyvoice-v1 does not support opus")
    if "sample_rate" in p:
        rate = p["sample_rate"]
        if not is_int(rate) or rate not in SAMPLE_RATES:
            raise invalid(prefix + "sample_rate", f"must be one of {', '.join(map(str, SAMPLE_RATES))}, got {rate!r}")
        request.sample_rate = rate
    request.volume = ranged(p, "volume", 0, 100, integer=True, default=50)
    request.rate = ranged(p, "rate", 0.5, 2.0, default=1.0)
    request.pitch = ranged(p, "pitch", 0.5, 2.0, default=1.0)
    request.bit_rate = ranged(p, "bit_rate", 6, 510, integer=True, default=32)
    request.seed = ranged(p, "seed", 0, 65535, integer=True, default=0)
    hints = p.get("language_hints")
    if hints is not None:
        if not isinstance(hints, list) or not hints or not all(isinstance(h, str) for h in hints):
            raise invalid(prefix + "language_hints", "must be a non-empty array of language codes")
        if hints[0] not in LANGUAGES:
            raise invalid(prefix + "language_hints", f"{hints[0]!r} is not one of {', '.join(LANGUAGES)}")
    for name in ("instruction", "aigc_propagator", "aigc_propagate_id"):
        if name in p and not isinstance(p[name], str):
            raise invalid(prefix + name, "must be a string")
    request.ssml = p.get("enable_ssml", False) or p.get("text_type") == "SSML"
    if request.ssml and model in NO_SSML_MODELS:
        raise ProtocolError(INVALID, "SSML text is not supported at the moment!")
    request.word_timestamps = p.get("word_timestamp_enabled", False)
    return request


def ranged(p: dict, name: str, low, high, integer: bool = False, default=None):
    if name not in p:
        return default
    value = p[name]
    if not (is_int(value) if integer else is_number(value)) or not low <= value <= high:
        kind = "an integer" if integer else "a number"
        raise invalid("payload.parameters." + name, f"must be {kind} in [{low}, {high}], got {value!r}")
    return value


def text_length(text: str) -> int:
    """Characters as the service counts them: a CJK character counts 2, everything else 1."""
    return sum(2 if is_cjk(ch) else 1 for ch in text)


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return 0x2E80 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF or 0xF900 <= code <= 0xFAFF \
        or 0xFF00 <= code <= 0xFFEF or 0x20000 <= code <= 0x3FFFF


def check_continue_payload(payload: dict) -> str:
    """continue-task: `input.text` a string (the Python SDK's `{"flush": true}` is accepted as no text). The SDKs
    repeat model/task_group/parameters here; extra keys are tolerated."""
    data = payload.get("input")
    if data is None:
        raise missing("payload.input")
    if not isinstance(data, dict):
        raise invalid("payload.input", "must be an object")
    if "text" not in data:
        if data.get("flush") is True:
            return ""
        raise missing("payload.input.text")
    text = data["text"]
    if not isinstance(text, str):
        raise invalid("payload.input.text", "must be a string")
    if text_length(text) > MAX_TEXT_PER_MESSAGE:
        raise ProtocolError(INVALID, f"Text length exceeds the limit: {text_length(text)} characters in one "
                            f"continue-task, at most {MAX_TEXT_PER_MESSAGE} (a CJK character counts 2).")
    return text
