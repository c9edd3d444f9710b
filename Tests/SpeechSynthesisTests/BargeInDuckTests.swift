import AudioFrontEnd
import AudioPlayback
import Foundation
import NuiTTS
import XCTest

/// A barge-in source the test fires by hand: what the SDK does with a suspicion (duck, not stop) is tested here;
/// that a front end reports suspicions is `FrontEndBargeInSuspicionTests`' part.
private final class HandFiredSource: BargeInSource, @unchecked Sendable { // under `lock`
    private let lock = NSLock()
    private var handler: (@Sendable (BargeInDecision) -> Void)?
    func setBargeInHandler(_ handler: (@Sendable (BargeInDecision) -> Void)?) { lock.withLock { self.handler = handler } }
    func fire(_ decision: BargeInDecision) { lock.withLock { handler }?(decision) }
}

/// Records what the device is handed (the playback thread), readable while it plays.
private final class RecordingSink: PlaybackSink, @unchecked Sendable { // under `lock`
    private let lock = NSLock()
    private var played: [Int16] = []
    func write(_ samples: UnsafeBufferPointer<Int16>) {
        lock.withLock { played += samples }
        usleep(1000) // 10 ms of audio per ms
    }
    var device: [Int16] { lock.withLock { played } }
    /// Samples handed since the answer's first non-zero sample (0 before it).
    var answerSamples: Int { lock.withLock { played.firstIndex { $0 != 0 }.map { played.count - $0 } ?? 0 } }
}

/// The SDK's side of a barge-in suspicion (``BargeInDecision/isSuspicion``): the answer that plays out is turned
/// down by the duck for its time and plays on to its end; no stop, no interruption; none while nothing plays;
/// duck settings out of range refused.
final class BargeInDuckTests: XCTestCase {
    let rate = 16000

    func testASuspicionDucksTheAnswerForItsTimeAndItPlaysOn() throws {
        let server = try SynthesisServer()
        let source = HandFiredSource()
        let sink = RecordingSink()
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                                  reference: nil, sink: sink)
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        let recorder = BargeInRecorder()
        tts.delegate = recorder
        XCTAssertEqual(tts.setPlayback(playback), .SUCCESS)
        XCTAssertEqual(tts.enableBargeIn(true, source: source, duckDecibels: 20, duckMilliseconds: 1000), .SUCCESS)
        source.fire(BargeInDecision(milliseconds: 10, speechStartMilliseconds: 0, sequence: 1, isSuspicion: true))
        let ticket = #"{"url": "\#(server.url)", "apikey": "sk-duck", "device_id": "d1"}"#
        XCTAssertEqual(tts.startStreamInputTts(ticket, parameters: BargeInPlaybackTests.parameters, sessionId: "answer",
                                               logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertEqual(tts.sendStreamInputTts(StreamInputTtsPlaybackTests.text), .SUCCESS)
        let deadline = Date().addingTimeInterval(30)
        while sink.answerSamples < rate, Date() < deadline { usleep(2000) } // one second into the answer
        XCTAssertGreaterThanOrEqual(sink.answerSamples, rate, "the answer did not play")
        source.fire(BargeInDecision(milliseconds: 1000, speechStartMilliseconds: 900, sequence: 2, isSuspicion: true))
        XCTAssertTrue(recorder.wait(for: .TTS_PLAYBACK_DRAINED), "\(recorder.playbackEvents)")
        _ = tts.stopStreamInputTts()
        playback.close()

        let names = recorder.playbackEvents.map(\.0)
        XCTAssertFalse(names.contains(.TTS_PLAYBACK_STOPPED), "\(names)")
        XCTAssertFalse(names.contains(.TTS_PLAYBACK_INTERRUPTED), "\(names)")
        XCTAssertNil(recorder.interruption)
        // The device's stream against the answer: equal but for one span of at most 1 s and a buffer (the duck and
        // its ramps; where the answer is silent at either end, shorter), where it is the answer at a tenth (20 dB),
        // within rounding.
        let device = sink.device, pcm = recorder.pcm
        let deviceStart = try XCTUnwrap(device.firstIndex { $0 != 0 }), pcmStart = try XCTUnwrap(pcm.firstIndex { $0 != 0 })
        let offset = deviceStart - pcmStart
        XCTAssertGreaterThanOrEqual(device.count - offset, pcm.count, "the whole answer was handed to the device")
        let differing = (0..<pcm.count).filter { device[offset + $0] != pcm[$0] }
        let first = try XCTUnwrap(differing.first), last = try XCTUnwrap(differing.last)
        let span = (last - first + 1) * 1000 / rate
        print("MEASURED duck: \(span) ms from \(first * 1000 / rate) ms into the answer")
        XCTAssertGreaterThanOrEqual(first, pcmStart + rate, "ducked before the suspicion (the one while idle did nothing)")
        XCTAssertTrue((600...1010).contains(span), "the duck lasted \(span) ms")
        for i in (first + rate / 100)...(last - rate / 100) {
            XCTAssertLessThanOrEqual(abs(Int(device[offset + i]) - Int((Float(pcm[i]) * 0.1).rounded())), 1, "sample \(i)")
        }
    }

    func testDuckSettingsOutOfRangeAreRefusedAndTheSettingStays() throws {
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        let source = HandFiredSource()
        XCTAssertEqual(tts.enableBargeIn(true, source: source), .SUCCESS)
        XCTAssertEqual(tts.enableBargeIn(true, source: source, duckDecibels: 91), .NUI_ERR_INVALID_PARAMETER_VALUE)
        XCTAssertEqual(tts.enableBargeIn(true, source: source, duckDecibels: .nan), .NUI_ERR_INVALID_PARAMETER_VALUE)
        XCTAssertEqual(tts.enableBargeIn(true, source: source, duckMilliseconds: -1), .NUI_ERR_INVALID_PARAMETER_VALUE)
        XCTAssertTrue(tts.isBargeInEnabled, "a refused call leaves barge-in as it was")
        XCTAssertEqual(tts.enableBargeIn(false), .SUCCESS)
    }
}
