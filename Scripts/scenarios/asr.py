"""The WER judge: PocketSphinx 5 (the en-us default acoustic model and dictionary) over a whole file as one
utterance, with a fresh decoder per file (a reused one carries its cepstral mean over and gives another text for
the same audio). Two judges:

- `task` (the default): a trigram language model of the matrix's near-end command set, built with PocketSphinx's
  own ARPA builder (`pocketsphinx.lm.ArpaBoLM`, its default discount mass 0.5) from every sentence the generator
  can draw (`matrix.NEAR_SENTENCES`, both halves alike) and every ordered pair of them (a file is a sequence of
  commands, so the model knows sentence-to-sentence transitions too). A closed vocabulary of 194 words, as a
  device's command grammar is; it is not the transcript of any file (any word order over the vocabulary stays
  possible through back-off). PocketSphinx's default search (no extra pruning: on this small LM it costs no more
  than the pruned general search).
- `general`: the bundled general en-us LM with the pruned search `maxhmmpf 3000, maxwpf 5` (the judge before
  2026-12-01; on tuning-half files it decodes the clean talker at 17-69 % WER, the raw mic at 61-135 %).

The model's feat.params already sets batch CMN over the utterance and noise removal, so the level does not
matter (the clean tuning-half talker at -10 / 0 / +10 dB: 36 / 33 / 38 % general, 0 / 0 / 0 % task).
The result cache is keyed on the int16 samples and on everything that changes the text: the judge, its decoder
settings, the LM's text (its SHA-256), the acoustic model's path and the pocketsphinx version."""
import hashlib
import json
import os
import re
import tempfile

import matrix
import synth

RATE = 16000
JUDGES = ("task", "general")
_judge = "task"
_lm_cache = {}


def use(judge):
    """Selects the judge for this process (evaluate.py passes it as the worker pools' initializer)."""
    global _judge
    if judge not in JUDGES:
        raise ValueError(f"unknown ASR judge {judge} (known: {', '.join(JUDGES)})")
    _judge = judge


def judge():
    return _judge


def words(text):
    """Lower-case words (letters and apostrophes) of a transcript or hypothesis."""
    return re.sub(r"[^a-z' ]", " ", text.lower()).split()


def task_lm_text():
    """The task LM (ARPA text) over every near-end sentence of the matrix and every ordered pair of them."""
    if "text" not in _lm_cache:
        from io import StringIO
        from pocketsphinx.lm import ArpaBoLM
        sentences = [" ".join(words(s)) for s in matrix.NEAR_SENTENCES]
        corpus = "\n".join(a + " " + b for a in sentences for b in sentences)
        lm = ArpaBoLM(text=corpus, add_start=True)
        lm.compute()
        out = StringIO()
        lm.write(out)
        _lm_cache["text"] = out.getvalue()
    return _lm_cache["text"]


def _task_lm_path():
    text = task_lm_text()
    digest = hashlib.sha256(text.encode()).hexdigest()
    path = os.path.join(tempfile.gettempdir(), f"afe-scenarios-task-lm-{digest[:16]}.arpa")
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".arpa")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)  # atomic: parallel workers may build it at once
    return path, digest


def settings(judge=None):
    """(decoder keyword arguments, cache key) of a judge: the key names everything that changes the text."""
    from importlib.metadata import version
    from pocketsphinx import Config
    judge = judge or _judge
    defaults = Config()
    key = {"judge": judge, "pocketsphinx": version("pocketsphinx"), "hmm": os.path.basename(defaults["hmm"]),
           "dict": os.path.basename(defaults["dict"])}
    if judge == "task":
        path, key["lm_sha256"] = _task_lm_path()
        kwargs = {"lm": path}
    elif judge == "general":
        kwargs = {"maxhmmpf": 3000, "maxwpf": 5}
        key["lm"] = os.path.basename(defaults["lm"])
    else:
        raise ValueError(f"unknown ASR judge {judge}")
    key["settings"] = {k: v for k, v in kwargs.items() if k != "lm"}
    return kwargs, json.dumps(key, sort_keys=True)


def recognize(x16, cache_dir=None, judge=None):
    """The judge's text for a 16 kHz float signal (quantized to int16 mono as a device would hand it over)."""
    pcm = synth.quantize(x16).tobytes()
    kwargs, key = settings(judge)
    cached = None
    if cache_dir:
        cached = os.path.join(cache_dir, hashlib.sha256(pcm + key.encode()).hexdigest() + ".txt")
        if os.path.exists(cached):
            with open(cached) as f:
                return f.read()
    from pocketsphinx import Decoder
    decoder = Decoder(samprate=RATE, loglevel="FATAL", **kwargs)
    decoder.start_utt()
    decoder.process_raw(pcm, full_utt=True)
    decoder.end_utt()
    h = decoder.hyp()
    text = h.hypstr if h else ""
    text = " ".join(w for w in text.split() if not w.startswith("<") and not w.startswith("["))
    if cached:
        os.makedirs(cache_dir, exist_ok=True)
        with open(cached, "w") as f:
            f.write(text)
    return text
