"""Family A `result-generated` payloads, shaped per model family (docs/asr-protocols.md §6.2, §6.3)."""

from __future__ import annotations

from .dashscope_params import TaskRequest
from .recognizers import Word


def text_and_words(words: list[Word], final: bool, punctuate: bool) -> tuple[str, list[dict]]:
    items = []
    for position, word in enumerate(words):
        last = position == len(words) - 1
        items.append({"begin_time": word.begin_ms, "end_time": word.end_ms, "text": word.text,
                      "punctuation": "." if final and last and punctuate else ""})
    text = " ".join(word.text for word in words)
    if final and punctuate and text:
        text += "."
    return text, items


def sentence(request: TaskRequest, index: int, begin_ms: int, end_ms: int | None, words: list[Word],
             first: bool) -> dict:
    final = end_ms is not None
    punctuate = request.flag("punctuation_prediction_enabled", True)
    text, items = text_and_words(words, final, punctuate)
    result = {"sentence_id": index, "begin_time": begin_ms, "end_time": end_ms, "text": text,
              "heartbeat": False, "sentence_end": final, "words": items}
    if request.family in ("fun-asr", "qwen-audio"):
        result["sentence_begin"] = first
    if final and request.model == "paraformer-realtime-8k-v2" \
            and not request.flag("semantic_punctuation_enabled", False):
        result["emo_tag"] = "neutral"
        result["emo_confidence"] = 1.0
    return result


def gummy_output(request: TaskRequest, index: int, begin_ms: int, end_ms: int | None, words: list[Word]) -> dict:
    final = end_ms is not None
    text, items = text_and_words(words, final, True)
    for position, item in enumerate(items):
        item["fixed"] = final or position < len(items) - 1
        item["speaker_id"] = None
    base = {"sentence_id": index - 1, "begin_time": begin_ms, "end_time": end_ms, "sentence_end": final}
    output = {}
    if request.flag("transcription_enabled", True):
        output["transcription"] = {**base, "text": text, "words": items}
    if request.flag("translation_enabled", False):
        language = request.parameters["translation_target_languages"][0]
        translated = [{**item, "text": f"[{language}] {item['text']}"} for item in items]
        output["translations"] = [{**base, "text": f"[{language}] {text}" if text else "", "lang": language,
                                   "words": translated}]
    return output


def result_payload(request: TaskRequest, index: int, begin_ms: int, end_ms: int | None, words: list[Word],
                   first: bool, usage: dict | None) -> dict:
    if request.family == "gummy":
        output = gummy_output(request, index, begin_ms, end_ms, words)
    else:
        output = {"sentence": sentence(request, index, begin_ms, end_ms, words, first)}
    return {"output": output, "usage": usage}


def heartbeat_payload(time_ms: int) -> dict:
    return {"output": {"sentence": {"sentence_id": 0, "begin_time": time_ms, "end_time": None, "text": "",
                                    "heartbeat": True, "sentence_end": False, "words": []}},
            "usage": None}
