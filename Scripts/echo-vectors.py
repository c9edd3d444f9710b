#!/usr/bin/env python3
"""The echo vectors' figures of FrontEndEchoTests.worstERLE (worst one-second ERLE over echo_d{0,40,120,250,400}ms_16k.wav)
and FrontEndDoubleTalkTests.measure (magnitude SDR on doubletalk_ser0db_16k.wav) over `afe process` output, for
`--echo-chain` candidates without rebuilding the tests. usage: .venv/bin/python Scripts/echo-vectors.py AFE [CHAIN]"""
import json, subprocess, sys, os, tempfile
import numpy as np, soundfile as sf
TV = "TestVectors"
afe = sys.argv[1]; chain = sys.argv[2] if len(sys.argv) > 2 else ""
tmp = tempfile.mkdtemp()
man = {v["file"]: v for v in json.load(open(f"{TV}/manifest.json"))["vectors"]}
def run(mic):
    out = f"{tmp}/out.wav"
    cmd = [afe, "process", "--mic", f"{TV}/{mic}", "--reference", f"{TV}/farend_16k.wav", "--output", out]
    if chain: cmd += ["--echo-chain", chain]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sf.read(out, dtype="int16")[0].astype(np.float64)
def pw(x, r): s = x[r[0]:r[1]]; return float(np.mean(s*s)) if len(s) else 0.0
worsts = []
for d in [0, 40, 120, 250, 400]:
    name = f"echo_d{d}ms_16k.wav"
    mic = sf.read(f"{TV}/{name}", dtype="int16")[0].astype(np.float64); out = run(name)
    e0 = man[name]["echo_start_s"]; worst = 1e9; s = e0 + 3
    while s + 1 <= 21:
        r = (int(s*16000), int((s+1)*16000))
        if pw(mic, r) > 1e4: worst = min(worst, 10*np.log10(pw(mic, r)/max(pw(out, r), 1e-10)))
        s += 1
    worsts.append(worst)
def msdr(ref, test, ranges, frame=512, lowest=100):
    fb = int(np.ceil(lowest*frame/16000)); w = 0.5-0.5*np.cos(2*np.pi*np.arange(frame)/frame); sig = err = 0.0
    for a, b in ranges:
        st = a
        while st + frame <= b:
            X = np.abs(np.fft.rfft(ref[st:st+frame]*w))[fb:]; t = test[st:st+frame]
            if len(t) < frame: t = np.pad(t, (0, frame-len(t)))
            Y = np.abs(np.fft.rfft(t*w))[fb:]
            sig += np.sum(X*X); err += np.sum((Y-X)**2); st += frame//2
    return 10*np.log10(sig/max(err, 1e-10))
name = "doubletalk_ser0db_16k.wav"; e = man[name]
mic = sf.read(f"{TV}/{name}", dtype="int16")[0].astype(np.float64); out = run(name)
clean = sf.read(f"{TV}/nearend_16k.wav", dtype="int16")[0].astype(np.float64)
rg = lambda k: [(int(a*16000), int(b*16000)) for a, b in e[k] if int(a*16000) >= 48000]
far = rg("farend_only"); pm = sum(pw(mic, r)*(r[1]-r[0]) for r in far); po = sum(pw(out, r)*(r[1]-r[0]) for r in far)
print(f"chain={chain or 'default'} worst={min(worsts):.1f} per-delay={' '.join(f'{w:.1f}' for w in worsts)} DT-SDR={msdr(clean, out, rg('doubletalk')):.1f} DT-ERLE={10*np.log10(pm/po):.1f}")
