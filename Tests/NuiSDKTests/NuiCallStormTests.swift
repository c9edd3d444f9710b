import Foundation
@testable import NuiSDK
import Synchronization
import XCTest

/// Hostile callers: while a mic thread and a playback thread push audio at 4 × real time, two control threads call
/// one `NeoNui` in random order against the reference server (dialog start, both cancels, play_start / play_over,
/// set_params, the summary), as an app with racing UI, wake-word and network code might. Every call returns a code
/// the state table allows (`Sources/NuiSDK/ResultCodes.md`), every dialog that started ends exactly once
/// (`EVENT_TRANSCRIBER_COMPLETE` or `EVENT_ASR_ERROR`), nothing hangs, and afterwards a whole dialog recognizes
/// speech and `nui_release` succeeds.
final class NuiCallStormTests: NuiServerTestCase {
    enum Call: CaseIterable { case start, cancelFinishing, cancelNow, playStart, playOver, setParams, summary, release, initialize }

    /// Every state is reachable (a release and a new initialize come at random too): U gives NOT_INITIALIZED, I
    /// (initialized, no parameters) PARAMS_NOT_SET for a start.
    static let allowed: [Call: Set<NuiResultCode>] = [
        .start: [.SUCCESS, .NUI_ERR_DIALOG_RUNNING, .NUI_ERR_NOT_INITIALIZED, .NUI_ERR_PARAMS_NOT_SET],
        .cancelFinishing: [.SUCCESS, .NUI_ERR_NO_DIALOG, .NUI_ERR_NOT_INITIALIZED],
        .cancelNow: [.SUCCESS, .NUI_ERR_NO_DIALOG, .NUI_ERR_NOT_INITIALIZED],
        .playStart: [.SUCCESS, .NUI_ERR_NO_DIALOG, .NUI_ERR_NOT_INITIALIZED],
        .playOver: [.SUCCESS, .NUI_ERR_NO_DIALOG, .NUI_ERR_NOT_INITIALIZED],
        .setParams: [.SUCCESS, .NUI_ERR_DIALOG_RUNNING, .NUI_ERR_NOT_INITIALIZED],
        .release: [.SUCCESS, .NUI_ERR_NOT_INITIALIZED],
        .initialize: [.SUCCESS, .NUI_ERR_ALREADY_INITIALIZED],
    ]
    /// A push before the first dialog has no front end; one that finds the pipeline 2 s behind is refused; after a
    /// release nothing is initialized.
    static let pushAllowed: Set<NuiResultCode> = [.SUCCESS, .NUI_ERR_NO_DIALOG, .NUI_ERR_AUDIO_BUFFER_FULL, .NUI_ERR_NOT_INITIALIZED]

    /// What the threads' calls returned. Any thread.
    final class StormLog: @unchecked Sendable { // under `lock`
        private let lock = NSLock()
        private var codes: [String] = []
        private var calls: [String: Int] = [:]
        func record(_ name: String, _ code: NuiResultCode, allowed: Set<NuiResultCode>) {
            lock.withLock {
                calls["\(name) \(code.name)", default: 0] += 1
                if !allowed.contains(code) { codes.append("\(name): \(code.name)") }
            }
        }
        var unexpected: [String] { lock.withLock { codes } }
        var counts: [String: Int] { lock.withLock { calls } }
    }

    func testRandomCallsFromFourThreadsEndEveryDialogOnceAndLeaveAWorkingSDK() throws {
        let initJSON = NuiHarness.json(harness.initParameters(url: server.url()))
        XCTAssertEqual(harness.nui.nui_initialize(initJSON, logLevel: .NUI_LOG_LEVEL_INFO, saveLog: false), .SUCCESS)
        let parameters = NuiHarness.json(NuiHarness.recognitionParameters())
        XCTAssertEqual(harness.nui.nui_set_params(parameters), .SUCCESS)
        let mic = try TestVectors.int16("doubletalk_ser0db_16k.wav").samples
        let reference = try TestVectors.int16("farend_16k.wav").samples
        let nui = harness.nui
        let log = StormLog()
        let audioRuns = Atomic<Bool>(true)
        let group = DispatchGroup()
        // The audio threads: 10 ms at a time, 4 × real time, around and around the vectors.
        for (samples, isMic) in [(mic, true), (reference, false)] {
            group.enter()
            Thread.detachNewThread {
                var offset = 0
                while audioRuns.load(ordering: .relaxed) {
                    if offset + 160 > samples.count { offset = 0 }
                    let code = samples[offset..<(offset + 160)].withUnsafeBytes { raw in
                        let bytes = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                        return isMic ? nui.nui_update_audio_data(bytes, Len: 320, FirstPack: false)
                            : nui.nui_push_reference_data(bytes, Len: 320, FirstPack: false)
                    }
                    log.record(isMic ? "mic push" : "reference push", code, allowed: Self.pushAllowed)
                    offset += 160
                    usleep(2500)
                }
                group.leave()
            }
        }
        let control = DispatchGroup()
        for _ in 0..<2 {
            control.enter()
            Thread.detachNewThread {
                var random = SystemRandomNumberGenerator()
                // At least 250 calls, and on (up to 2,000) until ten dialogs have started: a run of unlucky rolls
                // (releases, starts while one runs) cannot leave too few dialogs to race with.
                var made = 0
                while made < 250 || (log.counts["start SUCCESS", default: 0] < 10 && made < 2_000) {
                    made += 1
                    // release and initialize one call in 20 each: most of the storm has dialogs to race with
                    let roll = Int.random(in: 0..<20, using: &random)
                    let call: Call = roll == 0 ? .release : roll == 1 ? .initialize
                        : [Call.start, .cancelFinishing, .cancelNow, .playStart, .playOver, .setParams, .summary].randomElement(using: &random)!
                    let code: NuiResultCode
                    switch call {
                    case .start: code = nui.nui_dialog_start(.MODE_P2T, dialogParam: "{}")
                    case .cancelFinishing: code = nui.nui_dialog_cancel(false)
                    case .cancelNow: code = nui.nui_dialog_cancel(true)
                    case .playStart: code = nui.nui_dialog_action(#"{"type":"action","command":"play_start"}"#)
                    case .playOver: code = nui.nui_dialog_action(#"{"type":"action","command":"play_over"}"#)
                    case .setParams: code = nui.nui_set_params(parameters)
                    case .release: code = nui.nui_release()
                    case .initialize: code = nui.nui_initialize(initJSON, logLevel: .NUI_LOG_LEVEL_INFO, saveLog: false)
                    case .summary:
                        _ = nui.nui_get_dialog_summary()
                        _ = nui.nui_get_all_response()
                        code = .SUCCESS
                    }
                    log.record("\(call)", code, allowed: Self.allowed[call] ?? [.SUCCESS])
                    usleep(UInt32.random(in: 0...40_000, using: &random))
                }
                control.leave()
            }
        }
        XCTAssertEqual(control.wait(timeout: .now() + 300), .success, "the control calls did not all return within 300 s")
        _ = nui.nui_dialog_cancel(true)
        audioRuns.store(false, ordering: .relaxed)
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "the audio threads did not stop")
        XCTAssertEqual(log.unexpected, [], "codes outside the state table")

        // Every dialog that started ends exactly once.
        let starts = log.counts["start SUCCESS"] ?? 0
        let recorder = harness.recorder
        let ends = { recorder.events.filter { [.EVENT_TRANSCRIBER_COMPLETE, .EVENT_ASR_ERROR].contains($0.event) }.count }
        let deadline = Date().addingTimeInterval(30)
        while ends() < starts, Date() < deadline { usleep(20_000) }
        usleep(300_000) // a second end of some dialog would come now
        XCTAssertGreaterThanOrEqual(starts, 10, "the storm started dialogs")
        XCTAssertEqual(ends(), starts, "one EVENT_TRANSCRIBER_COMPLETE or EVENT_ASR_ERROR per dialog started")

        // Afterwards (initialized, parameters set) a whole dialog recognizes the near-end vector, and release works.
        _ = nui.nui_initialize(initJSON, logLevel: .NUI_LOG_LEVEL_INFO, saveLog: false)
        XCTAssertEqual(nui.nui_set_params(parameters), .SUCCESS)
        let before = recorder.events(.EVENT_SENTENCE_END).count
        let completes = recorder.events(.EVENT_TRANSCRIBER_COMPLETE).count
        XCTAssertEqual(harness.start(), .SUCCESS)
        let near = try TestVectors.int16("nearend_16k.wav").samples
        harness.push(near.withUnsafeBytes { Array($0) })
        XCTAssertEqual(nui.nui_dialog_cancel(false), .SUCCESS)
        let finalDeadline = Date().addingTimeInterval(60)
        while recorder.events(.EVENT_TRANSCRIBER_COMPLETE).count == completes, Date() < finalDeadline { usleep(20_000) }
        XCTAssertEqual(recorder.events(.EVENT_TRANSCRIBER_COMPLETE).count, completes + 1, "the last dialog completed")
        XCTAssertGreaterThanOrEqual(recorder.events(.EVENT_SENTENCE_END).count - before, 3, "it recognized the vector's sentences")
        XCTAssertEqual(nui.nui_release(), .SUCCESS)
        print("NeoNui call storm: \(starts) dialogs; " + log.counts.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "))
    }
}
