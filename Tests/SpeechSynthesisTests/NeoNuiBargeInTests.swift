import AudioFrontEnd
import AudioPlayback
import Foundation
@testable import NuiSDK
import NuiTTS
@testable import VoiceRecognition
import XCTest

/// Barge-in with the recognizer as the source (issue 14 part 4): the playback's reference is the NeoNui, and
/// `enableBargeIn(true)` with no explicit source stops the answer when the recognizer's front end hears the
/// user. Real components: the reference server for both the recognizer (DashScope) and the TTS, a push-mode
/// dialog whose mic is a simulated room with the answer's echo and a user talking 2.5 s into it.
final class NeoNuiBargeInTests: XCTestCase {
    let rate = 16000

    func setParameters(_ nui: NeoNui, aecTail: Int) {
        XCTAssertEqual(nui.nui_set_params(#"{"service_type": 4, "enable_aec": true, "aec_tail_ms": \#(aecTail), "#
                                          + #""nls_config": {"model": "paraformer-realtime-v2", "sr_format": "pcm", "sample_rate": \#(rate)}}"#),
                       .SUCCESS)
    }

    /// Enabled before the first dialog (no front end yet: the handler waits in the SDK), a first dialog that
    /// ends, new parameters (a new front end at the next dialog), and the user interrupting in the second dialog.
    func testEnableBargeInWithTheRecognizerAsReferenceHoldsAcrossDialogsAndStopsTheAnswer() throws {
        let server = try SynthesisServer()
        let nui = NeoNui()
        nui.logger.setPrinting(false)
        let aec = AecDataRecorder()
        nui.delegate = aec
        defer { _ = nui.nui_release(); nui.callbacks.drain() }
        XCTAssertEqual(nui.nui_initialize(#"{"url": "\#(server.url)", "apikey": "sk-barge", "service_mode": "1", "device_id": "d1", "#
                                          + #""audio_update_manually": "true", "workspace": "\#(NSTemporaryDirectory())"}"#,
                                          logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        setParameters(nui, aecTail: 128)
        let room = try TalkingRoomSink(userDelay: 5 * rate / 2) { samples in
            _ = samples.withMemoryRebound(to: CChar.self) {
                nui.nui_update_audio_data($0.baseAddress!, Len: Int32($0.count), FirstPack: false) // count in bytes after the rebind
            }
        }
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                                  reference: nui, sink: room)
        defer { playback.close() }
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        let recorder = BargeInRecorder()
        tts.delegate = recorder
        XCTAssertEqual(tts.setPlayback(playback), .SUCCESS)
        XCTAssertEqual(tts.enableBargeIn(true), .SUCCESS, "the NeoNui reference is the default source")
        XCTAssertTrue(tts.isBargeInEnabled)

        // Dialog 1: no answer plays; it ends. Then other AEC parameters: dialog 2 runs on a new front end.
        XCTAssertEqual(nui.nui_dialog_start(.MODE_P2T, dialogParam: "{}"), .SUCCESS)
        XCTAssertTrue(aec.wait(for: .EVENT_TRANSCRIBER_STARTED))
        usleep(200_000)
        XCTAssertEqual(nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertTrue(aec.wait(for: .EVENT_TRANSCRIBER_COMPLETE))
        let firstEngine = nui.lock.withLock { nui.engine }
        setParameters(nui, aecTail: 200)
        let completes = aec.count(of: .EVENT_TRANSCRIBER_COMPLETE)
        XCTAssertEqual(nui.nui_dialog_start(.MODE_P2T, dialogParam: "{}"), .SUCCESS)
        XCTAssertFalse(nui.lock.withLock { nui.engine } === firstEngine, "the second dialog has a new front end")

        let ticket = #"{"url": "\#(server.url)", "apikey": "sk-barge", "device_id": "d1"}"#
        XCTAssertEqual(tts.startStreamInputTts(ticket, parameters: BargeInPlaybackTests.parameters, sessionId: "answer",
                                               logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertEqual(tts.sendStreamInputTts(StreamInputTtsPlaybackTests.text), .SUCCESS)
        if !recorder.wait(for: .TTS_PLAYBACK_INTERRUPTED) {
            let summary = try? nui.lock.withLock { nui.engine }?.frontEnd.finish()
            return XCTFail("no interruption: \(recorder.playbackEvents); the dialog's front end: \(summary.map { "\($0)" } ?? "nil")")
        }
        let interruption = try XCTUnwrap(recorder.waitForInterruption())
        let onset = try XCTUnwrap(room.userOnsetIndex), deviceStart = try XCTUnwrap(room.device.firstIndex { $0 != 0 })
        // The answer played from its first sample to the stop: the stop came after the user's onset, within a
        // generous second of it (the matrix measures the latency), and before the answer's end.
        let stoppedAt = deviceStart + interruption.positionSamples
        print("MEASURED NeoNui barge-in: stopped \((stoppedAt - onset) * 1000 / rate) ms after the user's onset; decision "
              + "\(interruption.decision); heard \(interruption.wordsHeard ?? -1) words: \(interruption.textHeard ?? "nil")")
        XCTAssertGreaterThan(stoppedAt, onset, "stopped before the user spoke")
        XCTAssertLessThanOrEqual(stoppedAt, onset + rate, "stopped more than 1 s after the user's onset")
        XCTAssertFalse(recorder.playbackEvents.map(\.0).contains(.TTS_PLAYBACK_DRAINED))
        XCTAssertGreaterThan(interruption.wordsHeard ?? 0, 2)
        // The recognizer still runs its dialog: it ends normally.
        XCTAssertEqual(nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertTrue(aec.wait(forCount: completes + 1, of: .EVENT_TRANSCRIBER_COMPLETE))
        XCTAssertEqual(tts.enableBargeIn(false), .SUCCESS)
        XCTAssertNil(nui.bargeInHandler.withLock { $0 }, "disabling removes the recognizer's handler")
    }
}
