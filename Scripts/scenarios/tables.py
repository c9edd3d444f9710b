"""Tables of an evaluation: per scenario and system, aggregates per scenario kind, and issue 12's part-3
thresholds for the default system (value now, limit, pass/fail)."""
import datetime
import json
import os

import numpy as np

COLUMNS = [("erle_db", "ERLE dB", "{:.1f}"), ("erle_cap_db", "cap dB", "{:.1f}"), ("vad_false_active", "VAD echo %", "{:.1%}"),
           ("false_starts_per_min", "false starts/min", "{:.1f}"), ("vad_f1", "VAD F1", "{:.2f}"),
           ("wer", "WER", "{:.1%}"), ("pesq_wb", "PESQ-WB", "{:.2f}"), ("stoi", "STOI", "{:.2f}"),
           ("onsets_within_150ms", "onsets ≤150ms", "{:.0%}"), ("delay_err_ms", "delay err ms", "{:.1f}"),
           ("delay_lock_s", "delay lock s", "{:.1f}"), ("reconvergence_s", "reconv s", "{:.2f}"), ("rtf", "RTF", "{:.3f}")]


def fmt(v, f):
    if v is None:
        return "–"
    return f.format(v)


def get(results, sid, system, key):
    for r in results:
        if r["id"] == sid:
            return r["systems"].get(system, {}).get(key)
    return None


def scen(results, kinds, pred=None):
    return [r for r in results if r["kind"] in kinds and (pred is None or pred(r))]


def thresholds(results, systems):
    """[(name, value text, limit text, passed: True/False/None)] for the default system; None = not measurable."""
    rows = []
    d = "default"
    if d not in systems:
        return rows

    def each(name, rs, key, ok, limit, show="{:.1f}"):
        vals = [(r["id"], r["systems"][d].get(key)) for r in rs]
        vals = [(i, v) for i, v in vals if v is not None]
        if not vals:
            rows.append((name, "n/a", limit, None))
            return
        bad = [(i, v) for i, v in vals if not ok(i, v)]
        worst = bad[0] if bad else vals[0]
        text = ", ".join(f"{i} {show.format(v)}" for i, v in (bad or vals)[:4]) + (" …" if len(bad or vals) > 4 else "")
        rows.append((name, ("fails: " if bad else "") + text, limit, not bad))

    far = [r for r in results if r["systems"].get(d, {}).get("vad_false_active") is not None]
    fa = [r["systems"][d]["vad_false_active"] for r in far]
    if fa:
        rows.append(("VAD false-active on echo-only frames, mean", f"{np.mean(fa):.1%}", "≤ 3 %", bool(np.mean(fa) <= 0.03)))
        rows.append(("VAD false-active on echo-only frames, worst scenario",
                     f"{max(fa):.1%} ({far[int(np.argmax(fa))]['id']})", "≤ 8 %", bool(max(fa) <= 0.08)))
        starts = sum(r["systems"][d]["false_starts"] for r in far)
        minutes = sum(r["systems"][d]["far_only_min"] for r in far)
        rows.append(("false speech starts per minute of far-end-only playback",
                     f"{starts / minutes:.1f} ({starts} in {minutes:.1f} min)", "≤ 1", bool(starts / minutes <= 1)))
    each("double talk: speech starts within 150 ms of the labels", scen(results, ["doubletalk", "rate"]),
         "onsets_within_150ms", lambda i, v: v >= 1.0, "all onsets", "{:.0%}")
    near = scen(results, ["near", "vad_noise"])
    if "raw" in systems:
        each("near end only: WER ≤ raw mic's (every room, noise)", near, "wer",
             lambda i, v: v <= get(results, i, "raw", "wer") + 1e-9, "≤ raw", "{:.1%}")
        each("near end only: PESQ-WB ≥ raw mic's", near, "pesq_wb",
             lambda i, v: v >= (get(results, i, "raw", "pesq_wb") or 0) - 1e-9, "≥ raw", "{:.2f}")
    singles = [s for s in ("webrtc", "speex", "aecm") if s in systems]
    dt = scen(results, ["doubletalk"], lambda r: -10 <= r["truth"]["spec"]["ser_db"] <= 10)

    def best_single(i):
        v = [get(results, i, s, "wer") for s in singles]
        return min(x for x in v if x is not None)
    if singles:
        each("double talk SER −10…+10 dB: WER ≤ 0.8 × best single canceller", dt, "wer",
             lambda i, v: v <= 0.8 * best_single(i) + 1e-9, "≤ 0.8 × best", "{:.1%}")
    if "speex" in systems:
        each("double talk: PESQ-WB ≥ speex MDF alone", dt, "pesq_wb",
             lambda i, v: v >= (get(results, i, "speex", "pesq_wb") or 0) - 1e-9, "≥ speex", "{:.2f}")
        each("double talk: STOI ≥ speex MDF alone", dt, "stoi",
             lambda i, v: v >= (get(results, i, "speex", "stoi") or 0) - 1e-9, "≥ speex", "{:.2f}")
    each("far-end-only ERLE, speech, delays 0–500 ms, RT60 ≤ 0.6 s", scen(results, ["echo"]), "erle_db",
         lambda i, v: v >= 30, "≥ 30 dB")
    hard = scen(results, ["echo_hard"]) + scen(results, ["drift"], lambda r: abs(r["truth"]["spec"]["drift_ppm"]) <= 100)
    each("far-end-only ERLE, music / nonlinear / ±100 ppm (from 10 s) / RT60 0.9 s", hard, "erle_db",
         lambda i, v: v >= 25, "≥ 25 dB")
    rate16 = [r for r in results if r["id"] == "rate_16k"]
    for sid, label in (("rate_44k", "44.1"), ("rate_48k", "48")):
        other = [r for r in results if r["id"] == sid]
        if rate16 and other:
            e16, e = rate16[0]["systems"][d].get("erle_db"), other[0]["systems"][d].get("erle_db")
            w16, w = rate16[0]["systems"][d].get("wer"), other[0]["systems"][d].get("wer")
            if e16 is not None and e is not None:
                rows.append((f"{label} kHz vs 16 kHz: ERLE difference", f"{e - e16:+.1f} dB ({e:.1f} vs {e16:.1f})",
                             "within 2 dB", bool(abs(e - e16) <= 2)))
            if w16 is not None and w is not None:
                rel = (w - w16) / max(w16, 1e-9)
                rows.append((f"{label} kHz vs 16 kHz: relative WER", f"{rel:+.0%} ({w:.1%} vs {w16:.1%})",
                             "within 10 %", bool(abs(rel) <= 0.10)))
        else:
            rows.append((f"{label} kHz vs 16 kHz", "n/a", "within 2 dB / 10 %", None))
    pc = [(r["id"], r["systems"][d].get("reconvergence_s")) for r in scen(results, ["path_change"])]
    if pc:
        bad = [(i, v) for i, v in pc if v is None or v > 0.5]
        rows.append(("reconvergence after an echo path change", ("fails: " if bad else "") + ", ".join(
            f"{i} {'none (not converged before, or never after)' if v is None else f'{v:.2f} s'}" for i, v in (bad or pc)),
            "≤ 0.5 s", not bad))
    else:
        rows.append(("reconvergence after an echo path change", "n/a", "≤ 0.5 s", None))
    far_all = [r for r in results if r["truth"].get("echo_active")]
    locks = [(r["id"], r["systems"][d].get("delay_lock_s")) for r in far_all]
    if locks:
        bad = [(i, v) for i, v in locks if v is None or v > 3]
        rows.append(("delay estimate within 2 ms of the truth within 3 s of the first echo",
                     (f"fails: {len(bad)} of {len(locks)}: " + ", ".join(f"{i} {'never' if v is None else f'{v:.1f} s'}" for i, v in bad[:4])
                      + (" …" if len(bad) > 4 else "")) if bad else f"all {len(locks)}", "≤ 3 s", not bad))
    for sid, limit in (("vad_pink0", 0.93), ("vad_babble10", 0.85)):
        v = get(results, sid, d, "vad_f1")
        rows.append((f"VAD F1 {sid[4:]}", "n/a" if v is None else f"{v:.3f}", f"≥ {limit}",
                     None if v is None else bool(v >= limit)))
    rows.append(("CPU: instructions per 10 ms ≤ 1.3 × today's", "not measured here (Benchmarks/callgrind.sh)", "≤ 1.3 ×", None))
    return rows


def aggregate(results, systems):
    kinds = sorted({r["kind"] for r in results}, key=lambda k: [r["kind"] for r in results].index(k))
    rows = []
    for kind in kinds:
        rs = [r for r in results if r["kind"] == kind]
        for s in systems:
            row = {"kind": kind, "system": s, "n": len(rs)}
            for key, _, _ in COLUMNS:
                vals = [r["systems"][s].get(key) for r in rs if r["systems"][s].get(key) is not None]
                row[key] = float(np.mean(vals)) if vals else None
            rows.append(row)
    return rows


def markdown(results, systems, half, wall, thr):
    lines = [f"Evaluation of the {half} half, {len(results)} scenarios, {datetime.date.today().isoformat()}, "
             f"wall {wall:.0f} s, WER judge: {', '.join(sorted({r.get('asr_judge', '?') for r in results}))} "
             "(Scripts/scenarios/asr.py).", "", "### Thresholds (issue 12, part 3), default system", "",
             "| threshold | now | limit | pass |", "|---|---|---|---|"]
    for name, value, limit, ok in thr:
        lines.append(f"| {name} | {value} | {limit} | {'–' if ok is None else ('pass' if ok else 'FAIL')} |")
    lines += ["", "### Mean per scenario kind", "", "| kind | system | n | " + " | ".join(c[1] for c in COLUMNS) + " |",
              "|---|---|---|" + "---|" * len(COLUMNS)]
    for row in aggregate(results, systems):
        lines.append(f"| {row['kind']} | {row['system']} | {row['n']} | "
                     + " | ".join(fmt(row[k], f) for k, _, f in COLUMNS) + " |")
    lines += ["", "### Per scenario", "", "| scenario | rate | ch | system | " + " | ".join(c[1] for c in COLUMNS) + " |",
              "|---|---|---|---|" + "---|" * len(COLUMNS)]
    for r in results:
        sp = r["truth"]["spec"]
        for s in systems:
            m = r["systems"][s]
            lines.append(f"| {r['id']} | {sp['rate']} | {sp['channels']} | {s} | "
                         + " | ".join(fmt(m.get(k), f) for k, _, f in COLUMNS) + " |")
        if "clean" in r:
            lines.append(f"| {r['id']} | | | clean talker | " + " | ".join(
                fmt(r["clean"]["wer"], f) if k == "wer" else "" for k, _, f in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def strip_series(results):
    keep = []
    for r in results:
        c = {"id": r["id"], "kind": r["kind"], "spec": r["truth"]["spec"], "clean": r.get("clean"), "systems": {}}
        for s, m in r["systems"].items():
            c["systems"][s] = {k: v for k, v in m.items() if k not in ("vad", "erle_250ms", "delay_series", "delay_estimate")}
        keep.append(c)
    return keep


def write(results, systems, out, half, wall):
    os.makedirs(out, exist_ok=True)
    thr = thresholds(results, systems)
    md = markdown(results, systems, half, wall, thr)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(md)
    with open(os.path.join(out, "table.json"), "w") as f:
        json.dump({"half": half, "date": datetime.date.today().isoformat(), "wall_s": round(wall, 1),
                   "thresholds": [{"name": n, "value": v, "limit": l, "pass": p} for n, v, l, p in thr],
                   "aggregate": aggregate(results, systems), "scenarios": strip_series(results)}, f, indent=1,
                  ensure_ascii=False)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, ensure_ascii=False)
    return md.split("### Mean")[0]
