import XCTest
@testable import AudioFrontEnd

/// The front end's speech edges (``FrontEndConfiguration/SpeechEdges``, on by default): in steady noise a sound
/// 3 dB over the noise (under the detector's margin) just before and after a loud one moves the segment's start and
/// end out to it; without the edges, or in fluctuating noise, the segment is the loud sound's.
final class FrontEndSpeechEdgesTests: XCTestCase {
    static let weakStart = 3000, loudStart = 3150, loudEnd = 3550, weakEnd = 3700 // ms

    /// 6 s at 16 kHz: low-passed white noise at -40 dBFS (its level stepping ±4 dB every 50 ms when
    /// `fluctuating`), plus an unvoiced sound of the same spectrum at the noise's power from `weakStart` to
    /// `weakEnd` and 15 dB louder from `loudStart` to `loudEnd`.
    static func signal(fluctuating: Bool) -> [Int16] {
        var random = SeededRandom(seed: 24)
        func lowPassed(_ n: Int) -> [Float] {
            var state: Float = 0
            return (0..<n).map { _ in state = 0.5 * state + random.uniform(); return state }
        }
        let n = 6 * 16000
        let noise = lowPassed(n), sound = lowPassed(n)
        let rms = (noise.map { $0 * $0 }.reduce(0, +) / Float(n)).squareRoot()
        let scale = 32768 * powf(10, -40 / 20) / rms
        return (0..<n).map { i in
            let ms = i / 16
            let noiseGain: Float = fluctuating && (ms / 50) % 2 == 1 ? powf(10, -8 / 20) : 1
            let soundGain: Float = (loudStart..<loudEnd).contains(ms) ? powf(10, 15 / 20)
                : (weakStart..<weakEnd).contains(ms) ? 1 : 0
            return Int16(clamping: Int((scale * (noiseGain * noise[i] + soundGain * sound[i])).rounded()))
        }
    }

    private func segment(_ edges: FrontEndConfiguration.SpeechEdges?, fluctuating: Bool = false,
                         detector: FrontEndConfiguration.VoiceDetector? = nil) throws -> (start: Int, end: Int) {
        var configuration = FrontEndConfiguration()
        configuration.voiceDetection?.speechEdges = edges
        if let detector { configuration.voiceDetection?.detector = detector }
        let collector = try FrontEndHarness.run(configuration, mic: Self.signal(fluctuating: fluctuating), reference: nil)
        let starts = collector.events.compactMap { if case .speechStarted(let ms) = $0 { ms } else { nil } }
        let ends = collector.events.compactMap { if case .speechEnded(let ms) = $0 { ms } else { nil } }
        guard starts.count == 1, ends.count == 1 else {
            XCTFail("one segment expected: starts \(starts), ends \(ends)")
            return (0, 0)
        }
        return (starts[0], ends[0])
    }

    func testEdgesMoveTheSegmentOutToTheWeakSound() throws {
        XCTAssertNotNil(FrontEndConfiguration().voiceDetection?.speechEdges, "on by default")
        let with = try segment(FrontEndConfiguration.SpeechEdges())
        XCTAssertEqual(Double(with.start), Double(Self.weakStart), accuracy: 60, "start with the edges")
        XCTAssertEqual(Double(with.end), Double(Self.weakEnd), accuracy: 60, "end with the edges")
        let without = try segment(nil)
        XCTAssertGreaterThanOrEqual(without.start, Self.loudStart - 30, "start without the edges")
        XCTAssertLessThanOrEqual(without.end, Self.loudEnd + 80, "end without the edges")
        var short = FrontEndConfiguration.SpeechEdges()
        short.maximumLeadMilliseconds = 50
        short.maximumTrailMilliseconds = 50
        let limited = try segment(short)
        print("speech edges: with \(with), without \(without), 50 ms limits \(limited)")
        XCTAssertGreaterThanOrEqual(limited.start, without.start - 50, "lead limited to 50 ms")
        XCTAssertLessThanOrEqual(limited.end, without.end + 50, "trail limited to 50 ms")
        XCTAssertLessThan(limited.start, without.start, "the limited lead still moves the start")
    }

    func testFluctuatingNoiseKeepsTheLoudSoundsSegment() throws {
        let with = try segment(FrontEndConfiguration.SpeechEdges(), fluctuating: true)
        let without = try segment(nil, fluctuating: true)
        XCTAssertEqual(with.start, without.start, "noise deviation above 1.8 dB: no edge search")
        XCTAssertEqual(with.end, without.end)
    }

    func testTheWebRTCDetectorIgnoresTheEdges() throws {
        let webRTC = FrontEndConfiguration.VoiceDetector.webRTC(WebRTCVoiceActivityDetector.Configuration())
        let with = try segment(FrontEndConfiguration.SpeechEdges(), detector: webRTC)
        let without = try segment(nil, detector: webRTC)
        XCTAssertEqual(with.start, without.start, "the edge search needs the energy detector's noise estimate")
        XCTAssertEqual(with.end, without.end)
    }

    func testBadSettingsAreNamed() {
        for (edges, name) in [(FrontEndConfiguration.SpeechEdges(marginDecibels: -1), "marginDecibels"),
                              (.init(maximumLeadMilliseconds: 15), "maximumLeadMilliseconds"),
                              (.init(maximumTrailMilliseconds: 2000), "maximumTrailMilliseconds"),
                              (.init(maximumGapMilliseconds: 110), "maximumGapMilliseconds"),
                              (.init(maximumNoiseDeviationDecibels: .nan), "maximumNoiseDeviationDecibels")] {
            var configuration = FrontEndConfiguration()
            configuration.voiceDetection?.speechEdges = edges
            XCTAssertThrowsError(try FrontEnd(configuration: configuration)) { error in
                XCTAssertTrue("\(error)".contains(name), "\(error)")
            }
        }
    }
}
