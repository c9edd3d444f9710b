import AudioFrontEnd
import AudioPlayback
import Foundation
@testable import NuiSDK
import NuiTTS
import XCTest

/// ``NuiRoomSink`` with the app's own earcon in the room too: at each device buffer the app hands its next
/// earcon buffer to its own output (heard one buffer later) and pushes it with `nui_push_reference_data` at that
/// moment. The codes of those pushes are kept.
final class EarconRoomSink: PlaybackSink, @unchecked Sendable { // the playback thread; read after the playback closed
    let nui: NeoNui
    let pushingEarcon: Bool
    var mic: [Int16] = []
    var pushCodes: [NuiResultCode: Int] = [:]
    private var room = SimulatedRoom()
    private var frame = [Int16](), heard = [Int16](), earcon = [Int16]()
    private var played = 0
    init(nui: NeoNui, pushingEarcon: Bool) { (self.nui, self.pushingEarcon) = (nui, pushingEarcon) }

    /// A two-tone earcon (880 then 660 Hz, 150 ms each, −12 dBFS) every 700 ms at 16 kHz.
    static func earcon(at sample: Int) -> Int16 {
        let t = sample % 11200
        guard t < 4800 else { return 0 }
        return Int16(8000 * sin(2 * Double.pi * (t < 2400 ? 880.0 : 660.0) * Double(sample) / 16000))
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) {
        heard = (0..<samples.count).map { i in Int16(clamping: Int(samples[i]) + Int(earcon.count == samples.count ? earcon[i] : 0)) }
        earcon = (0..<samples.count).map { Self.earcon(at: played + $0) }
        played += samples.count
        if pushingEarcon {
            let code = earcon.withUnsafeBytes {
                nui.nui_push_reference_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Len: Int32($0.count), FirstPack: false)
            }
            pushCodes[code, default: 0] += 1
        }
        heard.withUnsafeBufferPointer { room.echo(of: $0, into: &frame) }
        let code = frame.withUnsafeBytes {
            nui.nui_update_audio_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Len: Int32($0.count), FirstPack: false)
        }
        if code == .SUCCESS { mic += frame }
        usleep(1250) // about 8 times real time
    }
}

/// Issue 14 §3: with the TTS playback attached to a real NeoNui dialog, the app's own sounds pushed with
/// `nui_push_reference_data` are mixed into the reference the playback pushes, and the front end cancels both.
final class NeoNuiAppReferenceTests: XCTestCase {
    let rate = 16000
    let initialize = #"{"url": "URL", "apikey": "sk-joined", "service_mode": "1", "device_id": "d1", "audio_update_manually": "true", "workspace": "/tmp"}"#
    func parameters(rate: Int) -> String {
        #"{"service_type": 4, "enable_aec": true, "nls_config": {"model": "paraformer-realtime-v2", "sr_format": "pcm", "sample_rate": \#(rate)}}"#
    }

    struct Run { var erle: Double; var sink: EarconRoomSink; var output: [Int16]; var overflow: Int; var missing: Int; var mixed: Int }

    func run(pushingEarcon: Bool) throws -> Run {
        let server = try SynthesisServer()
        let nui = NeoNui()
        nui.logger.setPrinting(false)
        let aec = AecDataRecorder()
        nui.delegate = aec
        defer { _ = nui.nui_release(); nui.callbacks.drain() }
        XCTAssertEqual(nui.nui_initialize(initialize.replacingOccurrences(of: "URL", with: server.url), logLevel: .NUI_LOG_LEVEL_NONE,
                                          saveLog: false), .SUCCESS)
        XCTAssertEqual(nui.nui_set_params(parameters(rate: rate)), .SUCCESS)
        let room = EarconRoomSink(nui: nui, pushingEarcon: pushingEarcon)
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                                  reference: nui, sink: room)
        XCTAssertTrue(nui.isMixingAppReference)
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        let events = PlaybackEventRecorder()
        tts.delegate = events
        XCTAssertEqual(tts.setPlayback(playback), .SUCCESS)
        XCTAssertEqual(nui.nui_dialog_start(.MODE_P2T, dialogParam: "{}"), .SUCCESS)
        XCTAssertTrue(aec.wait(for: .EVENT_TRANSCRIBER_STARTED))
        XCTAssertEqual(nui.nui_dialog_action(#"{"type": "action", "command": "play_start"}"#), .SUCCESS)
        XCTAssertTrue(nui.appReference.isAppPlaying, "play_start marks the app's sound; the playback's render combines it")
        XCTAssertEqual(tts.asyncPlayStreamInputTts(#"{"url": "\#(server.url)", "apikey": "sk-joined", "device_id": "d1"}"#,
                                                   parameters: StreamInputTtsPlaybackTests.parameters, text: StreamInputTtsPlaybackTests.text,
                                                   sessionId: nil, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertTrue(events.wait(for: .TTS_PLAYBACK_MIC_REARMED))
        XCTAssertEqual(nui.nui_dialog_action(#"{"type": "action", "command": "play_over"}"#), .SUCCESS)
        XCTAssertFalse(nui.appReference.isAppPlaying)
        XCTAssertEqual(nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertTrue(aec.wait(for: .EVENT_TRANSCRIBER_COMPLETE))
        // The playback renders at nls_config.sample_rate: another rate is refused while it exists.
        XCTAssertEqual(nui.nui_set_params(parameters(rate: 48000)), .NUI_ERR_UNSUPPORTED_SAMPLE_RATE)
        XCTAssertEqual(nui.nui_set_params(parameters(rate: rate)), .SUCCESS)
        let (overflow, missing, mixed) = (nui.appReference.overflowSamples, nui.appReference.missingSamples, nui.appReference.mixedSamples)
        playback.close()
        XCTAssertFalse(nui.isMixingAppReference)
        XCTAssertEqual(nui.nui_set_params(parameters(rate: 48000)), .SUCCESS, "accepted once the playback is closed")
        XCTAssertEqual(tts.setPlayback(nil), .SUCCESS)
        nui.callbacks.drain()
        let (mic, output) = (room.mic, aec.samples)
        // ERLE over the loud 100 ms blocks after the first 3 s (the canceller has converged on both sounds).
        var echo = 0.0, residual = 0.0
        for block in stride(from: 3 * rate, to: min(mic.count, output.count) - 1600, by: 1600) {
            let e = (block..<(block + 1600)).reduce(0.0) { $0 + Double(mic[$1]) * Double(mic[$1]) }
            guard e / 1600 > 300 * 300 else { continue }
            echo += e
            residual += (block..<(block + 1600)).reduce(0.0) { $0 + Double(output[$1]) * Double(output[$1]) }
        }
        XCTAssertGreaterThan(echo, 0, "loud echo in the mic")
        return Run(erle: 10 * log10(echo / max(residual, 1)), sink: room, output: output, overflow: overflow, missing: missing, mixed: mixed)
    }

    func testTheAppsEarconPushedWithNuiPushReferenceDataIsMixedAndCancelled() throws {
        let mixed = try run(pushingEarcon: true)
        let control = try run(pushingEarcon: false)
        print("NeoNui dialog, TTS playback + the app's earcon: ERLE of EVENT_AEC_DATA \(String(format: "%.1f", mixed.erle)) dB with "
              + "nui_push_reference_data (\(mixed.mixed) samples mixed, overflow \(mixed.overflow), missing \(mixed.missing); "
              + "codes \(mixed.sink.pushCodes)), \(String(format: "%.1f", control.erle)) dB without")
        XCTAssertGreaterThanOrEqual(mixed.erle, 25, "the front end cancels the speech and the app's earcon")
        XCTAssertLessThan(control.erle, mixed.erle - 10, "without the earcon in the reference it stays (not vacuous)")
        XCTAssertEqual(mixed.sink.pushCodes, [.SUCCESS: mixed.sink.pushCodes[.SUCCESS] ?? -1], "every push taken")
        XCTAssertGreaterThan(mixed.mixed, 5 * rate)
        XCTAssertEqual(mixed.overflow, 0)
        XCTAssertEqual(mixed.missing, 0)
    }

    /// Pushed ahead of the playback's render (here nothing renders): the mix takes ``NeoNui/appReferenceCapacity``
    /// samples, then `NUI_ERR_AUDIO_BUFFER_FULL` with the rest counted; without a playback, as before.
    func testTheAppPushingAheadIsRefusedAndCounted() throws {
        let nui = NeoNui()
        nui.logger.setPrinting(false)
        defer { _ = nui.nui_release(); nui.callbacks.drain() }
        XCTAssertEqual(nui.nui_initialize(initialize.replacingOccurrences(of: "URL", with: "ws://127.0.0.1:9/api-ws/v1/inference"),
                                          logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertEqual(nui.nui_set_params(parameters(rate: rate)), .SUCCESS)
        let second = [Int16](repeating: 100, count: rate)
        func push() -> NuiResultCode {
            second.withUnsafeBytes { nui.nui_push_reference_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Len: Int32($0.count), FirstPack: false) }
        }
        XCTAssertEqual(push(), .NUI_ERR_NO_DIALOG, "no playback: to the front end, which does not exist yet")
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate), reference: nui)
        XCTAssertEqual(push(), .SUCCESS)
        XCTAssertEqual(push(), .SUCCESS)
        XCTAssertEqual(push(), .NUI_ERR_AUDIO_BUFFER_FULL)
        XCTAssertEqual(nui.appReference.overflowSamples, 3 * rate - NeoNui.appReferenceCapacity)
        // The render mixes what waits (in this render shape, the app's device thread calls it).
        var buffer = [Int16](repeating: 0, count: 1600)
        buffer.withUnsafeMutableBufferPointer { playback.render(into: $0) }
        XCTAssertEqual(nui.appReference.mixedSamples, 1600)
        playback.close()
        XCTAssertEqual(push(), .NUI_ERR_NO_DIALOG, "closed: to the front end again")
        // A second playback attached later starts with an empty mix.
        let again = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate), reference: nui)
        defer { again.close() }
        buffer.withUnsafeMutableBufferPointer { again.render(into: $0) }
        XCTAssertEqual(buffer, [Int16](repeating: 0, count: 1600))
        XCTAssertEqual(nui.appReference.mixedSamples, 1600, "the first playback's leftovers were dropped, not mixed")
    }
}
