import AudioFrontEnd
import AudioPlayback
import Foundation
import NuiSDK
import NuiTTS
import XCTest

/// Hostile callers: three threads call one `NeoNuiStreamInputTts` (with its playback feeding a front end's
/// reference) in random order against the reference server, as an app with racing UI, network and audio code
/// might. Every call returns a code its state table allows (`Sources/NuiTTS/StreamInputTts.md`), nothing hangs
/// or crashes, and afterwards the SDK is idle and works: a whole answer plays out, and every sample the playback
/// handed out reached the front end.
final class TtsCallStormTests: XCTestCase {
    /// The device: plays into a front end (its mic hears the answer at half amplitude), about 20 × real time.
    final class FrontEndSink: PlaybackSink, @unchecked Sendable { // the playback thread only; `written` after stop
        let frontEnd: FrontEnd
        private var echo = [Int16](repeating: 0, count: 4800)
        private(set) var written = 0
        init(_ frontEnd: FrontEnd) { self.frontEnd = frontEnd }
        func write(_ samples: UnsafeBufferPointer<Int16>) {
            let n = min(samples.count, echo.count)
            for i in 0..<n { echo[i] = samples[i] / 2 }
            _ = echo.withUnsafeBufferPointer { frontEnd.pushMic(samples: UnsafeBufferPointer(rebasing: $0[0..<n])) }
            written += n
            usleep(500)
        }
    }

    /// What the threads' calls returned. Any thread.
    final class StormLog: @unchecked Sendable { // under `lock`
        private let lock = NSLock()
        private var codes: [String] = []
        private var calls: [Call: Int] = [:]
        func record(_ call: Call, _ code: NuiResultCode?) {
            lock.withLock {
                calls[call, default: 0] += 1
                if let code, !(TtsCallStormTests.allowed[call]?.contains(code) ?? false) { codes.append("\(call): \(code.name)") }
            }
        }
        var unexpected: [String] { lock.withLock { codes } }
        var counts: [Call: Int] { lock.withLock { calls } }
    }

    enum Call: CaseIterable { case start, send, stop, asyncStop, cancel, play, playerStop, detach }

    /// The codes each call may return in some state (the state table; the failure codes of a task the server
    /// or a cancel ended while a stop waited).
    static let allowed: [Call: Set<NuiResultCode>] = [
        .start: [.SUCCESS, .NUI_ERR_DIALOG_RUNNING],
        .send: [.SUCCESS, .NUI_ERR_NO_DIALOG],
        .stop: [.SUCCESS, .NUI_ERR_NO_DIALOG, .NUI_ERR_FINISH_TIMEOUT, .NUI_ERR_TASK_FAILED, .NUI_ERR_CONNECTION_CLOSED],
        .asyncStop: [.SUCCESS, .NUI_ERR_NO_DIALOG],
        .cancel: [.SUCCESS, .NUI_ERR_NO_DIALOG],
        .play: [.SUCCESS, .NUI_ERR_DIALOG_RUNNING],
        .detach: [.SUCCESS, .NUI_ERR_DIALOG_RUNNING],
    ]

    func testRandomCallsFromThreeThreadsLeaveAWorkingSDK() throws {
        let server = try SynthesisServer()
        let rate = 16000
        var configuration = FrontEndConfiguration()
        configuration.reference = .init(sampleRate: rate)
        let frontEnd = try FrontEnd(configuration: configuration)
        try frontEnd.start()
        let sink = FrontEndSink(frontEnd)
        let playback = try StreamInputTtsPlayback(
            configuration: PlaybackConfiguration(sampleRate: rate, inputCapacityBytes: 1 << 20), reference: frontEnd, sink: sink)
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        let recorder = PlaybackEventRecorder()
        tts.delegate = recorder
        XCTAssertEqual(tts.setPlayback(playback), .SUCCESS)
        let ticket = #"{"url": "\#(server.url)", "apikey": "sk-storm", "device_id": "d1", "complete_waiting_ms": 1500}"#
        let parameters = #"{"model": "cosyvoice-v2", "voice": "espeak-en-us", "format": "pcm", "sample_rate": 16000}"#
        let texts = ["Short one. ", "A somewhat longer sentence to speak. ", "Again, "]

        let log = StormLog()
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread.detachNewThread {
                var random = SystemRandomNumberGenerator() // the interleaving is random anyway
                for _ in 0..<300 {
                    let call = Call.allCases.randomElement(using: &random)!
                    let code: NuiResultCode?
                    switch call {
                    case .start:
                        code = tts.startStreamInputTts(ticket, parameters: parameters, sessionId: nil,
                                                       logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false)
                    case .send: code = tts.sendStreamInputTts(texts.randomElement(using: &random)!)
                    case .stop: code = tts.stopStreamInputTts()
                    case .asyncStop: code = tts.asyncStopStreamInputTts()
                    case .cancel: code = tts.cancelStreamInputTts()
                    case .play:
                        code = tts.asyncPlayStreamInputTts(ticket, parameters: parameters, text: "One shot.", sessionId: nil,
                                                           logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false)
                    case .playerStop:
                        playback.player.stop()
                        code = nil
                    case .detach:
                        let first = tts.setPlayback(nil)
                        let second = tts.setPlayback(playback) // attached again whatever the first said
                        code = first == .SUCCESS ? second : first
                    }
                    log.record(call, code)
                    usleep(UInt32.random(in: 0...20_000, using: &random))
                }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 300), .success, "the calls did not all return within 300 s")
        XCTAssertEqual(log.unexpected, [], "codes outside the state table")

        // Afterwards: idle after a cancel, and a whole answer plays out.
        _ = tts.cancelStreamInputTts()
        XCTAssertEqual(tts.setPlayback(playback), .SUCCESS, "idle: the playback can be set")
        let rearmedBefore = recorder.items.filter { if case .playback(.TTS_PLAYBACK_MIC_REARMED, _) = $0 { true } else { false } }.count
        // The default complete_waiting_ms (10 s): this stop waits for a new connection and a whole synthesis.
        let calm = #"{"url": "\#(server.url)", "apikey": "sk-storm", "device_id": "d1"}"#
        XCTAssertEqual(tts.startStreamInputTts(calm, parameters: parameters, sessionId: nil, logLevel: .NUI_LOG_LEVEL_NONE,
                                               saveLog: false), .SUCCESS)
        XCTAssertEqual(tts.sendStreamInputTts("The storm is over, and this answer plays to its end."), .SUCCESS)
        XCTAssertEqual(tts.stopStreamInputTts(), .SUCCESS)
        let deadline = Date().addingTimeInterval(30)
        while recorder.items.filter({ if case .playback(.TTS_PLAYBACK_MIC_REARMED, _) = $0 { true } else { false } }).count <= rearmedBefore,
              Date() < deadline {
            usleep(10_000)
        }
        XCTAssertGreaterThan(recorder.items.filter { if case .playback(.TTS_PLAYBACK_MIC_REARMED, _) = $0 { true } else { false } }.count,
                             rearmedBefore, "the last answer played out")
        XCTAssertEqual(tts.setPlayback(nil), .SUCCESS)
        playback.close()
        let summary = try frontEnd.finish()
        XCTAssertEqual(summary.referenceSamplesPushed, sink.written, "every sample played reached the reference")
        XCTAssertEqual(summary.micSamplesPushed, sink.written)
        XCTAssertEqual(playback.player.counts.refusedReferenceSamples, 0)
        print("TTS call storm: \(log.counts.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")); "
              + "\(sink.written) samples played")
    }
}
