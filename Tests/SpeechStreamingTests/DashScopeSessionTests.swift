import Foundation
import SpeechStreaming
import XCTest

/// The client against the reference server's DashScope endpoint (family A): PCM and Ogg Opus, the
/// deterministic recognizer's sentences field by field, task reuse, context updates, heartbeat filtering,
/// every run-task parameter, and the AsyncSequence.
final class DashScopeSessionTests: XCTestCase {
    static let key = "sk-test-key-0123"

    func configuration(_ server: ReferenceServer, format: AudioFormat = .pcm, model: String = "fun-asr-realtime",
                       parameters: (inout DashScopeParameters) -> Void = { _ in },
                       connection: ConnectionOptions = ConnectionOptions()) -> DashScopeConfiguration {
        var p = DashScopeParameters(model: model, format: format, sampleRate: 16000, maxSentenceSilenceMilliseconds: 400)
        parameters(&p)
        return DashScopeConfiguration(url: server.url(), apiKey: Self.key, parameters: p, connection: connection)
    }

    /// Streams the bursts, stops, and returns the recorder after `.completed` (failing on an error).
    func runTask(_ session: SpeechStreamingSession, _ recorder: EventRecorder, pieces: [[UInt8]],
                 file: StaticString = #filePath, line: UInt = #line) {
        let before = recorder.events.count
        XCTAssertNoThrow(try session.start(), file: file, line: line)
        TestAudio.stream(session, pieces: pieces, file: file, line: line)
        session.stop()
        let end = recorder.waitForEnd(after: before)
        guard case .completed = end else {
            return XCTFail("task ended with \(String(describing: end))", file: file, line: line)
        }
    }

    /// Checks the sentence ends against the deterministic recognizer: ids, texts, begin/end within `tolerance` ms.
    func checkSentences(_ recorder: EventRecorder, tolerance: Int = 0, label: String,
                        file: StaticString = #filePath, line: UInt = #line) {
        Deterministic.check(recorder.sentenceEnds, tolerance: tolerance, label: label, file: file, line: line)
        for result in recorder.sentenceEnds {
            let raw = try? JSONSerialization.jsonObject(with: Data(result.rawJSON.utf8)) as? [String: Any]
            let header = raw?["header"] as? [String: Any]
            XCTAssertEqual(header?["event"] as? String, "result-generated", "\(label): rawJSON keeps the server message",
                           file: file, line: line)
        }
    }

    func testPCMTaskGivesEverySentenceWithTextAndTimes() throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        let session = try SpeechStreamingSession(configuration: configuration(server))
        let recorder = EventRecorder()
        session.delegate = recorder
        runTask(session, recorder, pieces: TestAudio.chunks(TestAudio.pcm(), size: 640))
        checkSentences(recorder, label: "PCM")

        // Event order: started first, each sentence announced before its results, completed last.
        let events = recorder.events
        guard case .started(let started) = events.first else { return XCTFail("first event \(String(describing: events.first))") }
        guard case .completed(let completed) = events.last else { return XCTFail("last event \(String(describing: events.last))") }
        XCTAssertEqual(started.taskId, completed.taskId)
        XCTAssertEqual(started.taskId.count, 32, "task_id is 32 hex digits")
        var announced = 0
        for event in events {
            switch event {
            case .sentenceStart(let s):
                XCTAssertEqual(s.sentenceId, announced + 1, "sentence starts count up")
                announced = s.sentenceId
            case .partialResult(let r), .sentenceEnd(let r):
                XCTAssertEqual(r.sentenceId, announced, "a result belongs to the last announced sentence")
            default: break
            }
        }
        XCTAssertGreaterThan(events.filter { if case .partialResult = $0 { true } else { false } }.count, 3)

        // On the wire: 100 ms PCM frames (3200 bytes) and three text messages.
        let stats = session.statistics
        XCTAssertEqual(stats.audioBytesSent, TestAudio.pcm().count)
        XCTAssertEqual(stats.audioFramesSent, (TestAudio.pcm().count + 3199) / 3200)
        XCTAssertEqual(stats.textMessagesSent, 2, "run-task and finish-task")
        XCTAssertEqual(stats.overruns, 0)
        let sent = server.receivedMessages().compactMap { ($0["header"] as? [String: Any])?["action"] as? String }
        XCTAssertEqual(sent, ["run-task", "finish-task"])
    }

    func testOggOpusTaskGivesEverySentence() throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        let session = try SpeechStreamingSession(configuration: configuration(server, format: .opus))
        let recorder = EventRecorder()
        session.delegate = recorder
        let packets = try TestAudio.opusPackets(TestAudio.samples())
        runTask(session, recorder, pieces: packets)
        // Opus delays and smears the burst edges by a few ms; the 10 ms energy segmentation absorbs most.
        checkSentences(recorder, tolerance: 30, label: "Ogg Opus")
        // One page per packet (27-byte header, one lacing value), two header pages; pages grouped into frames of
        // about 100 ms (5 pages of 20 ms, headers with the first).
        let packetBytes = packets.reduce(0) { $0 + $1.count }, sent = session.statistics.audioBytesSent
        XCTAssertGreaterThanOrEqual(sent, packetBytes + 28 * packets.count, "\(packets.count) packets")
        XCTAssertLessThanOrEqual(sent, packetBytes + 29 * packets.count + 160, "\(packets.count) packets")
        XCTAssertLessThan(session.statistics.audioFramesSent, packets.count / 3,
                          "\(packets.count) pages in \(session.statistics.audioFramesSent) frames")
    }

    func testConnectionIsReusedForTheNextTaskWithANewTaskId() throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        let session = try SpeechStreamingSession(configuration: configuration(server))
        let recorder = EventRecorder()
        session.delegate = recorder
        let pcm = TestAudio.chunks(TestAudio.pcm(), size: 3200)
        runTask(session, recorder, pieces: pcm)
        let firstCount = recorder.events.count
        runTask(session, recorder, pieces: pcm)
        let second = EventRecorder()
        for event in recorder.events.dropFirst(firstCount) { second.speechSession(session, didReceive: event) }
        checkSentences(second, label: "second task on the same connection")

        let opens = server.log().filter { $0["kind"] as? String == "open" }
        XCTAssertEqual(opens.count, 1, "both tasks on one connection")
        let runTasks = server.receivedMessages().filter { ($0["header"] as? [String: Any])?["action"] as? String == "run-task" }
        let ids = runTasks.compactMap { ($0["header"] as? [String: Any])?["task_id"] as? String }
        XCTAssertEqual(ids.count, 2)
        XCTAssertNotEqual(ids.first, ids.last, "a new task_id per task")
    }

    func testContextGoesInRunTaskAndContinueTask() throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        var config = configuration(server)
        config.context = [ContextMessage(role: .user, text: "hello"), ContextMessage(role: .assistant, text: "hi there")]
        let session = try SpeechStreamingSession(configuration: config)
        let recorder = EventRecorder()
        session.delegate = recorder
        try session.start()
        // Sent right after start(): it waits for task-started (the server refuses continue-task before).
        try session.updateContext([ContextMessage(role: .user, text: "what is the weather")])
        TestAudio.stream(session, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200))
        session.stop()
        guard case .completed = recorder.waitForEnd() else { return XCTFail("task failed: \(recorder.errors)") }
        XCTAssertThrowsError(try session.updateContext([ContextMessage(role: .user, text: "late")])) {
            XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .taskNotRunning, "the task ended: not the NLS case's invalidState")
        }

        let messages = server.receivedMessages()
        let runTask = try XCTUnwrap(messages.first)
        let input = (runTask["payload"] as? [String: Any])?["input"] as? [String: Any]
        let context = input?["context"] as? [[String: Any]]
        XCTAssertEqual(context?.count, 2)
        XCTAssertEqual(context?.first?["role"] as? String, "user")
        XCTAssertEqual((context?.first?["content"] as? [[String: Any]])?.first?["type"] as? String, "input_text")
        XCTAssertEqual((context?.last?["content"] as? [[String: Any]])?.first?["type"] as? String, "text")
        let continueTask = try XCTUnwrap(messages.first { ($0["header"] as? [String: Any])?["action"] as? String == "continue-task" })
        let continued = ((continueTask["payload"] as? [String: Any])?["input"] as? [String: Any])?["context"] as? [[String: Any]]
        XCTAssertEqual((continued?.first?["content"] as? [[String: Any]])?.first?["text"] as? String, "what is the weather")
        XCTAssertEqual((continueTask["header"] as? [String: Any])?["task_id"] as? String,
                       (runTask["header"] as? [String: Any])?["task_id"] as? String)
    }

    func testRunTaskCarriesEveryNUIParameterAndTheServerAcceptsThem() throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        let config = configuration(server, model: "qwen-audio-3.0-asr-flash-streaming") { p in
            p.semanticPunctuationEnabled = false
            p.maxSentenceSilenceMilliseconds = 400
            p.multiThresholdModeEnabled = true
            p.heartbeat = false
            p.vocabularyId = "vocab-123"
            p.instantVocabulary = ["AudioFrontEnd": 5, "DashScope": 50]
            p.languageHints = ["zh", "en"]
            p.speechNoiseThreshold = 0.2
            p.specialWordFilter = ["filter_with_signed": ["word_list": ["bad"]]]
        }
        let session = try SpeechStreamingSession(configuration: config)
        let recorder = EventRecorder()
        session.delegate = recorder
        runTask(session, recorder, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200))
        let runTask = try XCTUnwrap(server.receivedMessages().first)
        let payload = try XCTUnwrap(runTask["payload"] as? [String: Any])
        XCTAssertEqual(payload["model"] as? String, "qwen-audio-3.0-asr-flash-streaming")
        let p = try XCTUnwrap(payload["parameters"] as? [String: Any])
        XCTAssertEqual(p["format"] as? String, "pcm")
        XCTAssertEqual(p["sample_rate"] as? Int, 16000)
        XCTAssertEqual(p["semantic_punctuation_enabled"] as? Bool, false)
        XCTAssertEqual(p["max_sentence_silence"] as? Int, 400)
        XCTAssertEqual(p["multi_threshold_mode_enabled"] as? Bool, true)
        XCTAssertEqual(p["heartbeat"] as? Bool, false)
        XCTAssertEqual(p["vocabulary_id"] as? String, "vocab-123")
        XCTAssertEqual(p["vocabulary"] as? [String: Int], ["AudioFrontEnd": 5, "DashScope": 50])
        XCTAssertEqual(p["language_hints"] as? [String], ["zh", "en"])
        XCTAssertEqual(p["speech_noise_threshold"] as? Double, 0.2)
        XCTAssertEqual(((p["special_word_filter"] as? [String: Any])?["filter_with_signed"] as? [String: Any])?["word_list"] as? [String], ["bad"])
        XCTAssertEqual(p.count, 11, "no parameter beyond the configured ones: \(p.keys.sorted())")
    }

    func testHeartbeatResultsAreFiltered() throws {
        let server = try ReferenceServer(["--api-key", Self.key, "--heartbeat-interval", "0.5"])
        let session = try SpeechStreamingSession(configuration: configuration(server) { $0.heartbeat = true })
        let recorder = EventRecorder()
        session.delegate = recorder
        let silence = [UInt8](repeating: 0, count: 32000 * 3) // 3 s
        runTask(session, recorder, pieces: TestAudio.chunks(silence, size: 3200))
        let heartbeats = server.log().filter {
            $0["kind"] as? String == "send" && ($0["text"] as? String)?.contains("\"heartbeat\":true") == true
        }
        XCTAssertGreaterThanOrEqual(heartbeats.count, 3, "the server sent heartbeat results")
        let results = recorder.events.filter {
            switch $0 { case .partialResult, .sentenceEnd, .sentenceStart: true; default: false }
        }
        XCTAssertEqual(results.count, 0, "heartbeats never reach the consumer: \(results)")
    }

    func testGummyTranscriptionAndTranslationCountSentencesFromOne() throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        let config = configuration(server, model: "gummy-realtime-v1") { p in
            p.maxSentenceSilenceMilliseconds = nil
            p.additional = ["translation_enabled": true, "translation_target_languages": ["en"],
                            "max_end_silence": 400]
        }
        let session = try SpeechStreamingSession(configuration: config)
        let recorder = EventRecorder()
        session.delegate = recorder
        runTask(session, recorder, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200))
        let ends = recorder.sentenceEnds
        XCTAssertGreaterThanOrEqual(ends.count, 1, "events: \(recorder.events.count)")
        XCTAssertEqual(ends.first?.sentenceId, 1, "Gummy's sentence 0 becomes sentence 1")
        let translations = recorder.events.compactMap { if case .translation(let t) = $0 { t } else { nil } }
        let finalTranslations = translations.filter(\.isFinal)
        XCTAssertEqual(finalTranslations.count, ends.count)
        XCTAssertEqual(finalTranslations.first?.language, "en")
        XCTAssertEqual(finalTranslations.first?.sentenceId, 1)
        XCTAssertEqual(finalTranslations.first?.text, "[en] " + (ends.first?.text ?? ""))
    }

    func testEventsArriveThroughTheAsyncSequenceInOrderAndItFinishesOnClose() async throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        let session = try SpeechStreamingSession(configuration: configuration(server))
        let events = session.events // made on first access: before start()
        try session.start()
        TestAudio.stream(session, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200))
        session.stop()
        var kinds: [String] = []
        var finals = 0
        for await event in events {
            switch event {
            case .started: kinds.append("started")
            case .sentenceEnd: finals += 1
            case .completed:
                kinds.append("completed")
                session.close()
            case .error(let e): XCTFail("error \(e)")
            default: break
            }
        }
        XCTAssertEqual(kinds, ["started", "completed"], "the stream ends after close()")
        XCTAssertEqual(finals, TestAudio.bursts.count)
    }

    func testAudioIsRefusedOutsideATaskAndStartTwiceThrows() throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        let session = try SpeechStreamingSession(configuration: configuration(server))
        let recorder = EventRecorder()
        session.delegate = recorder
        let chunk = [UInt8](repeating: 0, count: 640)
        XCTAssertEqual(chunk.withUnsafeBytes { session.send(audio: $0) }, .inactive, "before start")
        try session.start()
        XCTAssertThrowsError(try session.start()) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState) }
        XCTAssertEqual(chunk.withUnsafeBytes { session.send(audio: $0) }, .accepted, "queued before task-started")
        session.stop()
        XCTAssertEqual(chunk.withUnsafeBytes { session.send(audio: $0) }, .inactive, "after stop")
        guard case .completed = recorder.waitForEnd() else { return XCTFail("\(recorder.errors)") }
        XCTAssertEqual(session.statistics.audioBytesSent, 640, "the audio queued before task-started went out")
        session.close()
        XCTAssertThrowsError(try session.start()) { XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState) }
    }
}
