import Foundation
@testable import NuiSDK
import XCTest

/// Whole dialogs against the reference server (deterministic recogniser) on the bundled near-end vector: PCM and
/// Ogg Opus, push and pull mode, DashScope and Tingwu/NLS.
final class DialogFlowTests: NuiServerTestCase {

    /// The near-end vector (4 utterances in 21 s) and its labelled speech.
    func vector() throws -> (bytes: [UInt8], speech: [(start: Double, end: Double)]) {
        let samples = try TestVectors.int16("nearend_16k.wav").samples
        return (samples.withUnsafeBytes { Array($0) }, try TestVectors.entry("nearend_16k.wav").speechIntervals)
    }

    /// Runs one dialog over the vector and checks everything a NUI app relies on.
    func runDialog(format: String, manual: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let (bytes, speech) = try vector()
        harness.nui.pullSpeed = 8
        harness.recorder.pullAudio = manual ? nil : bytes
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url(), manual: manual)), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(format: format, nls: ["max_sentence_silence": 500],
                                                                        top: ["enable_vad": true, "vad_end_silence": 500])), .SUCCESS)
        XCTAssertNil(harness.nui.nui_get_dialog_summary(), "no dialog completed yet", file: file, line: line)
        XCTAssertEqual(harness.start(), .SUCCESS)
        let recorder = harness.recorder
        let started = try XCTUnwrap(recorder.wait(for: .EVENT_TRANSCRIBER_STARTED), "started", file: file, line: line)
        XCTAssertTrue(started.asrResult?.contains("task-started") == true, file: file, line: line)
        if manual {
            harness.push(bytes, file: file, line: line)
        } else {
            XCTAssertTrue(recorder.wait(timeout: 30) { $0.pulledEverything }, "the SDK pulled all the audio", file: file, line: line)
        }
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS, file: file, line: line)
        let end = try XCTUnwrap(recorder.waitForEnd(timeout: 60), file: file, line: line)
        XCTAssertEqual(end.event, .EVENT_TRANSCRIBER_COMPLETE, "\(end)", file: file, line: line)
        XCTAssertTrue(end.finish, file: file, line: line)
        XCTAssertEqual(end.code, 0, file: file, line: line)

        let events = recorder.events
        let sentences = recorder.events(.EVENT_SENTENCE_END)
        XCTAssertTrue((4...8).contains(sentences.count), "\(sentences.count) sentences", file: file, line: line)
        XCTAssertGreaterThan(recorder.events(.EVENT_ASR_PARTIAL_RESULT).count, sentences.count, file: file, line: line)
        XCTAssertEqual(events.last?.event, .EVENT_TRANSCRIBER_COMPLETE, "COMPLETE comes after the final results", file: file, line: line)
        for event in events where [.EVENT_SENTENCE_END, .EVENT_ASR_PARTIAL_RESULT].contains(event.event) {
            let json = try XCTUnwrap(event.asrResult.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            let sentence = ((json["payload"] as? [String: Any])?["output"] as? [String: Any])?["sentence"] as? [String: Any]
            XCTAssertEqual(sentence?["sentence_end"] as? Bool, event.event == .EVENT_SENTENCE_END, file: file, line: line)
            XCTAssertEqual(event.response, event.asrResult, "nui_get_all_response inside the callback", file: file, line: line)
        }
        XCTAssertFalse(events.contains { $0.onMainThread }, "callbacks come from an SDK thread", file: file, line: line)
        // The on-device VAD: each start falls in (or just before) a labelled utterance.
        let vadStarts = recorder.events(.EVENT_VAD_START).compactMap { Self.time($0.asrResult) }
        XCTAssertTrue((4...8).contains(vadStarts.count), "VAD starts \(vadStarts)", file: file, line: line)
        XCTAssertEqual(recorder.events(.EVENT_VAD_END).count, vadStarts.count, file: file, line: line)
        // nui_get_dialog_summary: the completed dialog's figures agree with the events delivered.
        let summary = try XCTUnwrap(harness.nui.nui_get_dialog_summary(), file: file, line: line)
        XCTAssertEqual(summary.sentences.count, sentences.count, file: file, line: line)
        XCTAssertEqual(summary.speechSegments.map { Double($0.startMilliseconds) / 1000 }, vadStarts, file: file, line: line)
        XCTAssertGreaterThan(summary.statistics.audioBytesSent, 0, file: file, line: line)
        for start in vadStarts {
            XCTAssertTrue(speech.contains { start >= $0.start - 0.3 && start <= $0.end }, "VAD start \(start) s outside \(speech)",
                          file: file, line: line)
        }
        // EVENT_AEC_DATA covers the whole stream; audio states open then pause.
        XCTAssertEqual(Double(recorder.aecSamples.count), Double(bytes.count / 2), accuracy: 1600, file: file, line: line)
        XCTAssertGreaterThan(recorder.aecCallbackCount, 50, file: file, line: line)
        XCTAssertEqual(recorder.states, [.STATE_OPEN, .STATE_PAUSE], file: file, line: line)
        XCTAssertFalse(recorder.rms.isEmpty, file: file, line: line)
        XCTAssertTrue(recorder.rms.allSatisfy { (-160...0).contains($0) }, file: file, line: line)
        let runTask = server.receivedMessages().first { ($0["header"] as? [String: Any])?["action"] as? String == "run-task" }
        let sent = ((runTask?["payload"] as? [String: Any])?["parameters"] as? [String: Any])
        XCTAssertEqual(sent?["format"] as? String, format, file: file, line: line)
        if !manual { XCTAssertGreaterThan(recorder.pulls, 100, file: file, line: line) }
        print("\(format) \(manual ? "push" : "pull"): \(sentences.count) sentences, VAD starts \(vadStarts), "
            + "\(recorder.aecCallbackCount) AEC chunks, \(recorder.pulls) pulls; text: "
            + sentences.compactMap { Self.text($0.asrResult) }.joined(separator: " | "))
    }

    static func text(_ json: String?) -> String? {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let payload = object["payload"] as? [String: Any], let output = payload["output"] as? [String: Any],
              let sentence = output["sentence"] as? [String: Any] else { return nil }
        return sentence["text"] as? String
    }

    static func time(_ json: String?) -> Double? {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              object["event"] as? String == "speech_start", let ms = object["milliseconds"] as? Int else { return nil }
        return Double(ms) / 1000
    }

    /// 48 kHz mic audio: PCM goes out at 48 kHz, Opus is encoded at the 16 kHz processing rate.
    func testPushMode48kHz() throws {
        let samples = try TestVectors.int16("nearend_48k.wav").samples
        let speech = try TestVectors.entry("nearend_48k.wav").speechIntervals
        for format in ["pcm", "opus"] {
            let harness = try NuiHarness()
            defer { harness.close() }
            XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
            XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(format: format, sampleRate: 48000,
                                                                            nls: ["max_sentence_silence": 500])), .SUCCESS)
            XCTAssertEqual(harness.start(), .SUCCESS)
            XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
            harness.push(samples.withUnsafeBytes { Array($0) }, speed: 24)
            XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
            XCTAssertEqual(harness.recorder.waitForEnd(timeout: 60)?.event, .EVENT_TRANSCRIBER_COMPLETE, format)
            let outputRate = format == "pcm" ? 48000 : 16000
            XCTAssertEqual(Double(harness.recorder.aecSamples.count), Double(samples.count * outputRate / 48000),
                           accuracy: Double(outputRate) / 10, "\(format): EVENT_AEC_DATA at \(outputRate) Hz")
            XCTAssertGreaterThanOrEqual(harness.recorder.events(.EVENT_SENTENCE_END).count, 2, format)
            let starts = harness.recorder.events(.EVENT_VAD_START).compactMap { Self.time($0.asrResult) }
            XCTAssertFalse(starts.isEmpty, format)
            for start in starts {
                XCTAssertTrue(speech.contains { start >= $0.start - 0.3 && start <= $0.end }, "\(format): VAD start \(start) s")
            }
        }
        let runTasks = server.receivedMessages().filter { ($0["header"] as? [String: Any])?["action"] as? String == "run-task" }
        let rates = runTasks.compactMap { (($0["payload"] as? [String: Any])?["parameters"] as? [String: Any])?["sample_rate"] as? Int }
        XCTAssertEqual(rates, [48000, 16000], "PCM at the app's rate, Opus at the encoder's")
    }

    func testPushModePCM() throws { try runDialog(format: "pcm", manual: true) }
    func testPushModeOpus() throws { try runDialog(format: "opus", manual: true) }
    func testPullModePCM() throws { try runDialog(format: "pcm", manual: false) }
    func testPullModeOpus() throws { try runDialog(format: "opus", manual: false) }
}
