"""Validation of family-A (DashScope `/api-ws/v1/inference`) client messages, per docs/asr-protocols.md §4.

Every check raises ProtocolError(code, message) with the error_code/error_message the task-failed event carries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ProtocolError

INVALID = "InvalidParameter"
TASK_ID = re.compile(r"^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$")
ACTIONS = ("run-task", "continue-task", "finish-task")
FORMATS = ("pcm", "wav", "mp3", "opus", "speex", "aac", "amr")
MODELS = (
    "paraformer-realtime-v2", "paraformer-realtime-v1", "paraformer-realtime-8k-v2", "paraformer-realtime-8k-v1",
    "fun-asr-realtime", "fun-asr-realtime-2025-11-07", "fun-asr-realtime-2025-09-15", "fun-asr-realtime-2026-02-28",
    "fun-asr-flash-8k-realtime", "fun-asr-flash-8k-realtime-2026-01-28",
    "qwen-audio-3.0-asr-flash-streaming", "qwen-audio-3.1-asr-flash-streaming", "qwen-audio-3.1-asr-flash-message",
    "gummy-realtime-v1", "gummy-chat-v1",
)
CONTEXT_MODELS = ("fun-asr-realtime", "fun-asr-realtime-2025-11-07", "qwen-audio-3.0-asr-flash-streaming",
                  "qwen-audio-3.1-asr-flash-streaming", "qwen-audio-3.1-asr-flash-message")
PARAFORMER_V2_LANGUAGES = ("zh", "en", "ja", "yue", "ko", "de", "fr", "ru")
GUMMY_LANGUAGES = ("zh", "en", "ja", "yue", "ko", "de", "fr", "ru", "it", "es")
BOOLEANS = ("semantic_punctuation_enabled", "multi_threshold_mode_enabled", "heartbeat",
            "disfluency_removal_enabled", "punctuation_prediction_enabled", "inverse_text_normalization_enabled",
            "intermediate_result_enabled", "keep_dialect", "transcription_enabled", "translation_enabled", "stream")


def missing(path: str) -> ProtocolError:
    return ProtocolError(INVALID, f"Missing required parameter '{path}'! Please follow the protocol!")


def invalid(path: str, why: str) -> ProtocolError:
    return ProtocolError(INVALID, f"Invalid parameter '{path}': {why}! Please follow the protocol!")


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass
class TaskRequest:
    task_id: str
    model: str
    audio_format: str
    sample_rate: int
    parameters: dict

    def flag(self, name: str, default: bool) -> bool:
        return self.parameters.get(name, default)

    @property
    def family(self) -> str:
        for prefix in ("paraformer", "fun-asr", "qwen-audio", "gummy"):
            if self.model.startswith(prefix):
                return prefix
        return self.model


def check_header(message) -> tuple[str, str]:
    """Checks `header` of any client message; returns (action, task_id)."""
    if not isinstance(message, dict):
        raise ProtocolError(INVALID, "Invalid payload data: the message must be a JSON object!")
    header = message.get("header")
    if header is None:
        raise missing("header")
    if not isinstance(header, dict):
        raise invalid("header", "must be an object")
    action = header.get("action")
    if action is None:
        raise missing("header.action")
    if action not in ACTIONS:
        raise invalid("header.action", f"unknown action {action!r} (expected one of {', '.join(ACTIONS)})")
    task_id = header.get("task_id")
    if task_id is None:
        raise missing("header.task_id")
    if not isinstance(task_id, str) or not TASK_ID.match(task_id):
        raise invalid("header.task_id", f"{task_id!r} is not a UUID (32 hex digits, with or without hyphens)")
    streaming = header.get("streaming")
    if streaming is None:
        raise missing("header.streaming")
    if streaming != "duplex":
        raise invalid("header.streaming", f"must be \"duplex\", got {streaming!r}")
    if "payload" not in message:
        raise missing("payload")
    if not isinstance(message["payload"], dict):
        raise invalid("payload", "must be an object")
    return action, task_id


def check_task_kind(payload: dict, kind: tuple[str, str, str], purpose: str, models: tuple[str, ...]) -> str:
    """run-task's task_group / task / function must be `kind`; returns payload.model, one of `models`."""
    for key, value in zip(("task_group", "task", "function"), kind):
        if key not in payload:
            raise missing(f"payload.{key}")
        if payload[key] != value:
            raise invalid(f"payload.{key}", f"must be \"{value}\" for {purpose}, got {payload[key]!r}")
    model = payload.get("model")
    if model is None:
        raise missing("payload.model")
    if not isinstance(model, str):
        raise invalid("payload.model", "must be a string")
    if model not in models:
        raise ProtocolError("ModelNotFound", f"Model not found ({model})! Check payload.model.")
    return model


def check_run_task(message: dict, task_id: str) -> TaskRequest:
    payload = message["payload"]
    model = check_task_kind(payload, ("audio", "asr", "recognition"), "speech recognition", MODELS)
    if "input" not in payload:
        raise missing("payload.input")
    if not isinstance(payload["input"], dict):
        raise ProtocolError(INVALID, "Invalid payload data: payload.input must be an object ({} when empty)!")
    if payload["input"]:
        check_context(payload["input"], model, "payload.input")
    parameters = payload.get("parameters")
    if parameters is None:
        raise missing("payload.parameters")
    if not isinstance(parameters, dict):
        raise invalid("payload.parameters", "must be an object")
    check_resources(payload.get("resources"))
    request = TaskRequest(task_id, model, "", 0, parameters)
    check_parameters(request)
    return request


def check_resources(resources) -> None:
    if resources is None:
        return
    if not isinstance(resources, list):
        raise invalid("payload.resources", "must be an array")
    for index, item in enumerate(resources):
        if not isinstance(item, dict) or not isinstance(item.get("resource_id"), str) \
                or item.get("resource_type") != "asr_phrase":
            raise invalid(f"payload.resources[{index}]",
                          "must be {\"resource_id\": string, \"resource_type\": \"asr_phrase\"}")


def check_parameters(request: TaskRequest) -> None:
    p = request.parameters
    prefix = "payload.parameters."
    if "format" not in p:
        raise missing(prefix + "format")
    if p["format"] not in FORMATS:
        raise invalid(prefix + "format", f"{p['format']!r} is not one of {', '.join(FORMATS)}")
    request.audio_format = p["format"]
    if "sample_rate" not in p:
        raise missing(prefix + "sample_rate")
    rate = p["sample_rate"]
    if not is_int(rate):
        raise invalid(prefix + "sample_rate", f"must be an integer, got {rate!r}")
    check_sample_rate(request.model, rate)
    request.sample_rate = rate
    for name in BOOLEANS:
        if name in p and not isinstance(p[name], bool):
            raise invalid(prefix + name, f"must be a boolean (true/false), got {p[name]!r}")
    if "max_sentence_silence" in p:
        value = p["max_sentence_silence"]
        if not is_int(value) or not 200 <= value <= 6000:
            raise invalid(prefix + "max_sentence_silence", f"must be an integer in [200, 6000] ms, got {value!r}")
    if "speech_noise_threshold" in p:
        value = p["speech_noise_threshold"]
        if not is_number(value) or not -1.0 <= value <= 1.0:
            raise invalid(prefix + "speech_noise_threshold", f"must be a number in [-1, 1], got {value!r}")
    if "vocabulary_id" in p and (not isinstance(p["vocabulary_id"], str) or not p["vocabulary_id"]):
        raise invalid(prefix + "vocabulary_id", "must be a non-empty string")
    if "special_word_filter" in p and not isinstance(p["special_word_filter"], (str, dict)):
        raise invalid(prefix + "special_word_filter", "must be a string or an object")
    check_language_hints(request.model, p.get("language_hints"))
    check_vocabulary(request.model, p.get("vocabulary"))
    if "vad_model" in p and p["vad_model"] not in ("near_meeting_16k", "far_field_meeting_16k"):
        raise invalid(prefix + "vad_model", "must be near_meeting_16k or far_field_meeting_16k")
    if request.family == "gummy":
        check_gummy(p)


def check_sample_rate(model: str, rate: int) -> None:
    path = "payload.parameters.sample_rate"
    if "8k" in model:
        if rate != 8000:
            raise invalid(path, f"model {model} supports only 8000 Hz, got {rate}")
    elif model == "paraformer-realtime-v1" or model == "qwen-audio-3.1-asr-flash-message":
        if rate != 16000:
            raise invalid(path, f"model {model} supports only 16000 Hz, got {rate}")
    elif model.startswith("gummy"):
        if not 16000 <= rate <= 48000:
            raise invalid(path, f"model {model} needs 16000 Hz or more, got {rate}")
    elif not 8000 <= rate <= 48000:
        raise invalid(path, f"{rate} Hz is outside 8000-48000")


def check_language_hints(model: str, hints) -> None:
    path = "payload.parameters.language_hints"
    if hints is None:
        return
    if not isinstance(hints, list) or not hints or not all(isinstance(h, str) and h for h in hints):
        raise invalid(path, "must be a non-empty array of language codes")
    if model == "qwen-audio-3.1-asr-flash-message":
        raise invalid(path, f"not supported by model {model}")
    if model == "paraformer-realtime-v2":
        for hint in hints:
            if hint not in PARAFORMER_V2_LANGUAGES:
                raise invalid(path, f"{hint!r} is not one of {', '.join(PARAFORMER_V2_LANGUAGES)}")
    elif not model.startswith(("fun-asr", "qwen-audio")):
        raise invalid(path, f"not supported by model {model}")


def check_vocabulary(model: str, vocabulary) -> None:
    path = "payload.parameters.vocabulary"
    if vocabulary is None:
        return
    if not model.startswith("qwen-audio"):
        raise invalid(path, f"inline hot words are supported by Qwen-Audio models only, not {model}")
    if not isinstance(vocabulary, dict):
        raise invalid(path, "must be an object {word: weight}")
    super_words = 0
    for word, weight in vocabulary.items():
        if not is_int(weight) or not (1 <= weight <= 5 or weight == 50):
            raise invalid(path, f"weight of {word!r} must be 1-5 or 50, got {weight!r}")
        super_words += weight == 50
    if super_words > 50:
        raise invalid(path, f"at most 50 words may have weight 50, got {super_words}")


def check_gummy(p: dict) -> None:
    prefix = "payload.parameters."
    if "source_language" in p and p["source_language"] not in ("auto",) + GUMMY_LANGUAGES:
        raise invalid(prefix + "source_language", f"unsupported language {p['source_language']!r}")
    if not p.get("transcription_enabled", True) and not p.get("translation_enabled", False):
        raise invalid(prefix + "transcription_enabled", "transcription or translation must be enabled")
    if p.get("translation_enabled", False):
        targets = p.get("translation_target_languages")
        if targets is None:
            raise missing(prefix + "translation_target_languages")
        if not isinstance(targets, list) or len(targets) != 1 or targets[0] not in GUMMY_LANGUAGES:
            raise invalid(prefix + "translation_target_languages", "must hold exactly one supported language")


def check_context(data: dict, model: str, path: str) -> None:
    """`input` of run-task/continue-task: only `context` is allowed, and only for context-biasing models."""
    extra = [key for key in data if key != "context"]
    if extra:
        raise ProtocolError(INVALID, f"Invalid payload data: unexpected field '{path}.{extra[0]}'!")
    if model not in CONTEXT_MODELS:
        raise invalid(f"{path}.context", f"context biasing is not supported by model {model}")
    context = data["context"]
    if not isinstance(context, list):
        raise invalid(f"{path}.context", "must be an array of messages")
    kinds = {"user": "input_text", "assistant": "text"}
    for index, item in enumerate(context):
        where = f"{path}.context[{index}]"
        if not isinstance(item, dict) or item.get("role") not in kinds:
            raise invalid(where, "must be {\"role\": \"user\"|\"assistant\", \"content\": [...]}")
        content = item.get("content")
        if not isinstance(content, list) or not content:
            raise invalid(where + ".content", "must be a non-empty array")
        for part in content:
            if not isinstance(part, dict) or part.get("type") != kinds[item["role"]] \
                    or not isinstance(part.get("text"), str):
                raise invalid(where + ".content", f"{item['role']} parts must be "
                              f"{{\"type\": \"{kinds[item['role']]}\", \"text\": string}}")


def check_finish_payload(payload: dict) -> None:
    if "input" not in payload:
        raise missing("payload.input")
    extra = [key for key in payload if key != "input"]
    if extra:
        raise ProtocolError(INVALID, f"Invalid payload data: unexpected field 'payload.{extra[0]}' in finish-task!")
    if payload["input"] != {}:
        raise ProtocolError(INVALID, "Invalid payload data: finish-task payload.input must be {}!")


def check_continue_payload(payload: dict, model: str) -> None:
    if "input" not in payload:
        raise missing("payload.input")
    data = payload["input"]
    if not isinstance(data, dict) or "context" not in data:
        raise missing("payload.input.context")
    check_context(data, model, "payload.input")
