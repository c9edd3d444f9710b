import AudioFrontEnd
import AudioPlayback
import XCTest

/// When the player tells its reference sink that playback started: with the utterance's first sample handed to
/// the device, not when the utterance began. A TTS task begins an utterance before the server's first audio
/// arrives (tens to hundreds of milliseconds, set by the server's latency and load); a play_start said then made
/// the front end run its cancellers over silent frames (session 11's false speech start, `FrontEndPlayHintLeadTests`).
final class PlayerPlayHintTests: XCTestCase {
    private let rate = 16000
    private let frames = 160

    func testPlayStartComesWithTheFirstSampleNotWithTheUtterancesBegin() throws {
        let reference = RecordingReference(capacity: 1 << 16)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: reference)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        try player.begin(format: .pcm, sampleRate: rate)
        usleep(100_000) // the worker takes the begin and marks the utterance's start (no audio yet)
        var buffer = [Int16](repeating: 0, count: frames)
        let waiting = 30 // 300 ms of the device playing silence while the server has not answered yet
        for _ in 0..<waiting { buffer.withUnsafeMutableBufferPointer { player.render(into: $0) } }
        XCTAssertEqual(reference.playingChanges, [], "play_start before the first sample")
        XCTAssertEqual(reference.count, waiting * frames, "the silence is still pushed as reference")

        let answer = [Int16](repeating: 900, count: 400)
        Bytes.littleEndian(answer).withUnsafeBytes { _ = player.enqueue($0) }
        player.endInput()
        let deadline = Date().addingTimeInterval(20)
        while player.bufferedFrames < answer.count && Date() < deadline { usleep(1000) }
        XCTAssertGreaterThanOrEqual(player.bufferedFrames, answer.count, "the worker did not decode in time")
        // The worker takes the end of input after the audio; a render that empties the ring before it has, finds
        // no end to drain to (seen under ThreadSanitizer: "started" before "inputEnded", no "drained").
        XCTAssertTrue(log.wait { $0.contains { $0.name == "inputEnded" } }, "the worker took the end of input")
        for _ in 0..<10 { buffer.withUnsafeMutableBufferPointer { player.render(into: $0) } }
        XCTAssertTrue(log.wait { $0.contains(where: \.isDrained) }, "\(log.all)")
        XCTAssertEqual(reference.playingChanges, [true, false])
        XCTAssertEqual(reference.playingPositions.first, waiting * frames,
                       "play_start with the buffer that holds the first sample, before its reference push")
        let firstSound = reference.samples.firstIndex { $0 != 0 }
        XCTAssertEqual(firstSound, waiting * frames)
        XCTAssertEqual(reference.playingPositions.last, waiting * frames + 3 * frames,
                       "play_over after the buffer that held the last sample (400 samples: the third buffer)")
        XCTAssertEqual(log.all.map(\.name), ["inputEnded", "started", "drained"])
    }
}
