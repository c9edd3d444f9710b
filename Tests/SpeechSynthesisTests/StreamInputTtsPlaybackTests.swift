import AllocationCounter
import AudioFrontEnd
import AudioPlayback
import Foundation
import NuiSDK
import NuiTTS
import XCTest

/// Records synthesis and playback events of NeoNuiStreamInputTts in the order the callback thread delivered them.
final class PlaybackEventRecorder: NeoNuiStreamInputTtsDelegate, @unchecked Sendable { // state under `condition`
    enum Item: Equatable { case synthesis(StreamInputTtsCallbackEvent), playback(StreamInputTtsPlaybackEvent, Int64), data(Int) }
    private let condition = NSCondition()
    private var list: [Item] = []

    func onStreamInputTtsEventCallback(_ event: StreamInputTtsCallbackEvent, taskId taskid: UnsafePointer<CChar>?,
                                       sessionId: UnsafePointer<CChar>?, ret_code: Int32, error_msg: UnsafePointer<CChar>?,
                                       timestamp: UnsafePointer<CChar>?, all_response: UnsafePointer<CChar>?) {
        add(.synthesis(event))
    }
    func onStreamInputTtsDataCallback(_ buffer: UnsafeMutablePointer<CChar>?, len: Int32) { add(.data(Int(len))) }
    func onStreamInputTtsPlaybackEventCallback(_ event: StreamInputTtsPlaybackEvent, sessionId: UnsafePointer<CChar>?,
                                               position_ms: Int64) {
        add(.playback(event, position_ms))
    }
    private func add(_ item: Item) { condition.withLock { list.append(item); condition.broadcast() } }

    var items: [Item] { condition.withLock { list } }
    var bytes: Int { items.reduce(0) { if case .data(let n) = $1 { $0 + n } else { $0 } } }
    /// The events only (no data), playback positions dropped.
    var names: [String] {
        items.compactMap {
            switch $0 {
            case .synthesis(let e) where e == .TTS_EVENT_SYNTHESIS_STARTED || e == .TTS_EVENT_SYNTHESIS_COMPLETE: "\(e)"
            case .playback(let e, _): "\(e)"
            default: nil
            }
        }
    }
    func position(_ event: StreamInputTtsPlaybackEvent) -> Int64? {
        for case .playback(let e, let ms) in items where e == event { return ms }
        return nil
    }
    @discardableResult
    func wait(for event: StreamInputTtsPlaybackEvent, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !list.contains(where: { if case .playback(event, _) = $0 { true } else { false } }) {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}

/// A room between the device and the mic: what the sink is given is played, and its echo (a direct path 2.5 ms
/// late at −4 dB and a reflection 12.5 ms late at −10 dB, as in PlayerEchoTests) is pushed as the front end's mic.
final class RoomSink: PlaybackSink, @unchecked Sendable { // touched by the playback thread, read after it stopped
    let frontEnd: FrontEnd
    var written = 0
    var mic: [Int16] = []
    private var room = SimulatedRoom()
    private var frame = [Int16]()
    init(frontEnd: FrontEnd) { self.frontEnd = frontEnd }

    func write(_ samples: UnsafeBufferPointer<Int16>) {
        room.echo(of: samples, into: &frame)
        mic += frame
        _ = frame.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
        written += samples.count
        usleep(1000) // 10 ms of audio per ms: about 8 times real time

    }
}

private final class OutputCollector: FrontEndDelegate, @unchecked Sendable { // under `lock`
    private let lock = NSLock()
    private var samples: [Int16] = []
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        if case .audio(let chunk) = event { lock.withLock { samples += chunk.samples } }
    }
    var audio: [Int16] { lock.withLock { samples } }
}

/// NeoNuiStreamInputTts playing its own synthesis (issue 14 §3) against the reference server: through a sink into
/// a front end whose echo it cancels, through the render entry with no allocation, stop and cancel mid-playback.
final class StreamInputTtsPlaybackTests: XCTestCase {
    static let text = "The loop is whole now. The device speaks its answer into the room, and the front end hears "
        + "its own voice as the reference. Nothing is pushed by the application itself, sample for sample."
    static let parameters = #"{"model": "cosyvoice-v2", "voice": "espeak-en-us", "format": "pcm", "sample_rate": 16000}"#
    let rate = 16000

    func ticket(_ server: SynthesisServer) -> String {
        #"{"url": "\#(server.url)", "apikey": "sk-play", "device_id": "d1"}"#
    }

    func makeFrontEnd() throws -> FrontEnd {
        var configuration = FrontEndConfiguration()
        configuration.reference = .init(sampleRate: rate)
        let frontEnd = try FrontEnd(configuration: configuration)
        try frontEnd.start()
        return frontEnd
    }

    func make(_ playback: StreamInputTtsPlayback) -> (NeoNuiStreamInputTts, PlaybackEventRecorder) {
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        let recorder = PlaybackEventRecorder()
        tts.delegate = recorder
        XCTAssertEqual(tts.setPlayback(playback), .SUCCESS)
        return (tts, recorder)
    }

    func testAsyncPlayThroughASinkIsTheFrontEndsReferenceAndItsEchoIsCancelled() throws {
        let server = try SynthesisServer()
        let frontEnd = try makeFrontEnd()
        let collector = OutputCollector()
        frontEnd.delegate = collector
        let room = RoomSink(frontEnd: frontEnd)
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                                  reference: frontEnd, sink: room)
        let (tts, recorder) = make(playback)
        XCTAssertEqual(tts.asyncPlayStreamInputTts(ticket(server), parameters: Self.parameters, text: Self.text, sessionId: nil,
                                                   logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertTrue(recorder.wait(for: .TTS_PLAYBACK_MIC_REARMED))
        playback.close()
        let summary = try frontEnd.finish()
        // Kept apart, in order: synthesis complete before playback drained, mic re-armed after it.
        let names = recorder.names
        let index = { (name: String) in names.firstIndex(of: name) ?? -1 }
        XCTAssertLessThan(index("TTS_EVENT_SYNTHESIS_COMPLETE"), index("TTS_PLAYBACK_DRAINED"), "\(names)")
        XCTAssertLessThan(index("TTS_PLAYBACK_STARTED"), index("TTS_PLAYBACK_DRAINED"), "\(names)")
        XCTAssertLessThan(index("TTS_PLAYBACK_DRAINED"), index("TTS_PLAYBACK_MIC_REARMED"), "\(names)")
        XCTAssertGreaterThanOrEqual(index("TTS_PLAYBACK_INPUT_ENDED"), 0, "\(names)")
        // Sample for sample: every sample the sink was given reached the front end as its reference, and the whole
        // synthesis (pcm at the device rate: bytes / 2 samples) was played.
        let speechSamples = recorder.bytes / 2
        // Sample for sample: every sample handed to the sink (the answer and the silence around it) reached the
        // front end as its reference, in place against the mic.
        XCTAssertEqual(summary.referenceSamplesPushed, room.written)
        XCTAssertEqual(summary.micSamplesPushed, room.written)
        XCTAssertEqual(playback.player.counts.refusedReferenceSamples, 0)
        XCTAssertEqual(summary.drops.referenceMissingSamples, 0)
        XCTAssertGreaterThan(speechSamples, 5 * rate, "the text speaks for more than 5 s")
        XCTAssertEqual(recorder.position(.TTS_PLAYBACK_DRAINED), Int64(speechSamples) * 1000 / Int64(rate))
        XCTAssertEqual(recorder.position(.TTS_PLAYBACK_INPUT_ENDED), Int64(speechSamples) * 1000 / Int64(rate))
        // The echo of it cancelled: ERLE over loud 100 ms blocks of the speech's second half.
        let mic = room.mic, output = collector.audio
        let first = mic.firstIndex { $0 != 0 } ?? 0
        var echo = 0.0, residual = 0.0
        for block in stride(from: first + speechSamples / 2, to: min(first + speechSamples, output.count) - 1600, by: 1600) {
            let e = (block..<(block + 1600)).reduce(0.0) { $0 + Double(mic[$1]) * Double(mic[$1]) }
            guard e / 1600 > 300 * 300 else { continue }
            echo += e
            residual += (block..<(block + 1600)).reduce(0.0) { $0 + Double(output[$1]) * Double(output[$1]) }
        }
        let erle = 10 * log10(echo / max(residual, 1))
        print("NeoNuiStreamInputTts sink playback: \(speechSamples) speech samples, \(room.written) written = \(summary.referenceSamplesPushed) "
              + "reference samples, ERLE \(String(format: "%.1f", erle)) dB")
        XCTAssertGreaterThan(echo, 0)
        XCTAssertGreaterThanOrEqual(erle, 30, "the front end could not cancel the echo of what NeoNuiStreamInputTts played")
    }

    /// Renders 10 ms buffers on a thread of its own, `speedUp` times faster than real time, counting allocations
    /// after the first 100 calls and the non-silent buffers.
    final class RenderThread: @unchecked Sendable { // fields read after `stop()` returned
        let playback: StreamInputTtsPlayback
        private let running = NSCondition()
        private var go = true, done = false
        var allocations: Int64 = -1
        var calls = 0
        var lastLoudCall = -1
        init(_ playback: StreamInputTtsPlayback, frames: Int, speedUp: UInt32) {
            self.playback = playback
            let thread = Thread { [self] in
                var buffer = [Int16](repeating: 0, count: frames)
                buffer.withUnsafeMutableBufferPointer { out in
                    while running.withLock({ go }) {
                        if calls == 100 { afe_allocation_counter_start() }
                        playback.render(into: out)
                        if out.contains(where: { $0 != 0 }) { lastLoudCall = calls }
                        calls += 1
                        usleep(10_000 / speedUp)
                    }
                }
                allocations = calls > 100 ? afe_allocation_counter_stop() : -1
                running.withLock { done = true; running.broadcast() }
            }
            thread.start()
        }
        func stop() {
            running.withLock { go = false }
            running.withLock { while !done { running.wait() } }
        }
    }

    /// The server, a front end, the render-shaped playback feeding its reference, and the SDK with it attached.
    /// Renders `buffers` device buffers of 10 ms and counts the samples that are not silence.
    func nonSilentSamples(_ playback: StreamInputTtsPlayback, buffers: Int) -> Int {
        var buffer = [Int16](repeating: 0, count: rate / 100), count = 0
        buffer.withUnsafeMutableBufferPointer { out in
            for _ in 0..<buffers {
                playback.render(into: out)
                count += out.filter { $0 != 0 }.count
            }
        }
        return count
    }

    func renderShape() throws -> (SynthesisServer, FrontEnd, StreamInputTtsPlayback, NeoNuiStreamInputTts, PlaybackEventRecorder) {
        let server = try SynthesisServer()
        let frontEnd = try makeFrontEnd()
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                                  reference: frontEnd)
        let (tts, recorder) = make(playback)
        return (server, frontEnd, playback, tts, recorder)
    }

    func testStreamedSynthesisThroughTheRenderEntryAllocatesNothingAndStopLetsItPlayOut() throws {
        let (server, frontEnd, playback, tts, recorder) = try renderShape()
        defer { playback.close() }
        let renderer = RenderThread(playback, frames: rate / 100, speedUp: 4)
        XCTAssertEqual(tts.startStreamInputTts(ticket(server), parameters: Self.parameters, sessionId: "s", logLevel: .NUI_LOG_LEVEL_NONE,
                                               saveLog: false), .SUCCESS)
        XCTAssertEqual(tts.sendStreamInputTts(Self.text), .SUCCESS)
        // stop returns at synthesis complete; playback goes on to the end.
        XCTAssertEqual(tts.stopStreamInputTts(), .SUCCESS)
        XCTAssertTrue(recorder.wait(for: .TTS_PLAYBACK_DRAINED))
        renderer.stop()
        let speechSamples = recorder.bytes / 2
        XCTAssertEqual(recorder.position(.TTS_PLAYBACK_DRAINED), Int64(speechSamples) * 1000 / Int64(rate))
        let names = recorder.names
        XCTAssertLessThan(names.firstIndex(of: "TTS_EVENT_SYNTHESIS_COMPLETE") ?? 99, names.firstIndex(of: "TTS_PLAYBACK_DRAINED") ?? -1)
        let summary = try frontEnd.finish()
        XCTAssertEqual(summary.referenceSamplesPushed, renderer.calls * rate / 100, "every rendered sample is the reference")
        if afe_allocation_counter_available() == 1 {
            XCTAssertGreaterThan(renderer.calls, 200)
            XCTAssertEqual(renderer.allocations, 0, "allocations on the render thread (render + reference push) after 100 buffers")
        }
    }

    /// Synthesis complete (the task is over), the answer still playing out: cancel stops the playback too.
    func testCancelAfterSynthesisCompleteStopsThePlayingAnswer() throws {
        let (server, frontEnd, playback, tts, recorder) = try renderShape()
        defer { playback.close() }
        XCTAssertEqual(tts.playStreamInputTts(ticket(server), parameters: Self.parameters, text: Self.text, sessionId: nil,
                                              logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertTrue(recorder.wait(for: .TTS_PLAYBACK_INPUT_ENDED), "the whole answer decoded (the buffer holds 20 s)")
        let deadline = Date().addingTimeInterval(15)
        while !recorder.names.contains("TTS_EVENT_SYNTHESIS_COMPLETE") && Date() < deadline { usleep(2000) }
        XCTAssertTrue(recorder.names.contains("TTS_EVENT_SYNTHESIS_COMPLETE"))
        var buffer = [Int16](repeating: 0, count: rate / 100)
        buffer.withUnsafeMutableBufferPointer { out in for _ in 0..<100 { playback.render(into: out) } } // 1 s played
        XCTAssertEqual(tts.cancelStreamInputTts(), .SUCCESS, "an answer still playing out is cancelled")
        XCTAssertEqual(nonSilentSamples(playback, buffers: 100), 0, "samples played after cancel")
        XCTAssertTrue(recorder.wait(for: .TTS_PLAYBACK_STOPPED))
        XCTAssertEqual(Double(recorder.position(.TTS_PLAYBACK_STOPPED) ?? -1), 1000, accuracy: 20)
        XCTAssertNil(recorder.position(.TTS_PLAYBACK_DRAINED))
        XCTAssertEqual(tts.cancelStreamInputTts(), .NUI_ERR_NO_DIALOG, "nothing left to cancel")
        XCTAssertEqual(tts.setPlayback(nil), .SUCCESS)
        _ = try frontEnd.finish()
    }

    func testCancelMidPlaybackSilencesTheNextBuffer() throws {
        let (server, frontEnd, playback, tts, recorder) = try renderShape()
        defer { playback.close() }
        XCTAssertEqual(tts.playStreamInputTts(ticket(server), parameters: Self.parameters, text: Self.text, sessionId: nil,
                                              logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        var buffer = [Int16](repeating: 0, count: rate / 100)
        var loud = 0
        let deadline = Date().addingTimeInterval(20)
        buffer.withUnsafeMutableBufferPointer { out in
            while loud < 100 && Date() < deadline { // 1 s of speech played
                playback.render(into: out)
                if out.contains(where: { $0 != 0 }) { loud += 1 } else { usleep(2000) }
            }
        }
        XCTAssertEqual(loud, 100)
        XCTAssertEqual(tts.cancelStreamInputTts(), .SUCCESS)
        // Within one device buffer: the very next render is silence, and so is everything after.
        XCTAssertEqual(nonSilentSamples(playback, buffers: 100), 0, "samples played after cancel")
        XCTAssertTrue(recorder.wait(for: .TTS_PLAYBACK_STOPPED))
        let stoppedAt = recorder.position(.TTS_PLAYBACK_STOPPED) ?? -1
        XCTAssertEqual(Double(stoppedAt), 1000, accuracy: 20, "the played position at the stop")
        XCTAssertNil(recorder.position(.TTS_PLAYBACK_DRAINED))
        // The next task plays again.
        XCTAssertEqual(tts.playStreamInputTts(ticket(server), parameters: Self.parameters, text: "Again.", sessionId: nil,
                                              logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        let renderer = RenderThread(playback, frames: rate / 100, speedUp: 4)
        XCTAssertTrue(recorder.wait(for: .TTS_PLAYBACK_DRAINED))
        renderer.stop()
        XCTAssertEqual(tts.setPlayback(nil), .SUCCESS)
        _ = try frontEnd.finish()
    }
}
