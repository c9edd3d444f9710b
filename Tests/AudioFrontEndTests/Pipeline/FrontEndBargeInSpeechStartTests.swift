import AudioFrontEnd
import XCTest

/// A barge-in decision starts a speech segment (``FrontEndConfiguration/EchoGate/startsOnBargeIn``, on by
/// default): on `doubletalk_ser0db_16k.wav`, with the gate's playback onset at its longest (2 s) and no
/// strong-evidence onset (so the gate alone starts no segment in time), every decision finds a segment open that
/// began at or before its speech start; with the setting off, at least one decision comes with no segment
/// open. The scenario matrix measures what it does to double-talk onsets and false starts (see the commit), not
/// this test.
final class FrontEndBargeInSpeechStartTests: XCTestCase {
    private struct Run {
        var decisions: [BargeInDecision]
        var segments: [(start: Int, end: Int?)]
    }

    private func run(startsOnBargeIn: Bool, playbackOnsetMilliseconds: Int) throws -> Run {
        var configuration = FrontEndConfiguration()
        XCTAssertTrue(configuration.voiceDetection?.echoGate.startsOnBargeIn == true, "on by default")
        configuration.voiceDetection?.echoGate.startsOnBargeIn = startsOnBargeIn
        configuration.voiceDetection?.echoGate.playbackOnsetMilliseconds = playbackOnsetMilliseconds
        if playbackOnsetMilliseconds == 2000 { configuration.voiceDetection?.echoGate.strongOnsetMilliseconds = 0 }
        let collector = try FrontEndHarness.run(configuration, mic: try StageRunner.samples("doubletalk_ser0db_16k.wav"),
                                                reference: try StageRunner.samples("farend_16k.wav"))
        var segments: [(start: Int, end: Int?)] = []
        for event in collector.events {
            switch event {
            case .speechStarted(let ms): segments.append((ms, nil))
            case .speechEnded(let ms): segments[segments.count - 1].end = ms
            default: break
            }
        }
        return Run(decisions: FrontEndBargeInTests.decisions(collector), segments: segments)
    }

    /// Whether a segment that began by the decision's speech start (10 ms of rounding) was still open at the
    /// decision.
    private func isCovered(_ decision: BargeInDecision, _ segments: [(start: Int, end: Int?)]) -> Bool {
        segments.contains { $0.start <= decision.speechStartMilliseconds + 10 && ($0.end ?? .max) >= decision.milliseconds - 10 }
    }

    func testEveryDecisionOpensASegmentFromItsSpeechStart() throws {
        let with = try run(startsOnBargeIn: true, playbackOnsetMilliseconds: 2000)
        let without = try run(startsOnBargeIn: false, playbackOnsetMilliseconds: 2000)
        print("barge-in starts speech: decisions \(with.decisions.map { ($0.speechStartMilliseconds, $0.milliseconds) }), "
              + "segments with \(with.segments), without \(without.segments)")
        XCTAssertGreaterThanOrEqual(with.decisions.count, 3)
        for decision in with.decisions {
            XCTAssertTrue(isCovered(decision, with.segments), "no segment from \(decision) on: \(with.segments)")
        }
        XCTAssertEqual(without.decisions, with.decisions, "the decisions do not depend on the segments")
        XCTAssertTrue(without.decisions.contains { !isCovered($0, without.segments) },
                      "every decision already had its segment without the setting: \(without.segments)")
    }

    /// With the default playback onset the gate's own segments stay (a start already under way keeps its earlier
    /// time), and the decisions are covered too.
    func testDefaultsCoverEveryDecision() throws {
        let defaults = try run(startsOnBargeIn: true, playbackOnsetMilliseconds: FrontEndConfiguration.EchoGate().playbackOnsetMilliseconds)
        XCTAssertFalse(defaults.decisions.isEmpty)
        for decision in defaults.decisions {
            XCTAssertTrue(isCovered(decision, defaults.segments), "no segment from \(decision) on: \(defaults.segments)")
        }
    }
}
