@testable import AudioFrontEnd
import Foundation
@testable import SpeechStreaming
import Synchronization
@_spi(Testing) @testable import VoiceRecognition
import XCTest

/// Issue 13 part 3: a dialog on an engine ends after every audio chunk the processing thread sent for it
/// (NUI: every `EVENT_AEC_DATA` before `EVENT_TRANSCRIBER_COMPLETE`). The three threads involved post to the
/// event thread in whatever order they run: the drain (each chunk's `.audio`, after it counted the chunk as
/// taken), the network thread (`.completed`). These tests hand the event processor the batches the pump makes
/// when the completion is posted between two of the drain's posts, deterministically, with the real forwarder
/// behind the completion's wait (no network, no timing).
final class CompletionOrderTests: XCTestCase {
    private final class Parts: @unchecked Sendable { // set up once; `events` under its mutex
        let session: SpeechStreamingSession
        let forwarder: AudioForwarder
        let processor: EventProcessor
        let events = Mutex<[RecognitionEvent]>([])
        let start = 1600

        init(reportsAudio: Bool = true) throws {
            let configuration = RecognitionConfiguration(service: Wire.dashScope.service(url: "ws://127.0.0.1:9/api-ws/v1/inference"),
                                                         reportsAudio: reportsAudio)
            session = try configuration.makeStreamingSession()
            let pump = EventPump() // never started: the test hands the processor its batches
            let shared = SharedState()
            let forwarder = AudioForwarder(session: session, pump: pump, shared: shared, configuration: configuration)
            self.forwarder = forwarder
            let session = session
            processor = EventProcessor(shared: shared, hooks: EventProcessor.Hooks(
                micPushes: { 0 }, statistics: { session.statistics }, release: {}, close: {}, poll: {},
                audioPending: { forwarder.audioPending(handledEnd: $0) }),
                clock: SystemRecognitionClock(), configuration: configuration)
            shared.lifecycle.withLock { $0 = .running }
            shared.handler.withLock { $0 = HandlerBox { [unowned self] event in events.withLock { $0.append(event) } } }
            forwarder.begin(at: start, outputRate: 16000, micBytes: 0)
            _ = processor.handle([.startRequested(at: .zero)])
        }

        /// Chunk `index` (10 ms) as the processing thread sends it and the drain takes it; returns the message
        /// the drain posts (the chunk rebased to the dialog).
        func produce(_ index: Int) -> EventPump.Message {
            let samples = [Int16](repeating: Int16(index + 1), count: 160)
            let position = start + 160 * index
            let sent = samples.withUnsafeBufferPointer { forwarder.takeProcessed($0, position: position) }
            XCTAssertTrue(sent, "chunk \(index) inside the dialog")
            let chunk = AudioChunk(position: position, sampleRate: 16000, samples: samples)
            XCTAssertTrue(forwarder.take(.audio(chunk), opusStart: 0, outputEnd: position + 160))
            return .frontEnd(.audio(AudioChunk(position: 160 * index, sampleRate: 16000, samples: samples)))
        }

        static let completed = EventPump.Message.speech(.completed(TaskCompleted(taskId: "t", rawJSON: "{}")))

        /// The audio samples reported before the terminal event, and whether the terminal event came.
        var outcome: (samplesBeforeEnd: Int, ended: Bool, samplesAfterEnd: Int) {
            events.withLock { events in
                let end = events.firstIndex { $0.isTerminal } ?? events.endIndex
                func samples(_ slice: ArraySlice<RecognitionEvent>) -> Int {
                    slice.reduce(0) { if case .audio(let chunk) = $1 { $0 + chunk.samples.count } else { $0 } }
                }
                return (samples(events[..<end]), end < events.endIndex, samples(events[end...]))
            }
        }

        /// The summary of the completion, once it came.
        var summary: RecognitionSummary? {
            events.withLock { events in
                events.lazy.compactMap { if case .completed(let summary) = $0 { summary } else { nil } }.first
            }
        }
    }

    /// The pump's batch holds the completion between two chunks the drain had both taken already: the
    /// completion waits for the second, handled after it in the same batch.
    func testACompletionInTheSameBatchAsTheLastChunkComesAfterIt() throws {
        let parts = try Parts()
        defer { parts.session.close() }
        let first = parts.produce(0), second = parts.produce(1)
        _ = parts.processor.handle([first, Parts.completed, second])
        let outcome = parts.outcome
        XCTAssertTrue(outcome.ended, "the dialog completes once its audio is in")
        XCTAssertEqual(outcome.samplesBeforeEnd, 320, "every chunk sent comes before the completion (\(outcome))")
    }

    /// The pump took the completion alone; the drain took the last chunk before the event thread looked at it,
    /// so its message waits for the next batch: the completion waits for that batch.
    func testACompletionHandledBeforeTheLastChunksMessageWaitsForIt() throws {
        let parts = try Parts()
        defer { parts.session.close() }
        let first = parts.produce(0)
        _ = parts.processor.handle([first])
        let last = parts.produce(1) // taken by the drain, its message queued behind the completion's batch
        _ = parts.processor.handle([Parts.completed])
        XCTAssertFalse(parts.outcome.ended, "the completion is held while a chunk sent has not been handled")
        _ = parts.processor.handle([last])
        let outcome = parts.outcome
        XCTAssertTrue(outcome.ended)
        XCTAssertEqual(outcome.samplesBeforeEnd, 320, "\(outcome)")
        XCTAssertEqual(parts.summary?.completionGaveUpOnAudio, false, "the chunk came: the wait did not run out")
    }

    /// A chunk sent that the drain neither reports nor counts as dropped: the completion waits the whole
    /// ``EventProcessor/completionWait`` for it, then ends the dialog and says so in the summary. Where the drain's
    /// count is what the completion waits for (NUI's tap; here without audio events), a chunk the front end dropped
    /// and the drain counted (a gap) is not waited for.
    func testACompletionThatWaitedOutTheMissingAudioSaysSo() throws {
        let parts = try Parts()
        defer { parts.session.close() }
        _ = parts.processor.handle([parts.produce(0)])
        let samples = [Int16](repeating: 1, count: 160)
        XCTAssertTrue(samples.withUnsafeBufferPointer { parts.forwarder.takeProcessed($0, position: parts.start + 160) })
        let held = ContinuousClock.now
        _ = parts.processor.handle([Parts.completed])
        XCTAssertFalse(parts.outcome.ended, "held for the chunk sent")
        while !parts.outcome.ended, ContinuousClock.now - held < .seconds(5) {
            usleep(50_000)
            _ = parts.processor.handle([])
        }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - held, EventProcessor.completionWait)
        XCTAssertEqual(parts.summary?.completionGaveUpOnAudio, true, "ended with the chunk still missing")

        let gap = try Parts(reportsAudio: false)
        defer { gap.session.close() }
        XCTAssertTrue(samples.withUnsafeBufferPointer { gap.forwarder.takeProcessed($0, position: gap.start) })
        gap.forwarder.takeGap(from: gap.start, to: gap.start + 160, outputEnd: gap.start + 160) // dropped, counted
        _ = gap.processor.handle([Parts.completed])
        XCTAssertTrue(gap.outcome.ended, "nothing to wait for")
        XCTAssertEqual(gap.summary?.completionGaveUpOnAudio, false)
    }

    /// Without audio events (``RecognitionConfiguration/reportsAudio`` off) the drain's count is what the
    /// completion waits for (the summary's totals): it completes as soon as the drain took what was sent.
    func testWithoutAudioEventsTheDrainsCountIsWhatTheCompletionWaitsFor() throws {
        let parts = try Parts(reportsAudio: false)
        defer { parts.session.close() }
        let samples = [Int16](repeating: 1, count: 160)
        XCTAssertTrue(samples.withUnsafeBufferPointer { parts.forwarder.takeProcessed($0, position: parts.start) })
        _ = parts.processor.handle([Parts.completed])
        XCTAssertFalse(parts.outcome.ended, "held: the drain has not taken the chunk sent")
        _ = parts.produce(1) // sent and taken: now both chunks are taken... except the first
        _ = parts.processor.handle([])
        XCTAssertFalse(parts.outcome.ended, "the first chunk is still not taken")
        let chunk = AudioChunk(position: parts.start, sampleRate: 16000, samples: samples)
        XCTAssertTrue(parts.forwarder.take(.audio(chunk), opusStart: 0, outputEnd: parts.start + 320))
        _ = parts.processor.handle([])
        XCTAssertTrue(parts.outcome.ended)
    }

    /// After ``RealTimeWindow/end()`` nothing is sent and the end the completion waits for stays. (The race it
    /// closes, a chunk checked before the end and published after it, needs a pause inside `clip` to replay;
    /// the compare-exchange there fails on the end bit.)
    func testNothingIsSentAfterTheEndAndTheSentEndStays() {
        let window = RealTimeWindow()
        window.open(start: 0, start48k: 0, preSkip: 0)
        XCTAssertNotNil(window.clip(position: 0, count: 160))
        XCTAssertEqual(window.sentEnd, 160)
        window.end()
        XCTAssertNil(window.clip(position: 160, count: 160), "nothing is sent after the end")
        XCTAssertEqual(window.sentEnd, 160)
    }
}
