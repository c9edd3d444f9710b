import Foundation
@testable import NuiSDK
import XCTest

/// The callback queue is bounded: an app whose callbacks are slower than the audio loses AEC data, RMS and partial
/// results (counted in ``NeoNui/callbackDrops`` and the dialog's log line), never its audio states, sentences or a
/// dialog's start and end, which all come in order.
final class CallbackBoundsTests: NuiServerTestCase {

    /// 30 s of speech-like bursts (0.6 s on, 0.7 s off: a sentence each with max_sentence_silence 500).
    static let longAudio: [UInt8] = TestAudio.pcm(bursts: stride(from: 0.3, to: 29.0, by: 1.3).map { ($0, $0 + 0.6) }, seconds: 30)

    func testASlowAppKeepsTheQueueBoundedAndGetsEveryTerminalEvent() throws {
        let nui = harness.nui
        harness.recorder.onAssist = { usleep(4000) } // 4 ms per AEC chunk: far behind 8x real time
        harness.recorder.onRms = { usleep(500) }
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url(), ["debug_path": harness.debugPath]),
                                          level: .NUI_LOG_LEVEL_INFO, saveLog: true), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(nls: ["max_sentence_silence": 500])), .SUCCESS)
        let deepest = LockedValue((droppable: 0, kept: 0))
        let sampling = LockedValue(true)
        let sampler = Thread {
            while sampling.get() {
                let now = nui.callbacks.waiting
                deepest.update { $0 = (max($0.droppable, now.droppable), max($0.kept, now.kept)) }
                usleep(2000)
            }
        }
        sampler.start()
        let rssBefore = residentMiB()
        var sentences: [Int] = []
        var outputSamples = 0
        for dialog in 1...2 {
            XCTAssertEqual(harness.start(), .SUCCESS)
            harness.push(Self.longAudio, speed: 8)
            XCTAssertEqual(nui.nui_dialog_cancel(false), .SUCCESS)
            let end = harness.recorder.wait(for: .EVENT_TRANSCRIBER_COMPLETE, count: dialog, timeout: 60)
            XCTAssertNotNil(end, "dialog \(dialog) completed")
            let summary = try XCTUnwrap(nui.nui_get_dialog_summary())
            sentences.append(summary.sentences.count)
            outputSamples += summary.dialogAudio?.outputSamples ?? 0
        }
        nui.callbacks.drain(timeout: 30)
        sampling.set(false)
        while !sampler.isFinished { usleep(1000) }
        let drops = nui.callbackDrops
        let recorder = harness.recorder
        let chunks = recorder.aecCallbackCount
        let chunkSamples = recorder.aecSamples.count / max(chunks, 1)
        print("slow app: \(chunks) AEC chunks delivered, drops \(drops), deepest queue \(deepest.get()) "
              + "(capacity \(CallbackQueue.droppableCapacity)), RSS \(rssBefore) → \(residentMiB()) MiB, sentences \(sentences)")

        XCTAssertLessThanOrEqual(deepest.get().droppable, CallbackQueue.droppableCapacity, "the queue stays bounded")
        XCTAssertGreaterThan(deepest.get().droppable, CallbackQueue.droppableCapacity / 2, "the app fell behind")
        XCTAssertGreaterThan(drops.aecData, 0)
        // Every chunk the dialogs produced was delivered or counted (± one chunk per dialog for its edges).
        XCTAssertEqual(Double(chunks + drops.aecData), Double(outputSamples) / Double(max(chunkSamples, 1)), accuracy: 2)
        // Terminal events and audio states: all of them, in order.
        let terminal = recorder.timeline.filter { $0.hasPrefix("STATE_") || $0.hasPrefix("EVENT_TRANSCRIBER") || $0.hasPrefix("EVENT_ASR_ERROR") }
        XCTAssertEqual(terminal, ["STATE_OPEN", "EVENT_TRANSCRIBER_STARTED 1", "STATE_PAUSE", "EVENT_TRANSCRIBER_COMPLETE 1",
                                  "STATE_OPEN", "EVENT_TRANSCRIBER_STARTED 2", "STATE_PAUSE", "EVENT_TRANSCRIBER_COMPLETE 2"])
        // Sentence ends are never dropped: each dialog's are all there, before its completion.
        for dialog in 1...2 {
            let ends = recorder.events.filter { $0.dialog == dialog && $0.event == .EVENT_SENTENCE_END }.count
            XCTAssertEqual(ends, sentences[dialog - 1], "dialog \(dialog)")
            XCTAssertGreaterThan(ends, 10, "dialog \(dialog)")
        }
        let log = try String(contentsOfFile: harness.debugPath + "/nui.log", encoding: .utf8)
        XCTAssertTrue(log.contains("callbacks dropped"), "the dialog's log line reports the drops")
        XCTAssertEqual(recorder.threads.count, 1, "every callback on one thread")
    }

    func testTheQueueRefusesOnlyDroppablesBeyondItsCapacity() {
        let queue = CallbackQueue()
        let gate = DispatchSemaphore(value: 0)
        let ran = LockedValue<[Int]>([])
        queue.post { gate.wait() } // holds the thread
        var refused = 0
        for i in 0..<(CallbackQueue.droppableCapacity + 100) {
            if !queue.post(.droppable, { ran.update { $0.append(i) } }) { refused += 1 }
            if i % 100 == 0 { queue.post(.terminal) { ran.update { $0.append(-i - 1) } } }
        }
        XCTAssertEqual(refused, 100)
        XCTAssertTrue(queue.isFull)
        XCTAssertFalse(queue.post(.droppable) {})
        XCTAssertTrue(queue.post(.kept) { ran.update { $0.append(Int.max) } })
        gate.signal()
        queue.drain()
        let order = ran.get()
        XCTAssertEqual(order.filter { $0 >= 0 && $0 != Int.max }, Array(0..<CallbackQueue.droppableCapacity), "FIFO")
        XCTAssertEqual(order.filter { $0 < 0 }.count, (CallbackQueue.droppableCapacity + 100 + 99) / 100, "terminal never refused")
        XCTAssertEqual(order.last, Int.max)
        XCTAssertEqual(queue.waiting.droppable, 0)
    }
}
