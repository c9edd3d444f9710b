import AudioFrontEnd
import AudioPlayback
import Foundation
import NuiSDK
import NuiTTS
import XCTest

/// Records what a barge-in test needs: the task's audio (pcm), playback events with positions, the interruption.
final class BargeInRecorder: NeoNuiStreamInputTtsDelegate, @unchecked Sendable { // state under `condition`
    private let condition = NSCondition()
    private var events: [(StreamInputTtsPlaybackEvent, Int64)] = []
    private var bytes: [UInt8] = []
    private var interruptions: [StreamInputTtsInterruption] = []

    func onStreamInputTtsDataCallback(_ buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        guard let buffer else { return }
        let chunk = UnsafeRawBufferPointer(start: buffer, count: Int(len))
        condition.withLock { bytes += chunk }
    }
    func onStreamInputTtsPlaybackEventCallback(_ event: StreamInputTtsPlaybackEvent, sessionId: UnsafePointer<CChar>?,
                                               position_ms: Int64) {
        condition.withLock { events.append((event, position_ms)); condition.broadcast() }
    }
    func onStreamInputTtsInterruptedCallback(_ interruption: StreamInputTtsInterruption) {
        condition.withLock { interruptions.append(interruption); condition.broadcast() }
    }

    var playbackEvents: [(StreamInputTtsPlaybackEvent, Int64)] { condition.withLock { events } }
    var interruption: StreamInputTtsInterruption? { condition.withLock { interruptions.first } }
    /// The first interruption, waiting for it (its callback follows the TTS_PLAYBACK_INTERRUPTED event).
    func waitForInterruption(timeout: TimeInterval = 10) -> StreamInputTtsInterruption? {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while interruptions.isEmpty { if !condition.wait(until: deadline) { return nil } }
            return interruptions.first
        }
    }
    /// The task's audio as 16-bit samples (pcm format).
    var pcm: [Int16] {
        condition.withLock { stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) } }
    }
    func wait(for event: StreamInputTtsPlaybackEvent, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while !events.contains(where: { $0.0 == event }) { if !condition.wait(until: deadline) { return false } }
            return true
        }
    }
}

/// A room with a user in it: what the sink is given is played, its echo (RoomSink's two paths) plus the user's
/// voice — `nearend_16k.wav` from 2.9 s, "Set a timer for ten minutes.", whose speech starts 130 ms in — starting
/// `userDelay` samples after the first sample of the answer, is the front end's mic. Records every sample handed
/// to the device, and how many there were when the front end's barge-in event arrived.
final class TalkingRoomSink: PlaybackSink, FrontEndDelegate, @unchecked Sendable { // under `lock`
    /// Where the mic goes: a front end's `pushMic`, or the recognizer's `nui_update_audio_data`.
    let push: (UnsafeBufferPointer<Int16>) -> Void
    let user: [Int16]
    let userDelay: Int
    private let lock = NSLock()
    private var played: [Int16] = []
    private var answerStart: Int?
    private var history = [Float](repeating: 0, count: 400)
    private var frame = [Int16]()
    private var writtenAtBargeIn: [Int] = []
    private var speechStarts: [Int] = []
    private var speechEnds: [Int] = []

    convenience init(frontEnd: FrontEnd, userDelay: Int) throws {
        try self.init(userDelay: userDelay) { _ = frontEnd.pushMic(samples: $0) }
    }

    init(userDelay: Int, push: @escaping (UnsafeBufferPointer<Int16>) -> Void) throws {
        self.push = push
        self.userDelay = userDelay
        let file = try AudioFile(contentsOf: SynthesisServer.root.appendingPathComponent("TestVectors/nearend_16k.wav").path)
        user = file.samples[(Int(2.9 * 16000))..<(Int(5.0 * 16000))].map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) {
        frame.removeAll(keepingCapacity: true)
        let start = lock.withLock { () -> Int in
            if answerStart == nil, let loud = samples.firstIndex(where: { $0 != 0 }) { answerStart = played.count + loud }
            played += samples
            return played.count - samples.count
        }
        let userStart = userStartIndex
        for (i, sample) in samples.enumerated() {
            history.removeFirst()
            history.append(Float(sample))
            var mic = 0.63 * history[399 - 40] + 0.32 * history[399 - 200]
            if let userStart, start + i >= userStart, start + i - userStart < user.count { mic += Float(user[start + i - userStart]) }
            frame.append(Int16(max(-32768, min(32767, mic))))
        }
        frame.withUnsafeBufferPointer { push($0) }
        usleep(1000) // 10 ms of audio per ms
    }

    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        lock.withLock {
            if case .bargeIn = event { writtenAtBargeIn.append(played.count) }
            if case .speechStarted(let ms) = event { speechStarts.append(ms) }
            if case .speechEnded(let ms) = event { speechEnds.append(ms) }
        }
    }

    var userStartIndex: Int? { lock.withLock { answerStart.map { $0 + userDelay } } }
    /// Where the user's speech begins in the mic stream (the clip's first 130 ms are silence).
    var userOnsetIndex: Int? { userStartIndex.map { $0 + 130 * 16 } }
    var device: [Int16] { lock.withLock { played } }
    var bargeInsWritten: [Int] { lock.withLock { writtenAtBargeIn } }
    var speechStartMilliseconds: [Int] { lock.withLock { speechStarts } }
    var speechEndMilliseconds: [Int] { lock.withLock { speechEnds } }
}

/// Barge-in end to end (issue 14 part 4) with real components: the reference TTS server on 127.0.0.1, the SDK's
/// sink-shaped playback into a simulated room, a real front end cancelling the echo and deciding, and a user who
/// talks over the answer 2.5 s into it.
final class BargeInPlaybackTests: XCTestCase {
    static let parameters = #"{"model": "cosyvoice-v2", "voice": "espeak-en-us", "format": "pcm", "sample_rate": 16000, "word_timestamp_enabled": true}"#
    let rate = 16000

    func run(bargeIn: Bool) throws -> (TalkingRoomSink, BargeInRecorder, NeoNuiStreamInputTts, FrontEndSummary, SynthesisServer) {
        let server = try SynthesisServer()
        var configuration = FrontEndConfiguration()
        configuration.reference = .init(sampleRate: rate)
        let frontEnd = try FrontEnd(configuration: configuration)
        let room = try TalkingRoomSink(frontEnd: frontEnd, userDelay: 5 * rate / 2)
        frontEnd.delegate = room
        try frontEnd.start()
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                                  reference: frontEnd, sink: room)
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        let recorder = BargeInRecorder()
        tts.delegate = recorder
        XCTAssertEqual(tts.setPlayback(playback), .SUCCESS)
        XCTAssertEqual(tts.enableBargeIn(bargeIn), .SUCCESS)
        XCTAssertEqual(tts.isBargeInEnabled, bargeIn)
        let ticket = #"{"url": "\#(server.url)", "apikey": "sk-barge", "device_id": "d1"}"#
        XCTAssertEqual(tts.startStreamInputTts(ticket, parameters: Self.parameters, sessionId: "answer", logLevel: .NUI_LOG_LEVEL_NONE,
                                               saveLog: false), .SUCCESS)
        XCTAssertEqual(tts.sendStreamInputTts(StreamInputTtsPlaybackTests.text), .SUCCESS)
        XCTAssertTrue(recorder.wait(for: bargeIn ? .TTS_PLAYBACK_INTERRUPTED : .TTS_PLAYBACK_DRAINED), "\(recorder.playbackEvents)")
        if bargeIn {
            // Idle again: the next task starts (and is cancelled here).
            XCTAssertEqual(tts.startStreamInputTts(ticket, parameters: Self.parameters, sessionId: "next", logLevel: .NUI_LOG_LEVEL_NONE,
                                                   saveLog: false), .SUCCESS)
            XCTAssertEqual(tts.cancelStreamInputTts(), .SUCCESS)
        }
        usleep(300_000) // a little more room after the stop
        playback.close()
        let summary = try frontEnd.finish()
        return (room, recorder, tts, summary, server)
    }

    func testTheUserInterruptsTheAnswerPlaybackStopsAtOnceAndThePositionAndWordsHeardAreReported() throws {
        let (room, recorder, tts, summary, _) = try run(bargeIn: true)
        let names = recorder.playbackEvents.map(\.0)
        XCTAssertFalse(names.contains(.TTS_PLAYBACK_DRAINED), "\(names)")
        XCTAssertLessThan(names.firstIndex(of: .TTS_PLAYBACK_STOPPED) ?? 99, names.firstIndex(of: .TTS_PLAYBACK_INTERRUPTED) ?? -1)
        let interruption = try XCTUnwrap(recorder.waitForInterruption())
        let interruptedAt = recorder.playbackEvents.first { $0.0 == .TTS_PLAYBACK_INTERRUPTED }?.1
        XCTAssertEqual(interruption.positionMilliseconds, interruptedAt)
        XCTAssertEqual(interruption.sessionId, "answer")
        XCTAssertEqual(interruption.sampleRate, rate)
        XCTAssertGreaterThanOrEqual(summary.bargeIns, 1)

        // The position against the samples actually handed to the device: the answer's pcm runs in the device's
        // stream from where its first sample is, sample for sample, up to the stop; silence after.
        let device = room.device, pcm = recorder.pcm
        let deviceStart = try XCTUnwrap(device.firstIndex { $0 != 0 }), pcmStart = try XCTUnwrap(pcm.firstIndex { $0 != 0 })
        let offset = deviceStart - pcmStart
        var matched = 0
        while matched < pcm.count, offset + matched < device.count, device[offset + matched] == pcm[matched] { matched += 1 }
        var lastSpoken = 0
        for i in 0..<matched where pcm[i] != 0 { lastSpoken = i }
        XCTAssertTrue(device[(offset + matched)...].allSatisfy { $0 == 0 }, "the device got more of the answer after the stop")
        print("MEASURED barge-in: position \(interruption.positionSamples) samples, the device's stream matches the answer for "
              + "\(matched) (last non-zero \(lastSpoken)); decision \(interruption.decision); user's onset at "
              + "\((room.userOnsetIndex ?? 0) / 16) ms; speech starts \(room.speechStartMilliseconds) ms; heard "
              + "\(interruption.wordsHeard ?? -1) words, \(interruption.charactersHeard ?? -1) characters: \(interruption.textHeard ?? "nil")")
        // The device's stream tells where the stop was up to the silence around it: after the last non-silent
        // sample it got, no later than the first sample of the answer it did not get. Within 20 ms of that span.
        XCTAssertGreaterThanOrEqual(interruption.positionSamples + rate / 50, lastSpoken + 1, "position more than 20 ms early")
        XCTAssertLessThanOrEqual(interruption.positionSamples, matched + rate / 50, "position more than 20 ms late")

        // Stopped within one device buffer (10 ms) of the decision reaching the playback (the front end calls the
        // playback's handler before its delegate, which noted how much the device had been given).
        let given = try XCTUnwrap(room.bargeInsWritten.first)
        XCTAssertLessThanOrEqual(offset + interruption.positionSamples, given + rate / 100)

        // The decision: after the user's onset, within a generous second (the matrix measures the latency).
        let onset = try XCTUnwrap(room.userOnsetIndex) * 1000 / rate
        XCTAssertGreaterThan(interruption.decision.milliseconds, onset)
        XCTAssertLessThanOrEqual(interruption.decision.milliseconds, onset + 1000)
        // The recognizer keeps the first syllable: the front end's speech segment starts at the user's onset,
        // back-dated over the decision time; and none started on the answer's echo before it (issue 14: in some
        // runs one started 1,543 ms into the answer and stayed open into the user's speech; replayed offline, it
        // does when the player's play_start comes 38, 40 or 50 silent frames before the answer's first sound, as
        // the server's latency decides: FrontEndPlayHintLeadTests).
        XCTAssertTrue(room.speechStartMilliseconds.contains { $0 >= onset - 250 && $0 <= onset + 100 },
                      "no speech start near the user's onset \(onset) ms: starts \(room.speechStartMilliseconds), "
                      + "ends \(room.speechEndMilliseconds)")
        XCTAssertFalse(room.speechStartMilliseconds.contains { $0 < onset - 250 },
                       "a speech start on the answer's echo, before the user's onset \(onset) ms: \(room.speechStartMilliseconds)")

        // What was heard, from the word timestamps: a prefix of the text, every word of it ended before the stop.
        let heard = try XCTUnwrap(interruption.textHeard)
        let words = try XCTUnwrap(interruption.wordsHeard)
        XCTAssertGreaterThan(words, 2, "2.5 s of speech hold more than two words")
        XCTAssertEqual(interruption.charactersHeard, heard.unicodeScalars.count)
        let squeezed = { (s: String) in s.filter { !$0.isWhitespace } }
        XCTAssertTrue(squeezed(StreamInputTtsPlaybackTests.text).hasPrefix(squeezed(heard)), "'\(heard)' is not how the text begins")
        XCTAssertEqual(heard.split(separator: " ").count, words, "'\(heard)'")
        _ = tts
    }

    /// Barge-in off (the default): the front end still decides, but the answer plays to its end.
    func testWithoutBargeInTheAnswerPlaysOut() throws {
        let (_, recorder, _, summary, _) = try run(bargeIn: false)
        XCTAssertGreaterThanOrEqual(summary.bargeIns, 1, "the front end heard the user")
        XCTAssertFalse(recorder.playbackEvents.map(\.0).contains(.TTS_PLAYBACK_INTERRUPTED))
        XCTAssertNil(recorder.interruption)
    }

    func testEnablingNeedsASource() throws {
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        XCTAssertEqual(tts.enableBargeIn(true), .NUI_ERR_INVALID_PARAMETER_VALUE, "no playback attached")
        XCTAssertFalse(tts.isBargeInEnabled)
        let frontEnd = try FrontEnd()
        XCTAssertEqual(tts.enableBargeIn(true, source: frontEnd), .SUCCESS)
        XCTAssertTrue(tts.isBargeInEnabled)
        XCTAssertEqual(tts.enableBargeIn(false), .SUCCESS)
        XCTAssertFalse(tts.isBargeInEnabled)
    }
}
