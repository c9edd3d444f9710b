"""HTML report of an evaluation: index.html (thresholds, a metrics table per scenario) and one page per scenario
with the pictures an audio engineer looks at first: waveforms and spectrograms of mic / reference / output,
ERLE and the delay estimate over time, VAD decisions against the truth. PNGs (matplotlib) are embedded."""
import base64
import html
import io
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import soundfile as sf  # noqa: E402

import synth  # noqa: E402
import tables  # noqa: E402

COLORS = {"default": "C0", "webrtc": "C1", "speex": "C2", "aecm": "C3", "raw": "C7", "pipewire": "C4"}


def png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=72, bbox_inches="tight")
    plt.close(fig)
    return "<img src='data:image/png;base64," + base64.b64encode(buf.getvalue()).decode() + "'>"


def mono16(path):
    x, rate = sf.read(path, dtype="float64", always_2d=True)
    return synth.resample(x[:, 0], rate, 16000)


def shade(ax, intervals, color, label=None):
    for k, (a, b) in enumerate(intervals):
        ax.axvspan(a, b, color=color, alpha=0.15, lw=0, label=label if k == 0 else None)


def signals_figure(r, main):
    d, run = r["paths"]["scenario"], r["paths"]["runs"]
    rows = [("mic", mono16(os.path.join(d, "mic.wav"))), ("reference (as played)", mono16(os.path.join(d, "reference.wav"))),
            (f"output ({main})", mono16(os.path.join(run, main, "out.wav")))]
    truth = r["truth"]
    fig, axes = plt.subplots(len(rows), 2, figsize=(14, 2.0 * len(rows)), gridspec_kw={"width_ratios": [1, 1]})
    for (name, x), (wa, sa) in zip(rows, axes):
        t = np.arange(len(x)) / 16000
        wa.plot(t, x, lw=0.3, color="k")
        shade(wa, truth.get("near_speech", []), "g", "near-end speech")
        shade(wa, truth.get("echo_active", []), "r", "echo active")
        wa.set_ylim(-1, 1)
        wa.set_title(name, fontsize=9, loc="left")
        dither = 1e-6 * np.random.default_rng(0).standard_normal(len(x))  # digital silence has no log
        sa.specgram(x + dither, NFFT=512, Fs=16000, noverlap=384, cmap="magma", vmin=-140, vmax=-20)
        sa.set_title(name + " spectrogram", fontsize=9, loc="left")
        sa.set_ylabel("Hz", fontsize=8)
    axes[0][0].legend(fontsize=7, loc="upper right")
    axes[-1][0].set_xlabel("s")
    axes[-1][1].set_xlabel("s")
    fig.tight_layout()
    return png(fig)


def echo_figure(r):
    truth = r["truth"]
    fig, (ea, da) = plt.subplots(2, 1, figsize=(14, 5.5), sharex=True)
    for s, m in r["systems"].items():
        series = m.get("erle_250ms") or []
        t = [0.25 * k + 0.125 for k, v in enumerate(series) if v is not None]
        v = [v for v in series if v is not None]
        if v:
            ea.plot(t, v, ".-", ms=3, lw=0.8, label=s, color=COLORS.get(s))
        est = m.get("delay_estimate") or []
        if est and s != "raw":
            da.plot([e[0] for e in est], [e[1] for e in est], lw=1, label=f"{s} estimate", color=COLORS.get(s))
    if truth.get("path_change"):
        for a in (ea, da):
            a.axvline(truth["path_change"]["at_s"], color="k", ls="--", lw=0.8)
    ea.axhline(30, color="gray", ls=":", lw=0.8)
    ea.set_ylabel("ERLE dB (250 ms, far-end-only frames)", fontsize=8)
    ea.legend(fontsize=7, ncol=5)
    if "delay_ms" in truth:
        dur = truth["spec"]["duration_s"]
        tt = np.linspace(0, dur, 200)
        true = truth["delay_ms"] - truth["spec"]["drift_ppm"] * 1e-3 * tt
        da.plot(tt, true, "k--", lw=1, label="truth")
    da.set_ylabel("delay ms", fontsize=8)
    da.set_xlabel("s")
    da.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    return png(fig)


def vad_figure(r):
    truth = r["truth"]
    systems = list(r["systems"])
    fig, ax = plt.subplots(figsize=(14, 0.5 * (len(systems) + 2) + 0.6))
    lanes = [("truth: near speech", truth.get("near_speech", []), "g"), ("truth: echo active", truth.get("echo_active", []), "r")]
    for k, (name, iv, c) in enumerate(lanes):
        for a, b in iv:
            ax.broken_barh([(a, b - a)], (k, 0.8), color=c, alpha=0.6)
    for k, s in enumerate(systems, start=len(lanes)):
        v = np.array(r["systems"][s].get("vad", []), dtype=bool)
        for a, b in synth.intervals(v):
            ax.broken_barh([(a, b - a)], (k, 0.8), color=COLORS.get(s, "C4"))
    ax.set_yticks([k + 0.4 for k in range(len(lanes) + len(systems))])
    ax.set_yticklabels([name for name, _, _ in lanes] + [f"VAD {s}" for s in systems], fontsize=8)
    ax.set_xlim(0, truth["spec"]["duration_s"])
    ax.set_xlabel("s")
    fig.tight_layout()
    return png(fig)


def metrics_table(r):
    head = "".join(f"<th>{html.escape(name)}</th>" for _, name, _ in tables.COLUMNS)
    rows = []
    for s, m in r["systems"].items():
        rows.append(f"<tr><td>{html.escape(s)}</td>" + "".join(
            f"<td>{tables.fmt(m.get(k), f)}</td>" for k, _, f in tables.COLUMNS) + "</tr>")
    if r.get("clean"):
        rows.append(f"<tr><td>clean talker</td><td colspan='{len(tables.COLUMNS)}'>WER {r['clean']['wer']:.1%}</td></tr>")
    return f"<table><tr><th>system</th>{head}</tr>{''.join(rows)}</table>"


STYLE = ("<style>body{font-family:sans-serif;margin:20px;background:#fff;color:#111}table{border-collapse:collapse;"
         "font-size:12px}td,th{border:1px solid #bbb;padding:3px 6px;text-align:right}td:first-child{text-align:left}"
         ".FAIL{background:#fdd}.pass{background:#dfd}img{max-width:100%}</style>")


def scenario_page(r, main):
    spec = r["truth"]["spec"]
    facts = {k: spec.get(k) for k in ("kind", "rate", "channels", "far", "far_voice", "near_voice", "delay_ms", "drift_ppm",
                                      "nonlinearity", "path_change", "ser_db", "noise", "snr_db", "floor_dbfs")}
    room = r["truth"]["room"]
    facts["room"] = f"{room['archetype']} {room['dims_m']} m, RT60 {room['rt60_s']} s (measured {r['truth'].get('rt60_measured_s')})"
    facts["delay truth ms"] = r["truth"].get("delay_ms")
    info = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(str(v))}</td></tr>" for k, v in facts.items())
    parts = [f"<html><head><meta charset='utf-8'><title>{r['id']}</title>{STYLE}</head><body>",
             f"<p><a href='index.html'>← all scenarios</a></p><h1>{html.escape(r['id'])} ({html.escape(spec['half'])} half)</h1>",
             f"<table>{info}</table><h2>Metrics</h2>{metrics_table(r)}",
             f"<h2>Signals ({html.escape(main)})</h2>{signals_figure(r, main)}"]
    if r["truth"].get("echo_active"):
        parts.append(f"<h2>ERLE and delay estimate over time</h2>{echo_figure(r)}")
    parts.append(f"<h2>VAD against the truth</h2>{vad_figure(r)}")
    if r.get("clean"):
        parts.append("<h2>Recognized (PocketSphinx)</h2><p><b>reference:</b> "
                     + html.escape(r["truth"]["near_transcript"]) + "</p>")
        for s, m in r["systems"].items():
            parts.append(f"<p><b>{html.escape(s)}:</b> {html.escape(m.get('hypothesis', ''))}</p>")
    parts.append("</body></html>")
    return "".join(parts)


def write(results, systems, out):
    os.makedirs(out, exist_ok=True)
    main = "default" if "default" in systems else list(systems)[0]
    links = []
    for r in results:
        with open(os.path.join(out, r["id"] + ".html"), "w") as f:
            f.write(scenario_page(r, main))
        links.append(f"<h3><a href='{r['id']}.html'>{html.escape(r['id'])}</a> <small>{html.escape(r['kind'])}</small></h3>"
                     + metrics_table(r))
    thr = "".join(f"<tr class='{'' if ok is None else ('pass' if ok else 'FAIL')}'><td>{html.escape(n)}</td><td>{html.escape(v)}</td>"
                  f"<td>{html.escape(l)}</td><td>{'–' if ok is None else ('pass' if ok else 'FAIL')}</td></tr>"
                  for n, v, l, ok in tables.thresholds(results, systems))
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write(f"<html><head><meta charset='utf-8'><title>Scenario evaluation</title>{STYLE}</head><body>"
                f"<h1>Scenario evaluation ({len(results)} scenarios)</h1><h2>Thresholds, {html.escape(main)}</h2>"
                f"<table><tr><th>threshold</th><th>now</th><th>limit</th><th>pass</th></tr>{thr}</table>"
                f"<h2>Scenarios</h2>{''.join(links)}</body></html>")
    return os.path.join(out, "index.html")
