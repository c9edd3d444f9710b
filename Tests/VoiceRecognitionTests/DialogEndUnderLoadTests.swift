import AudioFrontEnd
import Foundation
import Synchronization
import VoiceRecognition
import XCTest

/// Issue 13 part 3: many short dialogs on one engine against the reference server, with busy threads competing
/// for the two cores, each ending with the mic stopped at its finish (as NeoNuiEchoReferenceTests' dialog did when
/// its last 30 ms of EVENT_AEC_DATA came after the completion in a fresh-clone CI run). Every dialog must report
/// all the audio it took before its completion: the audio events' samples equal the summary's
/// ``DialogAudioTotals/outputSamples``, and those cover the mic up to the stages' hold-back.
final class DialogEndUnderLoadTests: XCTestCase {
    private final class Busy: Sendable { let on = Atomic<Bool>(true) }
    static let rate = 16000
    /// What the stages hold back of the mic at a finish with the mic stopped (20 ms) plus one 10 ms chunk.
    static let tailAllowance = 480

    func testEveryDialogReportsAllItsAudioBeforeItsCompletionUnderLoad() throws {
        let server = try ReferenceServer()
        let engine = try RecognitionEngine(configuration: RecognitionConfiguration(service: Wire.dashScope.service(server)))
        defer { engine.close() }
        let busy = Busy()
        for _ in 0..<3 { Thread { while busy.on.load(ordering: .relaxed) {} }.start() } // three spinners on two cores
        defer { busy.on.store(false, ordering: .relaxed) }

        var generator = SystemRandomNumberGenerator()
        var failures: [String] = []
        let dialogs = 40
        for index in 0..<dialogs {
            let core = try RecognitionCore(engine: engine)
            let log = EventLog()
            log.attach(to: core)
            try core.start()
            guard log.wait(for: { if case .started = $0 { true } else { false } }) != nil else {
                return XCTFail("dialog \(index) did not start: \(log.events.suffix(2))")
            }
            // 100-400 ms of a tone with noise, 10 ms pushes at about 8 times real time, some with a pause.
            let pushes = Int.random(in: 10...40, using: &generator)
            var pushed = 0
            for push in 0..<pushes {
                let samples = (0..<160).map { i in
                    Int16(3000 * sin(Double(pushed + i) * 0.07) + Double.random(in: -300...300, using: &generator))
                }
                let result = samples.withUnsafeBufferPointer { engine.pushMic(samples: $0) }
                pushed += result.accepted
                usleep(push % 7 == 0 ? 3000 : 1250)
            }
            if index % 2 == 0 { try core.finish() } else { core.cancel(force: false) }
            guard case .completed(let summary)? = log.waitForEnd(timeout: 30), let totals = summary.dialogAudio else {
                failures.append("dialog \(index): no completion with totals: \(log.events.suffix(1))")
                continue
            }
            let events = log.events
            let end = events.firstIndex { $0.isTerminal } ?? events.endIndex
            func samples(_ slice: ArraySlice<RecognitionEvent>) -> Int {
                slice.reduce(0) { if case .audio(let chunk) = $1 { $0 + chunk.samples.count } else { $0 } }
            }
            let before = samples(events[..<end]), after = samples(events[end...])
            if before != totals.outputSamples || after != 0 || totals.outputSamples < pushed - Self.tailAllowance {
                failures.append("dialog \(index): \(before) samples reported before the completion, \(after) after, "
                                + "\(totals.outputSamples) taken, \(pushed) pushed")
            }
        }
        XCTAssertEqual(failures, [], "\(failures.count) of \(dialogs) dialogs")
    }
}
