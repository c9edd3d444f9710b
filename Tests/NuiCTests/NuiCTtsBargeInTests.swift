import CNui
import Foundation
import NuiC
import XCTest

/// The room of the C sink: what the SDK's playback thread hands over is "played"; its echo (a 2.5 ms path at
/// -4 dB, a 12.5 ms reflection at -10 dB) plus a user's voice (`nearend_16k.wav` from 2.9 s, "Set a timer for ten
/// minutes.", speech 130 ms in) starting 2.5 s after the answer's first sample is the mic, pushed with
/// nui_update_audio_data. Playback thread only, read after the playback was destroyed.
private final class CTalkingRoom {
    let user: [Int16]
    var history = [Float](repeating: 0, count: 400)
    var played = 0
    var answerStart: Int?
    var frame = [Int16](repeating: 0, count: 4800)
    init(user: [Int16]) { self.user = user }

    func play(_ samples: UnsafePointer<Int16>, _ count: Int) {
        if answerStart == nil, let loud = (0..<count).first(where: { samples[$0] != 0 }) { answerStart = played + loud }
        let userStart = answerStart.map { $0 + 40_000 }
        for i in 0..<min(count, frame.count) {
            history.removeFirst()
            history.append(Float(samples[i]))
            var mic = 0.63 * history[399 - 40] + 0.32 * history[399 - 200]
            if let userStart, played + i >= userStart, played + i - userStart < user.count { mic += Float(user[played + i - userStart]) }
            frame[i] = Int16(max(-32768, min(32767, mic)))
        }
        played += count
        frame.withUnsafeBytes { _ = nui_update_audio_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(count * 2), false) }
        usleep(1250) // 10 ms of audio per 1.25 ms
    }
}

/// What the C listener got: playback events and the interruption (copied out during the call).
private final class CBargeInListener: @unchecked Sendable { // under `condition`
    let condition = NSCondition()
    var events: [(UInt32, Int64)] = []
    var interruption: (session: String, positionMs: Int64, samples: Int64, rate: Int32, words: Int32, characters: Int32,
                       text: String, speechStart: Int64, decision: Int64)?

    func wait(_ ready: () -> Bool, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while !ready() { if !condition.wait(until: deadline) { return false } }
            return true
        }
    }
}

/// Barge-in through the C ABI (nui_tts.h `nui_tts_enable_barge_in`, the listener's `tts_interrupted_callback`),
/// in-process, with the reference server: a push-mode ASR dialog with AEC, a sink playback whose reference is the
/// ASR SDK, the user talking over the answer. Under Scripts/asan-tests.sh it runs with AddressSanitizer.
final class NuiCTtsBargeInTests: XCTestCase {
    func testTheUserInterruptsAnAnswerPlayedThroughTheCApi() throws {
        let (voice, rate) = try TestVectors.int16("nearend_16k.wav")
        XCTAssertEqual(rate, 16000)
        let room = CTalkingRoom(user: Array(voice[Int(2.9 * 16000)..<(5 * 16000)]))
        let server = try ReferenceServer()
        defer { server.stop() }
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("nuibarge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        var asr = NuiSdkListener()
        XCTAssertEqual(nui_initialize(#"{"url":"\#(server.url())","apikey":"k","device_id":"barge","service_mode":"1","#
                                      + #""audio_update_manually":"true","workspace":"\#(workspace.path)"}"#, &asr, LOG_LEVEL_NONE, false), 0)
        defer { _ = nui_release() }
        XCTAssertEqual(nui_set_params(#"{"service_type":4,"enable_aec":true,"nls_config":{"model":"paraformer-realtime-v2","#
                                      + #""sr_format":"pcm","sample_rate":16000}}"#), 0)

        let state = CBargeInListener()
        var listener = StreamInputTtsListener()
        listener.user_data = Unmanaged.passUnretained(state).toOpaque()
        listener.tts_playback_event_callback = { user, event, _, position in
            let state = Unmanaged<CBargeInListener>.fromOpaque(user!).takeUnretainedValue()
            state.condition.withLock { state.events.append((event.rawValue, position)); state.condition.broadcast() }
        }
        listener.tts_interrupted_callback = { user, c in
            let state = Unmanaged<CBargeInListener>.fromOpaque(user!).takeUnretainedValue()
            let i = c!.pointee
            state.condition.withLock {
                state.interruption = (String(cString: i.session_id), i.position_ms, i.position_samples, i.sample_rate, i.words_heard,
                                      i.characters_heard, String(cString: i.text_heard), i.speech_start_ms, i.decision_ms)
                state.condition.broadcast()
            }
        }
        let tts = try XCTUnwrap(nui_tts_create(&listener))
        defer { nui_tts_destroy(tts) }
        XCTAssertEqual(nui_tts_enable_barge_in(nil, true), Int32(NUI_ERR_MISSING_PARAMETER))
        XCTAssertEqual(nui_tts_enable_barge_in(tts, true), Int32(NUI_ERR_INVALID_PARAMETER_VALUE), "no playback attached")

        var config = NuiTtsPlaybackConfig()
        config.buffer_ms = 20_000
        config.echo_reference = NUI_TTS_REFERENCE_NUI
        config.sink = { user, samples, count in
            Unmanaged<CTalkingRoom>.fromOpaque(user!).takeUnretainedValue().play(samples!, Int(count))
        }
        config.sink_user_data = Unmanaged.passUnretained(room).toOpaque()
        var playback: OpaquePointer?
        XCTAssertEqual(nui_tts_playback_create(&config, &playback), 0)
        var destroyed = false
        defer { if !destroyed { nui_tts_playback_destroy(playback) } }
        XCTAssertEqual(nui_tts_set_playback(tts, playback), 0)
        XCTAssertEqual(nui_tts_enable_barge_in(tts, true), 0, "the ASR SDK as the reference is the source")
        XCTAssertEqual(nui_dialog_start(MODE_P2T, ""), 0)

        let ticket = #"{"url": "\#(server.url())", "apikey": "k", "device_id": "barge"}"#
        let parameters = #"{"model": "cosyvoice-v2", "voice": "espeak-en-us", "format": "pcm", "sample_rate": 16000, "word_timestamp_enabled": true}"#
        let text = "The loop is whole now. The device speaks its answer into the room, and the front end hears it come back. "
            + "It removes that echo and listens for the user, who may talk at any moment."
        XCTAssertEqual(nui_tts_play(tts, ticket, parameters, text, "c-answer", 5, false), 0)
        XCTAssertTrue(state.wait({ state.interruption != nil }), "no interruption: \(state.condition.withLock { state.events })")
        let events = state.condition.withLock { state.events }
        let interruption = try XCTUnwrap(state.condition.withLock { state.interruption })
        XCTAssertEqual(nui_dialog_cancel(false), 0)
        nui_tts_playback_destroy(playback)
        destroyed = true

        let names = events.map(\.0)
        XCTAssertFalse(names.contains(TTS_PLAYBACK_DRAINED.rawValue), "\(events)")
        let stopped = try XCTUnwrap(names.firstIndex(of: TTS_PLAYBACK_STOPPED.rawValue), "\(events)")
        let interrupted = try XCTUnwrap(names.firstIndex(of: TTS_PLAYBACK_INTERRUPTED.rawValue), "\(events)")
        XCTAssertLessThan(stopped, interrupted)
        XCTAssertEqual(events[interrupted].1, interruption.positionMs, "event 106 and the callback give one position")
        XCTAssertEqual(interruption.session, "c-answer")
        XCTAssertEqual(interruption.rate, 16000)
        XCTAssertEqual(interruption.positionMs, interruption.samples * 1000 / 16000)
        // Stopped after the user's onset (2.5 s + 130 ms into the answer), within a generous second.
        let onset = 40_000 + 130 * 16
        print("MEASURED C barge-in: stopped at \(interruption.positionMs) ms of the answer (user's onset \(onset / 16) ms); "
              + "\(interruption.words) words, \(interruption.characters) characters heard: '\(interruption.text)'; decision at "
              + "\(interruption.decision) ms, speech from \(interruption.speechStart) ms (mic timeline)")
        XCTAssertGreaterThan(interruption.samples, Int64(onset))
        XCTAssertLessThanOrEqual(interruption.samples, Int64(onset + 16000))
        XCTAssertGreaterThan(interruption.decision, interruption.speechStart)
        XCTAssertGreaterThan(interruption.words, 2)
        XCTAssertEqual(Int(interruption.characters), interruption.text.unicodeScalars.count)
        let squeezed = { (s: String) in s.filter { !$0.isWhitespace } }
        XCTAssertTrue(squeezed(text).hasPrefix(squeezed(interruption.text)), "'\(interruption.text)'")
        XCTAssertEqual(nui_tts_enable_barge_in(tts, false), 0)
    }
}
