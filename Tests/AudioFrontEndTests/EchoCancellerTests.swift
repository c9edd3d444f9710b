import XCTest
@testable import AudioFrontEnd

/// Echo cancellers measured on the test vectors: echo reduction (ERLE) on far-end-only echo, the near-end talker
/// kept, double talk, and AEC2's own metrics. Every assertion message carries the parameters of its case.
final class EchoCancellerTests: XCTestCase {
    typealias WebRTC = WebRTCEchoCanceller.Configuration
    typealias Speex = SpeexEchoCanceller.Configuration

    static let echo16k = [0, 40, 120, 250, 400].map { "echo_d\($0)ms_16k.wav" }
    static let echo48k = [0, 40, 120].map { "echo_d\($0)ms_48k.wav" }

    /// The cancellers every near-end and double-talk case runs, by name, with whether the reference must be
    /// shifted by the bulk delay first (speexdsp has no delay input).
    static func cancellers(rate: Int, delayMilliseconds: Int) throws -> [(name: String, canceller: EchoCanceller, aligned: Bool)] {
        var list: [(String, EchoCanceller, Bool)] = []
        for level in WebRTC.SuppressionLevel.allCases {
            var c = WebRTC(sampleRate: rate)
            c.suppressionLevel = level
            c.streamDelayMilliseconds = delayMilliseconds
            list.append(("AEC2 \(level)", try WebRTCEchoCanceller(configuration: c), false))
        }
        if rate <= 16000 {
            var c = WebRTC(sampleRate: rate, mode: .mobile)
            c.streamDelayMilliseconds = delayMilliseconds
            list.append(("AECM \(c.routingMode)", try WebRTCEchoCanceller(configuration: c), false))
        }
        for residual in [false, true] {
            var c = Speex(sampleRate: rate)
            c.residualEchoSuppression = residual
            list.append(("speex MDF \(c.tailMilliseconds) ms\(residual ? " + residual suppression" : "")",
                         try SpeexEchoCanceller(configuration: c), true))
        }
        list.append(("passthrough", try PassthroughEchoCanceller(configuration: .init(sampleRate: rate)), false))
        return list
    }

    // MARK: - Far-end-only echo

    /// Runs the canceller `make` builds (with a description of its settings) over `file`, the reference shifted by
    /// the bulk delay when `aligned`; prints the ERLE 2 s after the echo starts and checks it against `minimum`
    /// (at least) or `maximum` (below, for controls).
    private func checkERLE(_ file: String, aligned: Bool = false, minimum: Double? = nil, maximum: Double? = nil,
                           _ make: (EchoScenario) throws -> (EchoCanceller, String)) throws {
        let s = try EchoScenario(file)
        let (canceller, settings) = try make(s)
        let out = StageRunner.run(canceller, mic: s.mic, reference: aligned ? s.alignedReference : s.reference)
        let erle = s.erle(out)
        let what = "\(settings), \(s.sampleRate) Hz, \(file) (delay \(s.delayMilliseconds) ms\(aligned ? ", reference shifted by it" : "")): ERLE \(fmt(erle)) dB after 2 s"
        print("MEASURED ERLE \(what)")
        if let minimum { XCTAssertGreaterThanOrEqual(erle, minimum, what) }
        if let maximum { XCTAssertLessThan(erle, maximum, "control: \(what)") }
    }

    func testAEC2RemovesTheEchoWhenGivenTheDelay() throws {
        for file in Self.echo16k + Self.echo48k {
            try checkERLE(file, minimum: 25) { s in
                var c = WebRTC(sampleRate: s.sampleRate)
                c.streamDelayMilliseconds = s.delayMilliseconds
                return (try WebRTCEchoCanceller(configuration: c),
                        "AEC2 \(c.suppressionLevel), extended filter \(c.extendedFilter), stream delay \(c.streamDelayMilliseconds) ms")
            }
        }
        // Control: told the wrong delay (0 instead of 250 ms) AEC2 does not cancel, so the delay really is used.
        try checkERLE("echo_d250ms_16k.wav", maximum: 15) { _ in
            (try WebRTCEchoCanceller(configuration: WebRTC(sampleRate: 16000)), "AEC2, stream delay 0 ms")
        }
    }

    /// With the reference shifted by the bulk delay the delay itself no longer matters, so fewer cases suffice.
    func testSpeexRemovesTheEchoOfTheAlignedReference() throws {
        for file in ["echo_d40ms_16k.wav", "echo_d120ms_16k.wav", "echo_d400ms_16k.wav", "echo_d40ms_48k.wav", "echo_d120ms_48k.wav"] {
            try checkERLE(file, aligned: true, minimum: 15) { s in
                let c = Speex(sampleRate: s.sampleRate)
                return (try SpeexEchoCanceller(configuration: c),
                        "speex MDF tail \(c.tailMilliseconds) ms, residual suppression \(c.residualEchoSuppression)")
            }
        }
        // Control: without the shift a 128 ms tail cannot reach an echo 250 ms late.
        try checkERLE("echo_d250ms_16k.wav", maximum: 10) { _ in
            (try SpeexEchoCanceller(configuration: Speex(sampleRate: 16000)), "speex MDF, reference not shifted")
        }
    }

    /// AECM (16 kHz, speakerphone routing) with the delay given. Its linear filter is coarse, but its suppressor
    /// removes far-end-only echo hard: measured 49-52 dB at 0, 40 and 120 ms. It needs 30 dB here, so a broken
    /// delay path (about 6-10 dB, measured at 250 and 400 ms, where AECM loses track) fails. Its price is
    /// double talk (see testDoubleTalk).
    func testAECMRemovesTheEchoAt16kHz() throws {
        for delay in [0, 40, 120] {
            try checkERLE("echo_d\(delay)ms_16k.wav", minimum: 30) { _ in
                var c = WebRTC(sampleRate: 16000, mode: .mobile)
                c.streamDelayMilliseconds = delay
                return (try WebRTCEchoCanceller(configuration: c),
                        "AECM \(c.routingMode), comfort noise \(c.comfortNoise), stream delay \(delay) ms")
            }
        }
    }

    // MARK: - Near end

    /// The near-end talker with a silent reference passes every canceller: magnitude SDR ≥ 20 dB over the speech
    /// (above 100 Hz, latency compensated), level within 1 dB, latency at most one frame. The measure is
    /// phase-blind because speexdsp's DC notch shifts the phase of the 100-200 Hz band by ~35 degrees (waveform
    /// SNR 5.5 dB for an unchanged magnitude) and WebRTC's 48 kHz band split delays by a fraction of a sample.
    func testNearEndTalkerPassesEveryCanceller() throws {
        for file in ["nearend_16k.wav", "nearend_48k.wav"] {
            let entry = try TestVectors.entry(file)
            let rate = entry.sampleRate
            let near = try StageRunner.samples(file)
            let silent = [Int16](repeating: 0, count: near.count)
            let speech = StageRunner.ranges(entry.speechIntervals, rate: rate, count: near.count)
            let probe = [speech[0].lowerBound..<(speech[0].lowerBound + rate / 4)]
            // With a silent reference AEC2's levels cannot differ; at 48 kHz one suffices.
            for (name, canceller, _) in try Self.cancellers(rate: rate, delayMilliseconds: 0)
            where rate == 16000 || !["AEC2 low", "AEC2 high"].contains(name) {
                let out = StageRunner.run(canceller, mic: near, reference: silent)
                let lag = StageRunner.latency(reference: near, test: out, ranges: probe, maxLag: 3 * canceller.frameLength / 2)
                let sdr = SpectralDistortion.magnitudeSDR(reference: near, test: out, ranges: speech, lag: lag,
                                                          sampleRate: rate, lowestHz: 100, frame: rate >= 32000 ? 2048 : 512)
                let level = SignalMetrics.decibels(StageRunner.power(out, speech, lag: lag) / StageRunner.power(near, speech))
                let what = "\(name), \(file), silent reference: latency \(lag) samples, magnitude SDR \(fmt(sdr)) dB, level \(fmt(level)) dB"
                print("MEASURED near end \(what)")
                XCTAssertGreaterThanOrEqual(sdr, 20, what)
                XCTAssertEqual(level, 0, accuracy: 1, what)
                XCTAssertLessThanOrEqual(lag, canceller.frameLength, what)
            }
        }
    }

    // MARK: - Double talk

    /// doubletalk_ser0db_16k.wav (echo 120 ms late, as loud as the near end): far-end-only echo removed, the near
    /// end kept where it talks alone, and during double talk AEC2 attenuates the near end more at each higher
    /// suppression level while speex MDF (no double-talk detector, no suppressor) keeps it.
    func testDoubleTalk() throws {
        let s = try EchoScenario("doubletalk_ser0db_16k.wav")
        let clean = try StageRunner.samples("nearend_16k.wav")
        let both = StageRunner.ranges(try s.intervals("doubletalk"), rate: 16000, count: s.mic.count)
        let nearOnly = StageRunner.ranges(try s.intervals("nearend_only"), rate: 16000, count: s.mic.count)
        let farOnly = StageRunner.ranges(try s.intervals("farend_only"), rate: 16000, from: 2.5, count: s.mic.count)
        var nearLoss: [String: Double] = [:]
        for (name, canceller, aligned) in try Self.cancellers(rate: 16000, delayMilliseconds: s.delayMilliseconds) {
            let out = StageRunner.run(canceller, mic: s.mic, reference: aligned ? s.alignedReference : s.reference)
            let lag = StageRunner.latency(reference: clean, test: out, ranges: [nearOnly[0].lowerBound..<(nearOnly[0].lowerBound + 8000)], maxLag: 320)
            let sdrBoth = SpectralDistortion.magnitudeSDR(reference: clean, test: out, ranges: both, lag: lag, sampleRate: 16000, lowestHz: 100)
            let waveformBoth = StageRunner.sdr(reference: clean, test: out, ranges: both, lag: lag)
            let sdrNear = SpectralDistortion.magnitudeSDR(reference: clean, test: out, ranges: nearOnly, lag: lag, sampleRate: 16000, lowestHz: 100)
            let loss = SignalMetrics.decibels(StageRunner.power(clean, both) / StageRunner.power(out, both, lag: lag))
            let erle = SignalMetrics.decibels(StageRunner.power(s.mic, farOnly) / StageRunner.power(out, farOnly, lag: lag))
            nearLoss[name] = loss
            let what = "\(name), \(s.file) (delay \(s.delayMilliseconds) ms\(aligned ? ", reference shifted" : ", stream delay given")): double talk magnitude SDR \(fmt(sdrBoth)) dB (waveform \(fmt(waveformBoth))), near-end level loss \(fmt(loss)) dB; near end alone SDR \(fmt(sdrNear)) dB; far end alone ERLE \(fmt(erle)) dB"
            print("MEASURED double talk \(what)")
            if name == "passthrough" {
                XCTAssertLessThan(sdrBoth, 3, "the vector should hold echo as loud as the near end: \(what)")
                continue
            }
            XCTAssertGreaterThanOrEqual(erle, 15, what)
            XCTAssertGreaterThanOrEqual(sdrNear, 15, what)
            if name.hasPrefix("speex"), !name.contains("residual") {
                XCTAssertGreaterThanOrEqual(sdrBoth, 12, what)
                XCTAssertLessThan(loss, 1, what)
            }
        }
        let (low, moderate, high) = (nearLoss["AEC2 low"] ?? 0, nearLoss["AEC2 moderate"] ?? 0, nearLoss["AEC2 high"] ?? 0)
        XCTAssertLessThan(low, moderate, "AEC2 near-end loss in double talk: low \(fmt(low)), moderate \(fmt(moderate)) dB")
        XCTAssertLessThan(moderate, high, "AEC2 near-end loss in double talk: moderate \(fmt(moderate)), high \(fmt(high)) dB")
    }

    // MARK: - AEC2 metrics

    func testAEC2ReportsEchoReductionAndEchoReturnLoss() throws {
        let s = try EchoScenario("echo_d40ms_16k.wav")
        var c = WebRTC(sampleRate: 16000)
        c.streamDelayMilliseconds = s.delayMilliseconds
        let aec = try WebRTCEchoCanceller(configuration: c)
        XCTAssertNil(aec.metrics().echoReturnLossEnhancement.flatMap { $0.instant == -100 ? nil : $0 },
                     "no ERLE before any audio")
        var polls: [(second: Int, metrics: EchoMetrics)] = []
        _ = StageRunner.run(aec, mic: s.mic, reference: s.reference) { frame in
            if frame % 100 == 99 { polls.append(((frame + 1) / 100, aec.metrics())) }
        }
        let atFive = try XCTUnwrap(polls.first { $0.second == 5 }?.metrics)
        let erle = try XCTUnwrap(atFive.echoReturnLossEnhancement, "AEC2 metrics enabled, \(s.file): no ERLE after 5 s")
        print("MEASURED AEC2 metrics \(s.file) at 5 s: ERLE \(erle), A_NLP \(String(describing: atFive.aNLP))")
        XCTAssertGreaterThanOrEqual(max(erle.instant, erle.average), 20, "\(s.file), stream delay \(c.streamDelayMilliseconds) ms: reported ERLE after 5 s \(erle)")
        let last = try XCTUnwrap(polls.last?.metrics)
        let erl = try XCTUnwrap(last.echoReturnLoss, "\(s.file): no ERL")
        let truth = try XCTUnwrap(s.entry["erl_db"] as? Double)
        XCTAssertEqual(Double(erl.average), truth, accuracy: 4, "\(s.file): reported ERL \(erl) vs manifest erl_db \(truth)")
        XCTAssertTrue(polls.contains { $0.metrics.hasEcho == true }, "\(s.file): AEC2 never reported echo")

        var mobile = WebRTC(sampleRate: 16000, mode: .mobile)
        mobile.streamDelayMilliseconds = 40
        XCTAssertEqual(try WebRTCEchoCanceller(configuration: mobile).metrics(), EchoMetrics(), "AECM computes no metrics")
    }

    /// With delay-agnostic mode on and no delay given, AEC2's delay median (polled each second, from 6 to 12 s)
    /// lands on the true bulk delay, and the echo is still reduced.
    func testAEC2DelayAgnosticFindsTheDelay() throws {
        for file in ["echo_d40ms_16k.wav", "echo_d120ms_16k.wav", "echo_d120ms_48k.wav"] {
            let s = try EchoScenario(file)
            var c = WebRTC(sampleRate: s.sampleRate)
            c.delayAgnostic = true
            let aec = try WebRTCEchoCanceller(configuration: c)
            var medians: [Int] = []
            let out = StageRunner.run(aec, mic: s.mic, reference: s.reference) { frame in
                guard frame % 100 == 99 else { return }
                let m = aec.metrics()
                if (6...12).contains((frame + 1) / 100), let median = m.delayMedianMilliseconds {
                    medians.append(median)
                    XCTAssertTrue((0...1).contains(m.fractionPoorDelays ?? -1), "\(file): fraction of poor delays \(String(describing: m.fractionPoorDelays))")
                }
            }
            let erle = s.erle(out)
            let median = medians.sorted()[medians.count / 2]
            let what = "AEC2 delay-agnostic, stream delay 0, \(file) (true delay \(s.delayMilliseconds) ms): delay medians 6-12 s \(medians), ERLE \(fmt(erle)) dB"
            print("MEASURED \(what)")
            XCTAssertEqual(median, s.delayMilliseconds, accuracy: 25, what)
            XCTAssertGreaterThanOrEqual(erle, 20, what)
        }
    }
}

private func fmt(_ value: Double) -> String { StageRunner.dB(value) }
