import AudioFrontEnd
import Foundation
import XCTest

/// NUI's play_over / play_start (``FrontEnd/setPlaying(_:)``): echo, then a long pause in playback with only the
/// near-end talker and noise at the mic, then playback again. The canceller must not diverge on the silence,
/// must keep the talker in the pause, and must cancel again at once when playback resumes.
final class FrontEndPlaybackHintTests: XCTestCase {
    static let rate = 16000

    struct Scenario {
        var mic: [Int16] = []
        var reference: [Int16?] = [] // nil: nothing pushed at this position
        var gap: Range<Int> = 0..<0
        var resumed = 0
        var nearEndSpeech: [Range<Int>] = []
    }

    /// 15 s of echo (`echo_d120ms_16k.wav`, its last echo ends at 14.2 s), 21 s of pause (`nearend_16k.wav` plus
    /// -60 dBFS noise at the mic, no far end), then the whole echo vector again.
    static func scenario(pushSilenceInGap: Bool) throws -> Scenario {
        let echo = try TestVectors.int16("echo_d120ms_16k.wav").samples
        let far = try TestVectors.int16("farend_16k.wav").samples
        let near = try TestVectors.int16("nearend_16k.wav").samples
        var s = Scenario()
        let first = 15 * rate
        s.mic = Array(echo[0..<first])
        s.reference = far[0..<first].map { Optional($0) }
        var random = SeededRandom(seed: 0x9A_05E)
        s.gap = first..<(first + near.count)
        s.mic += near.map { Int16(clamping: Int($0) + Int(random.uniform() * 57)) }
        s.reference += [Int16?](repeating: pushSilenceInGap ? 0 : nil, count: near.count)
        s.nearEndSpeech = try TestVectors.entry("nearend_16k.wav").speechIntervals.map {
            (first + Int($0.start * Double(rate)))..<(first + Int($0.end * Double(rate)))
        }
        s.resumed = s.mic.count
        s.mic += echo
        s.reference += far.map { Optional($0) }
        return s
    }

    /// Pushes the scenario in 10 ms chunks (reference first), calling `setPlaying` at the gap's edges when
    /// `hints` is on. Returns the output.
    static func run(_ s: Scenario, hints: Bool) throws -> FrontEndCollector {
        let (frontEnd, collector) = try FrontEndHarness.started(FrontEndConfiguration())
        let chunk = 160
        for offset in stride(from: 0, to: s.mic.count, by: chunk) {
            if hints && offset == s.gap.lowerBound { frontEnd.setPlaying(false) }
            if hints && offset == s.resumed { frontEnd.setPlaying(true) }
            let end = min(offset + chunk, s.mic.count)
            let reference = s.reference[offset..<end].compactMap { $0 }
            if !reference.isEmpty {
                XCTAssertEqual(reference.withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }.status, .ok)
            }
            var taken = offset
            while taken < end {
                let r = s.mic[taken..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
                taken += r.accepted
                if r.status == .bufferFull { usleep(1000) }
            }
        }
        try frontEnd.finish()
        return collector
    }

    /// ERLE per run of `frames` echo frames from `start` (``FrontEndHarness/erlePerEchoRun``), with the run's
    /// end in seconds after `start`.
    static func erleRuns(mic: [Int16], output: [Int16], start: Int, frames: Int) -> [(seconds: Double, erle: Double)] {
        FrontEndHarness.erlePerEchoRun(mic: mic, output: output, start: start, frames: frames)
            .map { (Double($0.end - start) / Double(rate), $0.erle) }
    }

    func testPlayOverKeepsTheTalkerAndPlayStartCancelsAtOnce() throws {
        try check(hints: true, pushSilenceInGap: false)
    }

    /// With hints, an app that keeps pushing silent reference in the pause: the reference stream does not lag,
    /// so play_start leaves the alignment as it was.
    func testPlayStartKeepsTheAlignmentWhenTheReferenceKeptFlowing() throws {
        try check(hints: true, pushSilenceInGap: true)
    }

    /// Without hints, an app that keeps pushing silent reference: the canceller adapts on silence and must not
    /// diverge either.
    func testSilentReferenceWithoutHintsNeitherDivergesNorHurtsTheTalker() throws {
        try check(hints: false, pushSilenceInGap: true)
    }

    private func check(hints: Bool, pushSilenceInGap: Bool) throws {
        let s = try Self.scenario(pushSilenceInGap: pushSilenceInGap)
        let result = try Self.run(s, hints: hints)
        let output = result.alignedAudio
        XCTAssertEqual(output.count, s.mic.count)
        let label = (hints ? "with play_over/play_start" : "no hints") + (pushSilenceInGap ? ", silent reference in the pause" : ", no reference in the pause")
        // The talker in the pause: the output against the mic over the labelled speech, as a magnitude SDR
        // (phase-blind, from 100 Hz): speexdsp's DC notch in the default chain shifts the phase of the 100-200 Hz
        // band, which a waveform SNR counts as distortion (about 5 dB) although the spectrum is kept. The output
        // is aligned by the reported processing delay (alignedAudio), so it is compared at lag 0.
        let bestLag = 0
        let snr = SpectralDistortion.magnitudeSDR(reference: s.mic, test: output, ranges: s.nearEndSpeech, lag: bestLag,
                                                  sampleRate: Self.rate, lowestHz: 100)
        // After play_start: ERLE per quarter second and per second of echo.
        let quarters = Self.erleRuns(mic: s.mic, output: output, start: s.resumed, frames: 25)
        let seconds = Self.erleRuns(mic: s.mic, output: output, start: s.resumed, frames: 100)
        let firstEcho = Self.erleRuns(mic: s.mic, output: output, start: s.resumed, frames: 1).first?.seconds ?? 0
        let pickUp = quarters.first { $0.erle >= 25 }?.seconds
        let before = Self.erleRuns(mic: s.mic, output: output, start: 3 * Self.rate, frames: 100).filter { $0.seconds < 11 }
        print("\(label): near-end SNR vs input in the pause \(String(format: "%.1f", snr)) dB (lag \(bestLag)); before the pause worst "
              + "\(String(format: "%.1f", before.map(\.erle).min() ?? .nan)) dB; after play_start first echo at "
              + "\(String(format: "%.2f", firstEcho)) s, first quarter second of echo ≥ 25 dB ends at \(pickUp.map { String(format: "%.2f s", $0) } ?? "never"); "
              + "quarter seconds " + quarters.prefix(6).map { String(format: "%.1f", $0.erle) }.joined(separator: " ")
              + "; seconds of echo " + seconds.map { String(format: "%.1f", $0.erle) }.joined(separator: " "))
        // No reference is expected in the pause: nothing counted missing, no stream of drops events.
        let drops = result.events.filter { if case .drops = $0 { true } else { false } }.count
        print("\(label): drops events \(drops), final \(String(describing: result.summary?.drops))")
        XCTAssertLessThanOrEqual(drops, 1, "\(label): drops events (the summary's, before finished)")
        XCTAssertEqual(result.summary?.drops.referenceDroppedSamples, 0, "\(label): the skipped pause is not a drop")
        XCTAssertEqual(result.summary?.drops.referenceMissingSamples, 0, "\(label): nothing missing while nothing plays")
        XCTAssertGreaterThanOrEqual(snr, 20, "\(label): the near-end talker in the pause (output vs mic)")
        XCTAssertGreaterThanOrEqual(seconds.first?.erle ?? 0, 25, "\(label): ERLE over the first second of echo after resuming")
        XCTAssertGreaterThanOrEqual(seconds.map(\.erle).min() ?? 0, 25, "\(label): ERLE over every second of echo after resuming")
    }
}
