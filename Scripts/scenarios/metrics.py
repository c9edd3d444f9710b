"""Metrics of one system's output on one scenario, against the scenario's ground truth (all at 16 kHz, 10 ms
frames). Frame classes: far-end-only = echo active and no near-end speech within 200 ms; near-only = near-end
speech and no echo; double talk = both."""
import numpy as np

from asr import recognize, words  # noqa: F401  (the WER judge: asr.py)

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


def reconvergence_s(mic_p, out_p, far_only, change_s, window_frames=25, drop_db=6.0, hold_s=1.0, before_s=5.0):
    """Far-end-active time (s) from the path change until the ERLE is back within drop_db of its level before
    the change (capped at 25 dB) and stays there for hold_s. Counted over the far-end-only frames alone, in
    order (their own timeline: a pause of the far end, or near-end speech, neither counts nor ends the
    count): the ERLE at a frame is that of the window_frames far-end-only frames from it on; the level before
    is the median of such windows, back to back, over the last before_s of far-end-only time before the
    change. The answer is the first far-end-only frame from which every window within the next hold_s passes
    (10 ms resolution). None if it never does, or if the level before was under 10 dB (nothing had converged).
    Before 2026-12-03 the count ran on the clock over 250 ms windows, so a far end that paused right after the
    change was counted as unconverged (1.00 s for every system on the tuning half's `path_door`)."""
    k0 = int(round(change_s / 0.01))
    idx = np.flatnonzero(far_only[:len(mic_p)])
    pre, post = idx[idx < k0], idx[idx >= k0]
    pre = pre[-int(round(before_s / 0.01)):]
    w = window_frames
    before = [erle(mic_p[pre[s:s + w]], out_p[pre[s:s + w]], np.ones(w, bool))
              for s in range(len(pre) % w, len(pre) - w + 1, w)]
    before = [v for v in before if v is not None]
    if not before or np.median(before) < 10.0:  # no converged canceller before the change to come back to
        return None
    target = min(float(np.median(before)) - drop_db, 25.0)
    if len(post) < w:
        return None
    m, o = np.concatenate([[0.0], np.cumsum(mic_p[post])]), np.concatenate([[0.0], np.cumsum(out_p[post])])
    n = len(post) - w + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = (m[w:w + n] - m[:n]) >= (o[w:w + n] - o[:n]) * 10 ** (target / 10)
    hold = max(1, int(round(hold_s / 0.01)) - w + 1)  # the windows that cover hold_s of frames from j on
    for j in np.flatnonzero(ok):
        run = ok[j:j + hold]
        # near the end of the file, half of hold_s of far-end-only time left is enough
        if run.all() and len(run) >= max(1, hold // 2):
            return round(float(j) * 0.01, 3)
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


def wer(reference, hypothesis):
    r, h = words(reference), words(hypothesis)
    d = np.arange(len(h) + 1)
    for i, rw in enumerate(r, 1):
        prev, d = d, np.zeros(len(h) + 1, dtype=int)
        d[0] = i
        for j, hw in enumerate(h, 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (rw != hw))
    return float(d[len(h)] / max(1, len(r)))


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
