@testable import AudioFrontEnd
import Foundation
import XCTest

/// The pitch veto (``BargeInPitch``, ``FrontEndConfiguration/BargeIn/pitchMatchLimit``): a distorted echo keeps
/// the reference's period, a talker has their own, and a test whose voiced frames mostly match decides nothing.
final class BargeInPitchTests: XCTestCase {
    private let rate = 16000

    /// `frames` 10 ms frames of a voiced sound at `pitch` Hz (eight harmonics, falling 3 dB each), `shape` applied
    /// to each sample (in -1...1), from sample `start`.
    private func voice(pitch: Double, frames: Int, start: Int = 0, shape: (Double) -> Double = { $0 }) -> [[Int16]] {
        (0..<frames).map { f in
            (0..<rate / 100).map { i in
                let t = Double(start + f * rate / 100 + i) / Double(rate)
                let x = (1...8).reduce(0.0) { $0 + pow(0.7, Double($1 - 1)) * sin(2 * .pi * pitch * Double($1) * t) }
                return Int16(max(-32767, min(32767, 32767 * 0.3 * shape(x / 2.5))))
            }
        }
    }

    /// Voiced and matched frames over `output` against `reference`, after the first 4 (the meters' 40 ms).
    private func count(output: [[Int16]], reference: [[Int16]]) -> (voiced: Int, matched: Int) {
        let pitch = BargeInPitch(sampleRate: rate)
        var counts = (voiced: 0, matched: 0)
        for (index, (o, r)) in zip(output, reference).enumerated() {
            let frame = o.withUnsafeBufferPointer { o in
                r.withUnsafeBufferPointer { r in pitch.update(output: o, reference: r, analyse: true) }
            }
            guard index >= 4, frame.voiced else { continue }
            counts.voiced += 1
            if frame.matched { counts.matched += 1 }
        }
        return counts
    }

    func testLagsMatchWithinFourPercentOrAnOctave() {
        XCTAssertTrue(BargeInPitch.samePitch(50, 50))
        XCTAssertTrue(BargeInPitch.samePitch(50, 52))
        XCTAssertFalse(BargeInPitch.samePitch(50, 55))
        XCTAssertTrue(BargeInPitch.samePitch(100, 50))
        XCTAssertTrue(BargeInPitch.samePitch(50, 100))
        XCTAssertFalse(BargeInPitch.samePitch(50, 75))
        XCTAssertFalse(BargeInPitch.samePitch(0, 50))
    }

    func testSamePitchIsSymmetric() {
        for a in 10...140 {
            for b in 10...140 {
                XCTAssertEqual(BargeInPitch.samePitch(a, b), BargeInPitch.samePitch(b, a), "\(a) and \(b)")
            }
        }
        XCTAssertTrue(BargeInPitch.samePitch(48, 100), "an octave within 4 % of the longer")
        XCTAssertFalse(BargeInPitch.samePitch(45, 100))
        XCTAssertTrue(BargeInPitch.samePitch(96, 100), "4 % of the longer")
        XCTAssertFalse(BargeInPitch.samePitch(95, 100))
    }

    /// A 250 Hz voice whose cycles come loud, soft, soft (shimmer): it repeats exactly only every third cycle.
    private func shimmer(frames: Int) -> [[Int16]] {
        voice(pitch: 250, frames: frames).enumerated().map { f, frame in
            frame.enumerated().map { i, sample in
                let cycle = (f * rate / 100 + i) * 250 / rate
                return cycle % 3 == 0 ? sample : Int16(Float(sample) * 0.75)
            }
        }
    }

    func testTheMeterFindsThePeriodNotAMultipleOfIt() {
        let meter = VoicingMeter(sampleRate: rate, cutoffHz: 1000)
        for frame in shimmer(frames: 10) { for sample in frame { meter.add(Double(sample) / 32768) } }
        XCTAssertGreaterThan(meter.periodicity(), 0.9)
        XCTAssertEqual(meter.bestLag, 96, "the highest correlation three periods away (at 8 kHz)")
        XCTAssertEqual(meter.fundamentalLag(), 32, "the period: 8000 / 250")
    }

    func testTheMeterHasNoPeriodForSilenceOrAfterAReset() {
        let meter = VoicingMeter(sampleRate: rate, cutoffHz: 1000)
        for frame in shimmer(frames: 10) { for sample in frame { meter.add(Double(sample) / 32768) } }
        _ = meter.periodicity()
        XCTAssertEqual(meter.fundamentalLag(), 32)
        meter.reset()
        XCTAssertEqual(meter.fundamentalLag(), 0, "after a reset")
        for _ in 0..<640 { meter.add(0) }
        XCTAssertEqual(meter.periodicity(), 0)
        XCTAssertEqual(meter.fundamentalLag(), 0, "a silent window")
    }

    func testAClippedHighVoiceMatchesAndATalkerAFifthAboveDoesNot() {
        let reference = voice(pitch: 320, frames: 100)
        let clipped = count(output: voice(pitch: 320, frames: 100, start: 53) { tanh(4 * $0) }, reference: reference)
        XCTAssertGreaterThan(clipped.voiced, 80)
        XCTAssertGreaterThan(clipped.matched, clipped.voiced * 9 / 10, "a clipped 320 Hz echo")
        let fifth = count(output: voice(pitch: 180, frames: 100), reference: voice(pitch: 120, frames: 100))
        XCTAssertGreaterThan(fifth.voiced, 80)
        XCTAssertLessThan(fifth.matched, fifth.voiced / 10, "a talker at 1.5 x the reference's pitch")
    }

    func testAnEchoWithShimmerStillMatchesTheReference() {
        let echo = count(output: shimmer(frames: 100), reference: voice(pitch: 250, frames: 100))
        XCTAssertGreaterThan(echo.voiced, 80)
        XCTAssertGreaterThan(echo.matched, echo.voiced * 9 / 10, "three periods against one is the same pitch")
    }

    func testAClippedEchoKeepsTheReferencesPitchAndATalkerDoesNot() {
        let reference = voice(pitch: 120, frames: 100)
        let clipped = voice(pitch: 120, frames: 100, start: 37) { tanh(4 * $0) - 0.8 * $0 }
        let echo = count(output: clipped, reference: reference)
        XCTAssertGreaterThan(echo.voiced, 80)
        XCTAssertGreaterThan(echo.matched, echo.voiced * 9 / 10, "the distorted echo at the reference's pitch")
        let talker = count(output: voice(pitch: 175, frames: 100), reference: reference)
        XCTAssertGreaterThan(talker.voiced, 80)
        XCTAssertEqual(talker.matched, 0, "a talker at 175 Hz against a 120 Hz reference")
        let silence = count(output: voice(pitch: 120, frames: 100) { _ in 0 }, reference: reference)
        XCTAssertEqual(silence.voiced, 0, "an unvoiced output is no evidence either way")
    }

    /// A talker past every other test, its frames voiced in both at the same pitch (`matched`) or not.
    private func decisions(limit: Float, matched: Bool) -> Int {
        var settings = FrontEndConfiguration.BargeIn()
        settings.bandWeight = 0
        settings.marginWarmUpMilliseconds = 0
        settings.pitchMatchLimit = limit
        var gate = EchoSpeechGate(FrontEndConfiguration.EchoGate())
        var detector = BargeInDetector(settings)
        var decided = 0
        for frame in 0..<360 {
            let talking = frame >= 300
            let (mic, output, echo): (Float, Float, Float) = talking ? (-20, -37, -30) : (-30, -52, -30)
            _ = gate.allowsSpeech(reference: -20, mic: mic, echoEstimate: echo, output: output)
            if detector.judge(after: gate, frame: frame, reference: -20, mic: mic, echo: echo, output: output,
                              voice: talking, pitch: .init(voiced: talking, matched: talking && matched)) {
                decided += 1
            }
        }
        return decided
    }

    func testATestAtTheReferencesPitchDecidesNothing() {
        XCTAssertEqual(decisions(limit: 0, matched: true), 1, "without the veto the talker is decided")
        XCTAssertEqual(decisions(limit: 0.5, matched: true), 0, "every voiced frame at the reference's pitch")
        XCTAssertEqual(decisions(limit: 0.5, matched: false), 1, "a pitch of its own")
    }

    func testBadPitchLimit() {
        for value: Float in [-0.1, 1.5, .nan] {
            var settings = FrontEndConfiguration.BargeIn()
            settings.pitchMatchLimit = value
            XCTAssertThrowsError(try settings.validate()) { error in
                XCTAssertTrue("\(error)".contains("pitchMatchLimit"), "\(error)")
            }
        }
    }
}
