import AudioFrontEnd
import Foundation
import XCTest

/// The barge-in suspicion (``FrontEndConfiguration/bargeInSuspicion``) through a real front end on the bundled
/// double-talk vector: suspicions come flagged beside the decisions, no later than each decision's, without
/// changing the decisions or their count; alone without the decision; refused settings named (nothing allocated
/// on the push thread: `FrontEndBargeInTests`). What ducking on them buys is measured by `Scripts/scenarios/bargein_duck.py`.
final class FrontEndBargeInSuspicionTests: XCTestCase {
    private let micFile = "doubletalk_ser0db_16k.wav"

    private func run(_ configuration: FrontEndConfiguration) throws -> (decisions: [BargeInDecision], suspicions: [BargeInDecision],
                                                                          summary: FrontEndSummary?) {
        let result = try FrontEndHarness.run(configuration, mic: try StageRunner.samples(micFile),
                                             reference: try StageRunner.samples("farend_16k.wav"))
        let all = FrontEndBargeInTests.decisions(result)
        return (all.filter { !$0.isSuspicion }, all.filter(\.isSuspicion), result.summary)
    }

    func testSuspicionsComeFlaggedBesideTheDecisionsAndNoLater() throws {
        let plain = try run(FrontEndConfiguration())
        var configuration = FrontEndConfiguration()
        configuration.bargeInSuspicion = FrontEndConfiguration.suggestedBargeInSuspicion
        let both = try run(configuration)
        print("MEASURED suspicions \(both.suspicions.map(\.milliseconds)), decisions \(both.decisions.map(\.milliseconds)) ms")
        XCTAssertEqual(plain.suspicions, [], "no suspicion unless asked for")
        XCTAssertEqual(both.decisions, plain.decisions, "the suspicion leaves the decisions alone")
        XCTAssertEqual(both.summary?.bargeIns, plain.decisions.count, "suspicions are not counted as barge-ins")
        XCTAssertFalse(both.suspicions.isEmpty)
        XCTAssertEqual(both.suspicions.map(\.sequence), Array(1..<(both.suspicions.count + 1)))
        for decision in both.decisions {
            // The looser test has the same evidence and more of it: a suspicion at or before each decision, since
            // the previous decision.
            let previous = both.decisions.last { $0.milliseconds < decision.milliseconds }?.milliseconds ?? 0
            XCTAssertTrue(both.suspicions.contains { $0.milliseconds > previous && $0.milliseconds <= decision.milliseconds },
                          "no suspicion before the decision at \(decision.milliseconds) ms: \(both.suspicions)")
        }
    }

    func testASuspicionAloneAndBadSettings() throws {
        var alone = FrontEndConfiguration()
        alone.bargeIn = nil
        alone.bargeInSuspicion = FrontEndConfiguration.suggestedBargeInSuspicion
        let result = try run(alone)
        XCTAssertEqual(result.decisions, [])
        XCTAssertFalse(result.suspicions.isEmpty)
        XCTAssertEqual(result.summary?.bargeIns, 0)
        var bad = FrontEndConfiguration()
        bad.bargeInSuspicion = FrontEndConfiguration.BargeIn(minimumSpeechMilliseconds: 5)
        XCTAssertThrowsError(try FrontEnd(configuration: bad)) { error in
            XCTAssertEqual((error as? AudioFrontEndError)?.code, .invalidConfiguration)
            XCTAssertTrue("\(error)".contains("barge-in minimumSpeechMilliseconds"), "\(error)")
        }
    }
}
