import AudioFrontEnd
import AudioPlayback
import Foundation
@testable import NuiSDK
import NuiTTS
import XCTest

/// Collects a NeoNui dialog's EVENT_AEC_DATA and waits for its start and end.
final class AecDataRecorder: NeoNuiSdkDelegate, @unchecked Sendable { // state under `condition`
    private let condition = NSCondition()
    private var bytes: [UInt8] = []
    private var seen: [NuiCallbackEvent] = []

    func onNuiEventCallback(_ nuiEvent: NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                            asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32) {
        condition.withLock { seen.append(nuiEvent); condition.broadcast() }
    }
    func onNuiAssistEventCallback(_ nuiEvent: NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?, infoLen info_len: Int32,
                                  buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        guard nuiEvent == .EVENT_AEC_DATA, let buffer, len > 0 else { return }
        let chunk = UnsafeRawBufferPointer(start: buffer, count: Int(len))
        condition.withLock { bytes.append(contentsOf: chunk) }
    }
    func wait(for event: NuiCallbackEvent, timeout: TimeInterval = 60) -> Bool {
        wait(forCount: 1, of: event, timeout: timeout)
    }
    func count(of event: NuiCallbackEvent) -> Int { condition.withLock { seen.filter { $0 == event }.count } }
    func wait(forCount count: Int, of event: NuiCallbackEvent, timeout: TimeInterval = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while seen.filter({ $0 == event }).count < count { if !condition.wait(until: deadline) { return false } }
            return true
        }
    }
    var samples: [Int16] { condition.withLock { bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } } }
}

/// ``RoomSink`` with the recognizer as the mic's destination: what the device plays is heard 2.5 ms
/// late at −4 dB plus a reflection 12.5 ms late at −10 dB, and pushed with `nui_update_audio_data`. Keeps the mic
/// samples the SDK took (a push before the first dialog returns NUI_ERR_NO_DIALOG).
final class NuiRoomSink: PlaybackSink, @unchecked Sendable { // the playback thread; read after the playback closed
    let nui: NeoNui
    var mic: [Int16] = []
    var refusedMicPushes = 0
    private var room = SimulatedRoom()
    private var frame = [Int16]()
    init(nui: NeoNui) { self.nui = nui }

    func write(_ samples: UnsafeBufferPointer<Int16>) {
        room.echo(of: samples, into: &frame)
        let code = frame.withUnsafeBytes {
            nui.nui_update_audio_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Len: Int32($0.count), FirstPack: false)
        }
        if code == .SUCCESS { mic += frame } else { refusedMicPushes += 1 }
        usleep(1250) // 10 ms of audio per 1.25 ms: about 8 times real time
    }
}

/// Issue 14 §1+§3: the NeoNui recognizer is the TTS playback's echo reference. A real push-mode dialog against the
/// reference server, NeoNuiStreamInputTts playing an answer through a sink into a simulated room whose echo is the
/// dialog's mic; the app pushes no reference and sends no play_start / play_over.
final class NeoNuiEchoReferenceTests: XCTestCase {
    let rate = 16000

    struct Run {
        var mic: [Int16], output: [Int16], speechSamples: Int, counts: PlaybackCounts, referenceMissing: Int
        var dialogMicSamples: Int
    }

    func run(referenceIsTheRecognizer: Bool) throws -> Run {
        let server = try SynthesisServer()
        let nui = NeoNui()
        nui.logger.setPrinting(false)
        let aec = AecDataRecorder()
        nui.delegate = aec
        defer {
            _ = nui.nui_release()
            nui.callbacks.drain()
        }
        let workspace = NSTemporaryDirectory()
        XCTAssertEqual(nui.nui_initialize(#"{"url": "\#(server.url)", "apikey": "sk-joined", "service_mode": "1", "device_id": "d1", "#
                                          + #""audio_update_manually": "true", "workspace": "\#(workspace)"}"#,
                                          logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertEqual(nui.nui_set_params(#"{"service_type": 4, "enable_aec": true, "nls_config": {"model": "paraformer-realtime-v2", "#
                                          + #""sr_format": "pcm", "sample_rate": \#(rate)}}"#), .SUCCESS)
        let room = NuiRoomSink(nui: nui)
        // Created before the first dialog: its pushes are refused (and counted) until the dialog's front end exists.
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                                  reference: referenceIsTheRecognizer ? nui : nil, sink: room)
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        let events = PlaybackEventRecorder()
        tts.delegate = events
        XCTAssertEqual(tts.setPlayback(playback), .SUCCESS)
        // The sink runs before the dialog: wait for its first buffer (a fixed 50 ms sleep was not always enough under load).
        let deadline = Date().addingTimeInterval(30)
        while (playback.sinkPlayback?.buffersWritten ?? 0) == 0 && Date() < deadline { usleep(1000) }
        XCTAssertEqual(nui.nui_dialog_start(.MODE_P2T, dialogParam: "{}"), .SUCCESS)
        XCTAssertTrue(aec.wait(for: .EVENT_TRANSCRIBER_STARTED))
        XCTAssertEqual(tts.asyncPlayStreamInputTts(#"{"url": "\#(server.url)", "apikey": "sk-joined", "device_id": "d1"}"#,
                                                   parameters: StreamInputTtsPlaybackTests.parameters, text: StreamInputTtsPlaybackTests.text,
                                                   sessionId: nil, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertTrue(events.wait(for: .TTS_PLAYBACK_MIC_REARMED))
        playback.close()
        XCTAssertEqual(nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertTrue(aec.wait(for: .EVENT_TRANSCRIBER_COMPLETE))
        XCTAssertEqual(tts.setPlayback(nil), .SUCCESS)
        nui.callbacks.drain()
        let summary = nui.nui_get_dialog_summary()
        return Run(mic: room.mic, output: aec.samples, speechSamples: events.bytes / 2, counts: playback.player.counts,
                   referenceMissing: summary?.drops.frontEnd.referenceMissingSamples ?? -1,
                   dialogMicSamples: summary?.dialogAudio?.micSamples ?? -1)
    }

    /// Mic power over AEC-output power (dB) over the loud 100 ms blocks of the answer's second half.
    func erle(_ run: Run) -> Double {
        let (mic, output) = (run.mic, run.output)
        let first = mic.firstIndex { $0 != 0 } ?? 0
        var echo = 0.0, residual = 0.0
        for block in stride(from: first + run.speechSamples / 2, to: min(first + run.speechSamples, mic.count, output.count) - 1600, by: 1600) {
            let e = (block..<(block + 1600)).reduce(0.0) { $0 + Double(mic[$1]) * Double(mic[$1]) }
            guard e / 1600 > 300 * 300 else { continue }
            echo += e
            residual += (block..<(block + 1600)).reduce(0.0) { $0 + Double(output[$1]) * Double(output[$1]) }
        }
        XCTAssertGreaterThan(echo, 0, "loud echo in the mic")
        return 10 * log10(echo / max(residual, 1))
    }

    func testTtsPlaybackWithTheRecognizerAsReferenceCancelsTheEchoInTheAecData() throws {
        let joined = try run(referenceIsTheRecognizer: true)
        let alone = try run(referenceIsTheRecognizer: false)
        let (withReference, without) = (erle(joined), erle(alone))
        let decibels = String(format: "%.1f dB (no reference: %.1f dB)", withReference, without)
        let refused = joined.counts.refusedReferenceSamples, pushed = joined.counts.referenceSamplesPushed
        print("NeoNui as the TTS reference: ERLE of EVENT_AEC_DATA \(decibels); reference samples \(pushed) taken, "
              + "\(refused) refused before the first dialog; \(joined.mic.count) mic samples (\(joined.dialogMicSamples) in the dialog's "
              + "window, \(joined.output.count) of EVENT_AEC_DATA), \(joined.speechSamples) of speech")
        XCTAssertGreaterThan(joined.speechSamples, 5 * rate, "the answer speaks for more than 5 s")
        // The dialog's mic is what was pushed from its audio window's start: the sink's pushes while nui_dialog_start
        // was still starting the service (0-320 samples seen) went to the front end before it. Comparing with all the
        // mic the sink pushed failed about 1 run in 15 (480-640 short: that plus the stages' 20 ms hold-back).
        XCTAssertLessThanOrEqual(joined.dialogMicSamples, joined.mic.count)
        XCTAssertGreaterThan(joined.dialogMicSamples, joined.mic.count - rate / 10, "the dialog's window starts at its start")
        XCTAssertEqual(joined.output.count, joined.dialogMicSamples, accuracy: 2 * rate / 100, "EVENT_AEC_DATA covers the dialog's mic")
        XCTAssertGreaterThanOrEqual(withReference, 25, "the recognizer's front end cancels the echo of what the TTS played")
        XCTAssertLessThan(without, 6, "without the reference the echo stays (the measurement is not vacuous)")
        // The pushes before the first dialog are refused and counted (the player pushes its idle silence too), not
        // lost silently; from the dialog on, the reference is every sample handed to the device, in place (also when
        // the dialog starts between a buffer's reference push and its write: FrontEndLateReferenceTests).
        XCTAssertGreaterThan(joined.counts.refusedReferenceSamples, 0)
        XCTAssertEqual(joined.referenceMissing, 0)
    }

    /// The reference format is checked as for a FrontEnd: nls_config.sample_rate, mono; unknown before nui_set_params.
    func testTheRecognizersReferenceFormatIsChecked() throws {
        let nui = NeoNui()
        nui.logger.setPrinting(false)
        defer { _ = nui.nui_release(); nui.callbacks.drain() }
        let configuration = PlaybackConfiguration(sampleRate: rate)
        XCTAssertThrowsError(try StreamInputTtsPlayback(configuration: configuration, reference: nui)) {
            XCTAssertEqual(($0 as? AudioFrontEndError)?.code, .invalidState, "\($0)")
        }
        XCTAssertEqual(nui.nui_initialize(#"{"url": "ws://127.0.0.1:9/api-ws/v1/inference", "apikey": "sk-x", "service_mode": "1", "#
                                          + #""device_id": "d1", "audio_update_manually": "true", "workspace": "/tmp"}"#,
                                          logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertEqual(nui.nui_set_params(#"{"service_type": 4, "nls_config": {"model": "paraformer-realtime-v2", "sr_format": "pcm", "sample_rate": 48000}}"#), .SUCCESS)
        XCTAssertEqual(nui.referenceSampleRate, 48000)
        XCTAssertThrowsError(try StreamInputTtsPlayback(configuration: configuration, reference: nui)) {
            XCTAssertEqual(($0 as? AudioFrontEndError)?.code, .invalidConfiguration, "\($0)")
        }
        XCTAssertThrowsError(try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: 48000, channelCount: 2), reference: nui))
        XCTAssertEqual(nui.nui_set_params(#"{"service_type": 4, "nls_config": {"model": "paraformer-realtime-v2", "sr_format": "pcm", "sample_rate": 16000}}"#), .SUCCESS)
        let playback = try StreamInputTtsPlayback(configuration: configuration, reference: nui)
        playback.close()
        // Before the first dialog a push is not taken: the player counts it.
        let buffer = [Int16](repeating: 100, count: 160)
        buffer.withUnsafeBufferPointer { XCTAssertEqual(nui.pushReference(samples: $0), PushResult(status: .notRunning, accepted: 0)) }
    }
}
