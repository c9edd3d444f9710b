import AllocationCounter
import AudioFrontEnd
import AudioPlayback
import XCTest

/// The player against a simulated device: the test thread is the audio thread and calls render with 10 ms
/// buffers. What is compared is the player's own integer output (byte-exact is right for it): the rendered audio
/// against the same stream decoded alone, times the volume; the reference against the rendered audio.
final class PlayerTests: XCTestCase {
    private let rate = 16000
    private let frames = 160

    private func speechOpus() throws -> (pages: [[UInt8]], decoded: [Int16]) {
        let bytes = try EncodedInputs.opus(try EncodedInputs.speech(rate: rate))
        let decoded = Feed.decode(try PlaybackDecoder(format: .opus, sampleRate: rate, outputRate: rate), bytes, splits: [bytes.count])
        XCTAssertNil(decoded.error)
        return (Feed.oggPages(bytes), decoded.samples)
    }

    /// Waits (at most 20 s: a loaded machine) until the worker has decoded `frames` frames ahead of the device.
    private func waitUntilBuffered(_ player: SynthesisPlayer, _ frames: Int) {
        let deadline = Date().addingTimeInterval(20)
        while player.bufferedFrames < frames && Date() < deadline { usleep(1000) }
        XCTAssertGreaterThanOrEqual(player.bufferedFrames, frames, "the worker did not decode in time")
    }

    func testRenderedIsDecodedTimesVolumeAndReferenceIsRenderedWithPositionAndEvents() throws {
        let (pages, decoded) = try speechOpus()
        for (channels, volume) in [(1, Float(0.5)), (2, Float(1))] {
            let reference = RecordingReference(capacity: 4 * decoded.count + 100_000)
            // A buffer that holds the whole utterance: it is decoded before rendering begins.
            let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate, channelCount: channels,
                                                                                  bufferMilliseconds: 20_000),
                                             reference: reference)
            defer { player.close() }
            let log = EventLog()
            log.attach(to: player)
            player.volume = volume
            try player.play(.opus, sampleRate: rate, pieces: pages)
            XCTAssertTrue(log.wait { $0.contains(where: \.isInputEnded) }, "\(log.all)")
            var rendered: [Int16] = []
            var buffer = [Int16](repeating: 0, count: frames * channels)
            var calls = 0
            var worstPositionError = 0
            while !log.has(\.isRearmed), calls < 20_000 {
                buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }
                calls += 1
                rendered += buffer
                // Everything was decoded before rendering began, so the position is the frames handed so far.
                let expected = min(calls * frames, decoded.count)
                worstPositionError = max(worstPositionError, abs(player.playedPosition.samples - expected))
                usleep(calls % 50 == 0 ? 1000 : 0)
            }
            let label = "\(channels) channel(s), volume \(volume)"
            let mono = stride(from: 0, to: rendered.count, by: channels).map { rendered[$0] }
            let expected = decoded.map { volume == 1 ? $0 : Int16((Float($0) * volume).rounded()) }
            XCTAssertEqual(Array(mono.prefix(expected.count)), expected, label)
            XCTAssertTrue(mono.dropFirst(expected.count).allSatisfy { $0 == 0 }, label)
            if channels == 2 { XCTAssertTrue(stride(from: 0, to: rendered.count, by: 2).allSatisfy { rendered[$0] == rendered[$0 + 1] }) }
            // The reference is the rendered audio, exactly: the answer and the silence after it (idle buffers are
            // pushed too, keeping the reference sample-aligned with the mic).
            XCTAssertEqual(reference.samples, rendered, label)
            XCTAssertEqual(reference.playingChanges, [true, false], label)
            XCTAssertLessThanOrEqual(worstPositionError * 1000 / rate, 20, "played position vs samples handed, \(label)")
            XCTAssertEqual(worstPositionError, 0, label)
            XCTAssertEqual(log.all.map(\.name), ["inputEnded", "started", "drained", "micRearmed"], label)
            XCTAssertTrue(log.all.contains(.drained(utterance: 1, position: PlayedPosition(samples: decoded.count, sampleRate: rate))))
            var expectedCounts = PlaybackCounts()
            expectedCounts.renderedFrames = calls * frames
            expectedCounts.referenceSamplesPushed = reference.count
            XCTAssertEqual(player.counts, expectedCounts, label)
        }
    }

    func testStopTakesEffectAtTheNextBufferAndTheNextUtterancePlays() throws {
        let (source, _) = try EncodedInputs.samples(try EncodedInputs.speech(rate: rate))
        let pcm = Bytes.littleEndian(source)
        let reference = RecordingReference(capacity: 4 * source.count)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: reference)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        try player.play(.pcm, sampleRate: rate, pieces: stride(from: 0, to: pcm.count, by: 3200).map { Array(pcm[$0..<min($0 + 3200, pcm.count)]) },
                        end: false)
        waitUntilBuffered(player, 50 * frames)
        var buffer = [Int16](repeating: 0, count: frames)
        for _ in 0..<50 { buffer.withUnsafeMutableBufferPointer { player.render(into: $0) } }
        XCTAssertEqual(player.playedPosition.samples, 50 * frames)
        let pushedBeforeStop = reference.count
        player.stop()
        for _ in 0..<30 {
            buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }
            XCTAssertTrue(buffer.allSatisfy { $0 == 0 }, "audio after stop()")
        }
        // After the stop the device gets silence, and so does the reference: every buffer, in place.
        XCTAssertEqual(reference.count, pushedBeforeStop + 30 * frames, "the silence after stop() is the reference")
        XCTAssertTrue(reference.samples.dropFirst(pushedBeforeStop).allSatisfy { $0 == 0 })
        XCTAssertEqual(reference.playingChanges, [true, false])
        XCTAssertTrue(log.wait { $0.contains(where: \.isStopped) })
        XCTAssertTrue(log.all.contains(.stopped(utterance: 1, position: PlayedPosition(samples: 50 * frames, sampleRate: rate))), "\(log.all)")
        // Input for the stopped utterance is dropped; the next utterance plays from its first sample.
        pcm.withUnsafeBytes { _ = player.enqueue(UnsafeRawBufferPointer(rebasing: $0[0..<640])) }
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian([1000, 2000, 3000])])
        XCTAssertTrue(log.wait { $0.filter(\.isInputEnded).count == 1 })
        var next: [Int16] = []
        for _ in 0..<5 { buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }; next += buffer }
        XCTAssertEqual(Array(next.prefix(4)), [1000, 2000, 3000, 0])
        XCTAssertTrue(log.wait { $0.contains(.drained(utterance: 2, position: PlayedPosition(samples: 3, sampleRate: self.rate))) }, "\(log.all)")
    }

    func testBackToBackUtterancesDrainEachAndPlayingChangesOnce() throws {
        let reference = RecordingReference(capacity: 1 << 16)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: reference)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian([Int16](repeating: 5, count: 250))])
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian([Int16](repeating: 9, count: 130))])
        XCTAssertTrue(log.wait { $0.filter(\.isInputEnded).count == 2 })
        var buffer = [Int16](repeating: 0, count: frames)
        var rendered: [Int16] = []
        for _ in 0..<80 { buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }; rendered += buffer }
        XCTAssertEqual(Array(rendered.prefix(381)), [Int16](repeating: 5, count: 250) + [Int16](repeating: 9, count: 130) + [0])
        XCTAssertTrue(log.wait { $0.contains(where: \.isRearmed) })
        XCTAssertEqual(log.all.map(\.name), ["inputEnded", "inputEnded", "started", "drained", "started", "drained", "micRearmed"])
        XCTAssertTrue(log.all.contains(.drained(utterance: 1, position: PlayedPosition(samples: 250, sampleRate: rate))))
        XCTAssertTrue(log.all.contains(.drained(utterance: 2, position: PlayedPosition(samples: 130, sampleRate: rate))))
        XCTAssertEqual(reference.playingChanges, [true, false], "one playback, two utterances")
        XCTAssertEqual(reference.samples, rendered, "every buffer, the silence after the two included")
        XCTAssertEqual(player.counts.underrunFrames, 0)
    }

    func testSettingsOutOfRangeAndAFrontEndOfAnotherFormatAreRefused() throws {
        for bad in [PlaybackConfiguration(sampleRate: 7999), PlaybackConfiguration(channelCount: 3),
                    PlaybackConfiguration(bufferMilliseconds: 10), PlaybackConfiguration(inputCapacityBytes: 1),
                    PlaybackConfiguration(maximumRenderFrames: 1 << 20), PlaybackConfiguration(rearmAfterMilliseconds: -1),
                    PlaybackConfiguration(resamplerQuality: 11)] {
            XCTAssertThrowsError(try SynthesisPlayer(configuration: bad), "\(bad)")
        }
        var configuration = FrontEndConfiguration()
        configuration.reference = .init(sampleRate: 48000)
        let frontEnd = try FrontEnd(configuration: configuration)
        XCTAssertThrowsError(try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: frontEnd)) {
            XCTAssertEqual(($0 as? AudioFrontEndError)?.code, .invalidConfiguration)
        }
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate))
        defer { player.close() }
        XCTAssertEqual(Bytes.littleEndian([1]).withUnsafeBytes { player.enqueue($0) }, 0, "input outside an utterance")
        XCTAssertEqual(player.counts.refusedInputBytes, 2)
        try player.begin(format: .pcm, sampleRate: rate)
        XCTAssertThrowsError(try player.begin(format: .pcm, sampleRate: rate), "begin before endInput")
        player.volume = 7
        XCTAssertEqual(player.volume, 1)
        player.volume = .nan
        XCTAssertEqual(player.volume, 0)
    }

    func testAStreamThatFailsReportsItPlaysWhatCameBeforeAndStillDrains() throws {
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate))
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        // A wav stream whose data chunk is cut short: its 100 samples play, then truncated is reported.
        var header = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0]
        header += [0x80, 0x3E, 0, 0, 0, 0x7D, 0, 0, 2, 0, 16, 0] + Array("data".utf8) + [0x90, 0x01, 0, 0] // 400 bytes claimed
        try player.play(.wav, sampleRate: rate, pieces: [header, Bytes.littleEndian([Int16](repeating: 3, count: 100))])
        // And garbage as opus: nothing plays.
        try player.play(.opus, sampleRate: rate, pieces: [[UInt8](repeating: 0x4F, count: 3000)])
        XCTAssertTrue(log.wait { $0.filter(\.isInputEnded).count == 2 })
        var buffer = [Int16](repeating: 0, count: frames)
        for _ in 0..<3 { buffer.withUnsafeMutableBufferPointer { player.render(into: $0) } }
        XCTAssertTrue(log.wait { $0.filter(\.isDrained).count == 2 }, "\(log.all)")
        let failures = log.all.compactMap { if case .decodeFailed(let u, let e) = $0 { return (u, e.code) }; return nil }
        XCTAssertEqual(failures.map(\.0), [1, 2])
        XCTAssertEqual(failures.map(\.1), [.truncated, .truncated])
        XCTAssertTrue(log.all.contains(.drained(utterance: 1, position: PlayedPosition(samples: 100, sampleRate: rate))))
        XCTAssertTrue(log.all.contains(.drained(utterance: 2, position: PlayedPosition(samples: 0, sampleRate: rate))))
        XCTAssertGreaterThan(player.decodeCounts.errors, 0)
    }

    func testUnderrunIsSilenceAndCounted() throws {
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate))
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian([Int16](repeating: 7, count: 200))], end: false)
        waitUntilBuffered(player, 200) // the worker decodes the 200 samples
        var buffer = [Int16](repeating: 0, count: frames)
        for _ in 0..<3 { buffer.withUnsafeMutableBufferPointer { player.render(into: $0) } }
        XCTAssertEqual(player.counts.underrunFrames, 3 * frames - 200)
        XCTAssertEqual(player.playedPosition.samples, 200)
        player.endInput()
        XCTAssertTrue(log.wait { $0.contains(where: \.isInputEnded) })
        buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }
        XCTAssertTrue(log.wait { $0.contains(where: \.isDrained) })
    }

    func testRenderPathAllocatesNothingAfterWarmUpWithARealFrontEnd() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        var configuration = FrontEndConfiguration()
        configuration.reference = .init(sampleRate: rate)
        let frontEnd = try FrontEnd(configuration: configuration)
        try frontEnd.start()
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                         reference: frontEnd)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        let (source, _) = try EncodedInputs.samples(try EncodedInputs.speech(rate: rate))
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian(source)])
        XCTAssertTrue(log.wait { $0.contains(where: \.isInputEnded) })
        player.volume = 0.8
        var buffer = [Int16](repeating: 0, count: frames)
        var mic = [Int16](repeating: 0, count: frames)
        var allocations: Int64 = -1
        buffer.withUnsafeMutableBufferPointer { out in
            mic.withUnsafeMutableBufferPointer { micBuffer in
                for call in 0..<(source.count / frames) {
                    if call == 100 { afe_allocation_counter_start() }
                    player.render(into: out)
                    for i in 0..<frames { micBuffer[i] = out[i] / 2 }
                    _ = frontEnd.pushMic(samples: UnsafeBufferPointer(micBuffer))
                }
                allocations = afe_allocation_counter_stop()
            }
        }
        XCTAssertEqual(allocations, 0, "allocations on the render thread (render + reference push + mic push) after 100 buffers")
        let summary = try frontEnd.finish()
        XCTAssertEqual(summary.referenceSamplesPushed, source.count / frames * frames)
        XCTAssertEqual(summary.drops.referenceRefusedBytes, 0)
        XCTAssertEqual(player.counts.refusedReferenceSamples, 0)
    }

    func testSinkPlaybackInRealTimeWritesWhatItPushes() throws {
        final class Collecting: PlaybackSink, @unchecked Sendable {
            var samples: [Int16] = []
            func write(_ buffer: UnsafeBufferPointer<Int16>) { samples += buffer }
        }
        let reference = RecordingReference(capacity: 1 << 20)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: reference)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        let sink = Collecting()
        let output = try SinkPlayback(player: player, sink: sink, pacing: .realTime, bufferMilliseconds: 10)
        output.start()
        let tone = (0..<8000).map { Int16(5000 + 4000 * sin(Double($0) * 0.05)) } // 0.5 s, never 0
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian(tone)])
        XCTAssertTrue(log.wait { $0.contains(where: \.isDrained) })
        output.stop()
        // Real time: 0.5 s of audio took at least 0.5 s of buffers (generous bound, no upper bound on a busy machine).
        XCTAssertGreaterThanOrEqual(output.buffersWritten, 50)
        let played = sink.samples.filter { $0 != 0 }
        XCTAssertEqual(played, tone)
        // The reference is what the sink got, buffer for buffer, the silence before and after the tone included.
        XCTAssertEqual(reference.samples, sink.samples, "reference is not what the sink got")
        XCTAssertEqual(reference.samples.filter { $0 != 0 }, tone)
    }
}
