"""Metrics of one system's output on one scenario, against the scenario's ground truth (all at 16 kHz, 10 ms
frames). Frame classes: far-end-only = echo active and no near-end speech within 200 ms; near-only = near-end
speech and no echo; double talk = both."""
import hashlib
import os
import re

import numpy as np

import synth

RATE = 16000
HOP = 160


def frames_power(x):
    n = len(x) // HOP
    return np.mean(x[:n * HOP].reshape(n, HOP) ** 2, axis=1)


def dilate(a, k):
    if k <= 0:
        return a
    out = a.copy()
    for s in range(1, k + 1):
        out[s:] |= a[:-s]
        out[:-s] |= a[s:]
    return out


def frame_classes(near, echo_active):
    near_ext = dilate(near, 20)
    return {"far_only": echo_active & ~near_ext, "near_only": near & ~echo_active, "double_talk": near & echo_active}


def ratio_db(num, den):
    if den <= 0 or num <= 0:
        return None
    return float(10 * np.log10(num / den))


def erle(mic_p, out_p, mask):
    if mask.sum() < 20:
        return None
    return ratio_db(mic_p[mask].sum(), out_p[mask].sum())


def erle_series(mic_p, out_p, mask, window_frames):
    """ERLE per window over the far-end-only frames in it (None with fewer than a fifth of the window)."""
    out = []
    for s in range(0, len(mask) - window_frames + 1, window_frames):
        m = mask[s:s + window_frames]
        out.append(erle(mic_p[s:s + window_frames], out_p[s:s + window_frames], m) if m.sum() >= max(5, window_frames // 5) else None)
    return out


def reconvergence_s(series, window_s, change_s, drop_db=6.0, hold_s=1.0):
    """Time from the path change until the windowed ERLE is back within drop_db of its median over the 5 s
    before (capped at 25 dB) and stays there for hold_s (gaps without far-end-only frames are skipped). None if
    it never does, or if the ERLE before the change was under 10 dB (nothing had converged)."""
    k0 = int(change_s / window_s)
    before = [v for v in series[max(0, k0 - int(5 / window_s)):k0] if v is not None]
    if not before or np.median(before) < 10.0:  # no converged canceller before the change to come back to
        return None
    target = min(float(np.median(before)) - drop_db, 25.0)
    hold = int(hold_s / window_s)
    for k in range(k0, len(series)):
        ahead = [v for v in series[k:k + hold] if v is not None]
        if len(ahead) >= max(1, hold // 2) and all(v >= target for v in ahead):
            return round(max(0.0, k * window_s - change_s), 3)
    return None


def vad_scores(vad, near):
    n = min(len(vad), len(near))
    v, t = vad[:n], near[:n]
    tp, fp, fn = int(np.sum(v & t)), int(np.sum(v & ~t)), int(np.sum(~v & t))
    if t.sum() == 0:
        return None
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def starts(vad_segments):
    return [seg["start_ms"] / 1000.0 for seg in vad_segments]


def false_starts(seg_starts, near):
    """Segment starts with no near-end speech from 150 ms before to 300 ms after them."""
    count = 0
    for s in seg_starts:
        f = int(round(s / 0.01))
        if not near[max(0, f - 15):f + 30].any():
            count += 1
    return count


def segments(vad_segments):
    """(start_s, end_s) of each `--report` VAD segment; end None while open at the end of the file."""
    return [(seg["start_ms"] / 1000.0, None if seg.get("end_ms") is None else seg["end_ms"] / 1000.0)
            for seg in vad_segments]


def covered_onsets(segs, near_intervals):
    """Per true near-end onset, whether it is *covered*: it falls inside a segment that was already open during
    the previous near-end utterance (the segmenter keeps a segment through a pause shorter than its end silence,
    so no new start can come there). `segs` are (start_s, end_s) pairs (end None: open to the end)."""
    out, previous_end = [], None
    for start, end in near_intervals:
        out.append(previous_end is not None and any(
            s <= previous_end and s < start and (e is None or e > start) for s, e in segs))
        previous_end = end
    return out


def onset_offsets(segs, near_intervals):
    """For each true near-end onset: 0.0 when covered (``covered_onsets``: captured by the open segment), else the
    nearest detected segment start within 0.5 s (offset s), or None when missed."""
    out = []
    for (start, _), covered in zip(near_intervals, covered_onsets(segs, near_intervals)):
        near_det = [s - start for s, _ in segs if abs(s - start) <= 0.5]
        out.append(0.0 if covered else min(near_det, key=abs) if near_det else None)
    return out


def delay_errors(report, truth):
    """(t_s, error_ms) of every delay estimate against delay(t) = delay_ms - ppm 1e-3 t (after a path change, the
    second path's direct arrival)."""
    if "delay_ms" not in truth:
        return []
    ppm = truth["spec"]["drift_ppm"]
    change = truth.get("path_change")
    out = []
    for e in report.get("delay_estimate_ms", []):
        if e.get("delay_ms") is None:
            continue
        t = e["t_ms"] / 1000.0
        d = truth["delay_ms"] - ppm * 1e-3 * t
        if change and t >= change["at_s"]:
            d += change["direct_path_ms_after"] - truth["direct_path_ms"]
        out.append((t, e["delay_ms"] - d))
    return out


def delay_lock_s(errors, first_echo_s, tolerance_ms=2.0):
    """Seconds from the first echo until every later estimate is within tolerance (None if never)."""
    if not errors:
        return None
    lock = None
    for t, err in errors:
        if abs(err) > tolerance_ms:
            lock = None
        elif lock is None:
            lock = t
    return None if lock is None else round(max(0.0, lock - first_echo_s), 2)


def words(text):
    return re.sub(r"[^a-z' ]", " ", text.lower()).split()


def wer(reference, hypothesis):
    r, h = words(reference), words(hypothesis)
    d = np.arange(len(h) + 1)
    for i, rw in enumerate(r, 1):
        prev, d = d, np.zeros(len(h) + 1, dtype=int)
        d[0] = i
        for j, hw in enumerate(h, 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (rw != hw))
    return float(d[len(h)] / max(1, len(r)))


def recognize(x16, cache_dir=None):
    """PocketSphinx (en-us default model) over the whole signal as one utterance, with a fresh decoder (a reused
    one carries its cepstral mean over and gives another text for the same audio). The search is pruned
    (maxhmmpf 3000, maxwpf 5): 4-5x faster on noisy audio than the default pruning, same WER on clean speech."""
    pcm = synth.quantize(x16).tobytes()
    cached = None
    if cache_dir:
        cached = os.path.join(cache_dir, hashlib.sha256(pcm + b"maxhmmpf3000 maxwpf5").hexdigest() + ".txt")
        if os.path.exists(cached):
            with open(cached) as f:
                return f.read()
    from pocketsphinx import Decoder
    decoder = Decoder(samprate=RATE, loglevel="FATAL", maxhmmpf=3000, maxwpf=5)
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


def pesq_wb(ref, deg):
    from pesq import pesq
    try:
        return float(pesq(RATE, ref, deg, "wb"))
    except Exception:  # no utterance found
        return None


def stoi(ref, deg):
    from pystoi import stoi as _stoi
    try:
        return float(_stoi(ref, deg, RATE, extended=False))
    except Exception:
        return None
