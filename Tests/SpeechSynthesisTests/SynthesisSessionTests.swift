import Foundation
import SpeechStreaming
import SpeechSynthesis
import XCTest

/// The synthesis client against the reference server (real espeak-ng/flite voices, real encoders) on 127.0.0.1:
/// each format decoded by an independent tool, event order, word timestamps wherever the server puts them, long
/// text split, connection reuse, cancel, and every failure as one typed error.
final class SynthesisSessionTests: XCTestCase {
    static let text = "Hello from the synthesis client. This is a second sentence! And a third?"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tts-\(UUID().uuidString)")

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    func configuration(_ url: String, key: String = "sk-test-0123", format: SynthesisFormat = .pcm,
                       sampleRate: Int = 16000, voice: String = "espeak-en-us",
                       change: (inout SynthesisParameters) -> Void = { _ in },
                       connection: ConnectionOptions = ConnectionOptions()) -> SynthesisConfiguration {
        var parameters = SynthesisParameters(model: "cosyvoice-v2", voice: voice, format: format, sampleRate: sampleRate)
        change(&parameters)
        return SynthesisConfiguration(url: url, apiKey: key, parameters: parameters, connection: connection)
    }

    /// One whole task through the async API; returns the recorder and the completion.
    func synthesize(_ session: SpeechSynthesisSession, _ texts: [String]) async throws -> (SynthesisRecorder, SynthesisCompleted) {
        let recorder = SynthesisRecorder()
        session.delegate = recorder
        try await session.start()
        for text in texts { try session.send(text: text) }
        let completed = try await session.finish()
        return (recorder, completed)
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Decodes a file to 16-bit WAV with an independent tool; returns its duration in seconds.
    func decodedSeconds(_ path: String, _ format: SynthesisFormat) throws -> Double {
        let wav = path + ".decoded.wav"
        let tool: (String, [String])
        switch format {
        case .pcm: tool = ("/usr/bin/sox", ["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", path, wav])
        case .wav: tool = ("/usr/bin/sox", ["--ignore-length", path, wav])
        case .mp3: tool = ("/usr/bin/lame", ["--quiet", "--decode", path, wav])
        case .opus: tool = ("/usr/bin/opusdec", ["--quiet", path, wav])
        }
        XCTAssertEqual(try runTool(tool.0, tool.1).status, 0, "\(format): \(tool.0) decodes")
        let seconds = try runTool("/usr/bin/soxi", ["-D", wav]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        return Double(seconds) ?? 0
    }

    func testEveryFormatArrivesAndDecodes() async throws {
        let server = try SynthesisServer()
        for format in SynthesisFormat.allCases {
            let session = try SpeechSynthesisSession(configuration: configuration(server.url, format: format))
            let (recorder, completed) = try await synthesize(session, [Self.text])
            XCTAssertEqual(completed.characters, Self.text.count, "\(format)")
            let events = recorder.events
            XCTAssertTrue(isStarted(events[0]), "\(format): started first")
            // Every audio frame follows a sentence-synthesis event of the same sentence.
            for (position, event) in events.enumerated() {
                guard case .audio(let audio) = event else { continue }
                guard case .sentenceSynthesis(let sentence) = events[position - 1] else {
                    return XCTFail("\(format): audio without sentence-synthesis before it")
                }
                XCTAssertEqual(audio.sentenceIndex, sentence.index)
            }
            XCTAssertEqual(recorder.sentences.map(\.index), [0, 1, 2], "\(format)")
            XCTAssertEqual(recorder.sentences.last?.characters, Self.text.count)
            if format == .opus {
                for frame in recorder.frames { XCTAssertEqual(oggPageLength(frame), frame.count, "one whole Ogg page per frame") }
            }
            if format == .wav { XCTAssertEqual(Array(recorder.frames[0].prefix(4)), Array("RIFF".utf8)) }
            let seconds = try decodedSeconds(try write(recorder.audio, "speech.\(format.rawValue)"), format)
            XCTAssertTrue((2.5...10).contains(seconds), "\(format): \(seconds) s of speech")
            let stats = session.statistics
            print("SpeechSynthesis \(format): connect \(fmt(stats.connectMilliseconds)) ms, task-started "
                  + "\(fmt(stats.startMilliseconds)) ms, first audio \(fmt(stats.firstAudioMilliseconds)) ms after the "
                  + "first text, \(stats.audioFrames) frames, \(stats.audioBytes) bytes, \(String(format: "%.2f", seconds)) s")
            XCTAssertEqual(stats.eventsDropped, 0)
            session.close()
        }
    }

    func testPCMAtEveryRateHasTheRateAndSpeech() async throws {
        let server = try SynthesisServer()
        for rate in SynthesisParameters.sampleRates {
            let session = try SpeechSynthesisSession(configuration: configuration(server.url, sampleRate: rate))
            let (recorder, _) = try await synthesize(session, ["Testing one two three."])
            let samples = recorder.audio.count / 2
            let seconds = Double(samples) / Double(rate)
            XCTAssertTrue((0.8...4).contains(seconds), "\(rate) Hz: \(seconds) s")
            session.close()
        }
    }

    func testWordTimestampsWhereverTheServerPutsThem() async throws {
        for place in ["sentence-end", "sentence-synthesis", "task-finished"] {
            let server = try SynthesisServer(["--tts-words-in", place])
            let session = try SpeechSynthesisSession(configuration: configuration(server.url) { $0.wordTimestampEnabled = true })
            let (recorder, completed) = try await synthesize(session, ["Alpha bravo charlie. Delta echo."])
            var words: [SynthesisWord] = completed.words
            for event in recorder.events {
                switch event {
                case .sentenceBegin(let s), .sentenceSynthesis(let s), .sentenceEnd(let s): words += s.words
                default: break
                }
            }
            XCTAssertEqual(words.map(\.text), ["Alpha", "bravo", "charlie", "Delta", "echo"], place)
            XCTAssertEqual(words.map(\.beginMilliseconds), words.map(\.beginMilliseconds).sorted(), place)
            XCTAssertTrue(words.allSatisfy { $0.beginMilliseconds < $0.endMilliseconds && $0.beginIndex < $0.endIndex }, place)
            session.close()
        }
    }

    func testTextAbove20000CharactersIsSplitAndAccepted() async throws {
        let server = try SynthesisServer()
        let session = try SpeechSynthesisSession(configuration: configuration(server.url))
        let long = "Start. " + String(repeating: " ", count: 30_000) + "End."
        let (recorder, completed) = try await synthesize(session, [long])
        XCTAssertEqual(session.statistics.textMessagesSent, 2)
        XCTAssertEqual(session.statistics.textCharactersSent, long.count)
        XCTAssertEqual(recorder.sentences.count, 2)
        XCTAssertNotNil(completed.characters)
        session.close()
    }

    /// `requestSynthesis(of:)` queues run-task, the text and finish-task in one call: the task completes with the
    /// text's audio, no send or finish needed; text beyond the task limit is refused before anything starts.
    func testAOneShotTaskCompletesAndTooMuchTextStartsNothing() async throws {
        let server = try SynthesisServer()
        let session = try SpeechSynthesisSession(configuration: configuration(server.url))
        let recorder = SynthesisRecorder()
        session.delegate = recorder
        try session.requestSynthesis(of: Self.text)
        XCTAssertThrowsError(try session.send(text: "more")) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState) }
        guard case .completed = recorder.waitForEnd() else { return XCTFail("\(recorder.events.last.map { "\($0)" } ?? "no end")") }
        XCTAssertEqual(recorder.sentences.count, 3)
        XCTAssertGreaterThan(recorder.audio.count, 16000)
        XCTAssertThrowsError(try session.requestSynthesis(of: String(repeating: "a", count: SpeechSynthesisSession.taskCharacterLimit + 1))) {
            XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .textLimit)
        }
        _ = try await synthesize(session, ["Nothing was left running."])
        session.close()
    }

    /// A start refused because a task runs leaves that task as it was: its character count and its finish.
    func testARefusedStartLeavesTheRunningTaskAlone() async throws {
        let server = try SynthesisServer()
        let session = try SpeechSynthesisSession(configuration: configuration(server.url))
        try session.requestStart()
        try session.send(text: String(repeating: "a", count: SpeechSynthesisSession.taskCharacterLimit - 1))
        XCTAssertThrowsError(try session.requestStart()) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState) }
        XCTAssertThrowsError(try session.send(text: "ab")) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .textLimit) }
        session.requestFinish()
        XCTAssertThrowsError(try session.requestSynthesis(of: "Hi.")) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState) }
        XCTAssertThrowsError(try session.send(text: "a")) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState) }
        session.close()
    }

    func testConnectionIsReusedAndCancelDropsTheTask() async throws {
        let server = try SynthesisServer()
        let session = try SpeechSynthesisSession(configuration: configuration(server.url))
        _ = try await synthesize(session, ["One."])
        XCTAssertNotNil(session.statistics.connectMilliseconds)
        _ = try await synthesize(session, ["Two."])
        XCTAssertNil(session.statistics.connectMilliseconds, "the second task reuses the connection")
        let recorder = SynthesisRecorder()
        session.delegate = recorder
        try await session.start()
        try session.send(text: String(repeating: "A sentence that takes a while to speak. ", count: 40))
        XCTAssertNotNil(recorder.wait { if case .audio = $0 { true } else { false } })
        session.cancel()
        try await Task.sleep(for: .milliseconds(300))
        let count = recorder.events.count
        try await Task.sleep(for: .milliseconds(500))
        XCTAssertEqual(recorder.events.count, count, "no event after cancel")
        XCTAssertFalse(recorder.events.contains { if case .completed = $0 { true } else { false } })
        _ = try await synthesize(session, ["Three."]) // a new connection after the cancel
        session.close()
    }

    /// A kept connection is not trusted for long: after `keptConnectionIdleLimit` without a task the next task
    /// connects again (the service closes an idle connection after 60 s); a connection the server closes just
    /// as the next run-task goes out (`idle-close`: the server's idle timeout crossing it) is replaced once,
    /// without an error reaching the app.
    func testAKeptConnectionIdleForLongOrClosedAtRunTaskIsReplacedWithoutAnError() async throws {
        var options = ConnectionOptions()
        options.keptConnectionIdleLimit = .milliseconds(300)
        let server = try SynthesisServer()
        let session = try SpeechSynthesisSession(configuration: configuration(server.url, connection: options))
        _ = try await synthesize(session, ["One."])
        _ = try await synthesize(session, ["Two."])
        XCTAssertNil(session.statistics.connectMilliseconds, "reused right after a task")
        try await Task.sleep(for: .milliseconds(500))
        _ = try await synthesize(session, ["Three."])
        XCTAssertNotNil(session.statistics.connectMilliseconds, "a new connection after 500 ms idle")
        session.close()

        let closing = try SynthesisServer(["--fault", "idle-close:times=1"])
        let kept = try SpeechSynthesisSession(configuration: configuration(closing.url))
        _ = try await synthesize(kept, ["One."])
        let (recorder, completed) = try await synthesize(kept, ["Two, on a new connection."])
        XCTAssertNotNil(kept.statistics.connectMilliseconds, "the second task connected again")
        XCTAssertFalse(recorder.events.contains { if case .error = $0 { true } else { false } })
        XCTAssertNotNil(completed.characters)
        XCTAssertGreaterThan(recorder.audio.count, 8000)
        kept.close()
    }

    /// An `events` sequence taken and never read holds at most `eventBufferLimit` events; the rest are dropped and
    /// counted, while the delegate still gets every one.
    func testAnUnreadEventStreamIsBoundedAndCountsItsDrops() async throws {
        let server = try SynthesisServer()
        var connection = ConnectionOptions()
        connection.eventBufferLimit = 4
        let session = try SpeechSynthesisSession(configuration: configuration(server.url, connection: connection))
        let events = session.events // made on first access: before the task (a stream nobody asks for keeps nothing)
        let (recorder, _) = try await synthesize(session, [Self.text])
        let delivered = recorder.events.count
        XCTAssertGreaterThan(delivered, 20)
        XCTAssertEqual(session.statistics.streamEventsDropped, delivered - 4)
        XCTAssertEqual(session.statistics.eventsDropped, 0)
        var kept = 0
        session.close()
        for await _ in events { kept += 1 }
        XCTAssertEqual(kept, 4)
    }

    func testWrongStateCallsAndBadParametersThrow() throws {
        XCTAssertThrowsError(try SpeechSynthesisSession(configuration: configuration("ws://127.0.0.1:9/x") { $0.volume = 101 }))
        XCTAssertThrowsError(try SpeechSynthesisSession(configuration: configuration("ws://127.0.0.1:9/x") { $0.rate = 0.4 }))
        XCTAssertThrowsError(try SpeechSynthesisSession(configuration: configuration("ws://127.0.0.1:9/x", sampleRate: 11025)))
        XCTAssertThrowsError(try SpeechSynthesisSession(configuration: configuration("http://127.0.0.1:9/x")))
        let session = try SpeechSynthesisSession(configuration: configuration("ws://127.0.0.1:9/x"))
        XCTAssertThrowsError(try session.send(text: "hi")) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState) }
        session.close()
        XCTAssertThrowsError(try session.requestStart()) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState) }
    }
}

func oggPageLength(_ bytes: [UInt8]) -> Int {
    guard bytes.count >= 27, bytes[0] == 0x4F, bytes[1] == 0x67, bytes[2] == 0x67, bytes[3] == 0x53 else { return -1 }
    let segments = Int(bytes[26])
    guard bytes.count >= 27 + segments else { return -1 }
    return 27 + segments + bytes[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
}

func fmt(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }
