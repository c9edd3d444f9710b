import AllocationCounter
import AudioFrontEnd
import Foundation
import XCTest

/// The barge-in decision (issue 14 part 4) through a real front end on the bundled vectors: a decision soon
/// after each near-end onset that falls while the far end plays, none on echo alone, none when off, none
/// allocated on the push thread. Latency and false barge-ins over the scenario matrix are measured by
/// `Scripts/scenarios/bargein.py`, not here.
final class FrontEndBargeInTests: XCTestCase {
    static func decisions(_ collector: FrontEndCollector) -> [BargeInDecision] {
        collector.events.compactMap { if case .bargeIn(let d) = $0 { d } else { nil } }
    }

    /// `doubletalk_ser0db_16k.wav`: the talker's utterances at 3.03, 12.32 and 17.22 s start while the far end
    /// speaks (6.22 s falls in a far-end pause: no playback to interrupt). Each gets a decision within 600 ms of
    /// its label (generous: the matrix measures the latency), whose speech start lies within 200 ms of it; no
    /// decision falls outside the utterances; the summary counts them.
    func testOneDecisionSoonAfterEachOnsetDuringPlayback() throws {
        let mic = try StageRunner.samples("doubletalk_ser0db_16k.wav")
        let reference = try StageRunner.samples("farend_16k.wav")
        let labels = try TestVectors.entry("doubletalk_ser0db_16k.wav").speechIntervals
        let result = try FrontEndHarness.run(FrontEndConfiguration(), mic: mic, reference: reference)
        let decisions = Self.decisions(result)
        print("MEASURED barge-in on doubletalk_ser0db_16k.wav: \(decisions.map { ($0.speechStartMilliseconds, $0.milliseconds) })")
        for onset in [3.03, 12.32, 17.22] {
            let ms = Int(onset * 1000)
            XCTAssertTrue(decisions.contains { $0.milliseconds > ms && $0.milliseconds <= ms + 600 && abs($0.speechStartMilliseconds - ms) <= 200 },
                          "no decision within 600 ms of the onset at \(ms) ms: \(decisions)")
        }
        for decision in decisions {
            let t = Double(decision.milliseconds) / 1000
            XCTAssertTrue(labels.contains { t >= $0.start && t <= $0.end + 0.3 }, "a decision outside the utterances: \(decision)")
        }
        XCTAssertEqual(decisions.map(\.sequence), Array(1..<(decisions.count + 1)))
        XCTAssertEqual(result.summary?.bargeIns, decisions.count)
    }

    /// Echo alone (`echo_d120ms_16k.wav`, the far end 120 ms late in a room with RT60 0.25 s), from the first
    /// second of playback on: no decision.
    func testNoDecisionOnEchoAlone() throws {
        let mic = try StageRunner.samples("echo_d120ms_16k.wav")
        let reference = try StageRunner.samples("farend_16k.wav")
        let result = try FrontEndHarness.run(FrontEndConfiguration(), mic: mic, reference: reference)
        XCTAssertEqual(Self.decisions(result), [])
        XCTAssertEqual(result.summary?.bargeIns, 0)
    }

    /// The chain feeds the decision the output's coherence with the reference (``BargeInCoherence``): with a limit
    /// under the estimator's floor (a talker reads 0.02-0.08) every decision of the double-talk vector is held.
    func testTheCoherenceReachesTheDecision() throws {
        var strict = FrontEndConfiguration()
        strict.bargeIn!.coherenceLimit = 0.005
        let result = try FrontEndHarness.run(strict, mic: try StageRunner.samples("doubletalk_ser0db_16k.wav"),
                                             reference: try StageRunner.samples("farend_16k.wav"))
        XCTAssertEqual(Self.decisions(result), [], "a limit of 0.005 holds every decision")
    }

    /// `bargeIn = nil` turns it off; settings out of range are refused, named.
    func testOffAndBadSettings() throws {
        var off = FrontEndConfiguration()
        off.bargeIn = nil
        let result = try FrontEndHarness.run(off, mic: try StageRunner.samples("doubletalk_ser0db_16k.wav"),
                                             reference: try StageRunner.samples("farend_16k.wav"))
        XCTAssertEqual(Self.decisions(result), [])
        for change: (inout FrontEndConfiguration.BargeIn) -> Void in [{ $0.minimumSpeechMilliseconds = 5 },
                                                                      { $0.minimumSpeechMilliseconds = 155 },
                                                                      { $0.maximumGapMilliseconds = 900 },
                                                                      { $0.nearToResidualDecibels = -1 },
                                                                      { $0.micExcessDecibels = .nan },
                                                                      { $0.coherenceLimit = -0.1 }] {
            var configuration = FrontEndConfiguration()
            change(&configuration.bargeIn!)
            XCTAssertThrowsError(try FrontEnd(configuration: configuration)) { error in
                XCTAssertEqual((error as? AudioFrontEndError)?.code, .invalidConfiguration)
                XCTAssertTrue("\(error)".contains("barge-in"), "\(error)")
            }
        }
    }

    /// The decision and its event on the push thread allocate nothing: the double-talk vector pushed in 10 ms
    /// pieces, counted from 2 s on, over spans where decisions are made — with the suspicion beside it too
    /// (``FrontEndConfiguration/bargeInSuspicion``), and without the coherence veto's analysis
    /// (``FrontEndConfiguration/BargeIn/coherenceLimit`` 0; the default runs it).
    func testDecisionsAllocateNothingOnThePushThread() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let mic = try StageRunner.samples("doubletalk_ser0db_16k.wav")
        let reference = try StageRunner.samples("farend_16k.wav")
        var suspicious = FrontEndConfiguration()
        suspicious.bargeInSuspicion = FrontEndConfiguration.suggestedBargeInSuspicion
        var incoherent = FrontEndConfiguration()
        incoherent.bargeIn!.coherenceLimit = 0
        for (configuration, label) in [(FrontEndConfiguration(), "decisions"), (suspicious, "decisions and suspicions"),
                                       (incoherent, "decisions without the coherence veto")] {
            let (frontEnd, collector) = try FrontEndHarness.started(configuration)
            func push(_ range: Range<Int>) { FrontEndHarness.push(frontEnd, mic: mic, reference: reference, range, chunk: 160) }
            push(0..<(16000 * 2))
            usleep(200_000)
            afe_allocation_counter_start()
            push((16000 * 2)..<(16000 * 20))
            let allocations = afe_allocation_counter_stop()
            try frontEnd.finish()
            let counted = Self.decisions(collector).filter { $0.milliseconds > 2000 }
            XCTAssertTrue(counted.contains { !$0.isSuspicion }, "no decision in the counted span")
            if configuration.bargeInSuspicion != nil { XCTAssertTrue(counted.contains(where: \.isSuspicion), "no suspicion in the counted span") }
            XCTAssertEqual(allocations, 0, "heap allocations on the push thread with barge-in \(label)")
        }
    }
}
