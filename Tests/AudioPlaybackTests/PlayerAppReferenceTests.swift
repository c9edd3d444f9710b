import AllocationCounter
import AudioFrontEnd
import AudioPlayback
import Foundation
import XCTest

/// Issue 14 §3, "it still may for its own sounds": the app plays an earcon through its own output while the
/// player speaks, pushes it with `pushAppReference`, and the player mixes it into the one reference stream it
/// pushes (instead of a second stream interleaved with its own).
final class PlayerAppReferenceTests: XCTestCase {
    let rate = 16000, frames = 160

    /// A two-tone earcon (880 Hz then 660 Hz, 150 ms each, −12 dBFS) every 700 ms: the app's own sound.
    func earcon(at sample: Int) -> Int16 {
        let t = sample % (rate * 7 / 10)
        guard t < rate * 3 / 10 else { return 0 }
        let f = t < rate * 3 / 20 ? 880.0 : 660.0
        return Int16(8000 * sin(2 * Double.pi * f * Double(sample) / Double(rate)))
    }

    struct Run { var erle: Double; var counts: PlaybackCounts; var overflow: Int; var missing: Int; var mixed: Int }

    /// The room hears the player's output plus the app's earcon (2.5 ms direct at −4 dB, 12.5 ms reflection at
    /// −10 dB); the app pushes the earcon, as it plays it, with `pushAppReference` when `pushingEarcon`.
    func run(pushingEarcon: Bool) throws -> Run {
        let (frontEnd, collector) = try OutputCollector.startedFrontEnd(rate: rate)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                         reference: frontEnd)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        let pages = Feed.oggPages(try EncodedInputs.opus(try EncodedInputs.speech(rate: 24000)))
        try player.play(.opus, sampleRate: 24000, pieces: pages)
        try player.play(.opus, sampleRate: 24000, pieces: pages)
        XCTAssertTrue(log.wait { $0.filter(\.isInputEnded).count == 2 })
        player.setAppPlaying(true)
        var history = [Float](repeating: 0, count: 400)
        var mic: [Int16] = [], out = [Int16](repeating: 0, count: frames), app = [Int16](repeating: 0, count: frames)
        var micFrame = [Int16](repeating: 0, count: frames)
        while !log.has({ if case .drained(2, _) = $0 { return true }; return false }) && mic.count < 20 * rate {
            for i in 0..<frames { app[i] = earcon(at: mic.count + i) }
            if pushingEarcon {
                let result = app.withUnsafeBufferPointer { player.pushAppReference(samples: $0) }
                XCTAssertEqual(result, PushResult(status: .ok, accepted: frames))
            }
            out.withUnsafeMutableBufferPointer { player.render(into: $0) }
            for i in 0..<frames {
                history.removeFirst()
                history.append(Float(Int32(out[i]) + Int32(app[i])))
                micFrame[i] = Int16(clamping: Int(0.63 * history[399 - 40] + 0.32 * history[399 - 200]))
            }
            mic += micFrame
            _ = micFrame.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            if mic.count % (rate / 2) == 0 { usleep(2000) }
        }
        player.setAppPlaying(false)
        _ = try frontEnd.finish()
        let output = collector.audio
        var echo = 0.0, residual = 0.0
        for block in stride(from: mic.count / 2, to: min(mic.count, output.count) - 1600, by: 1600) {
            let e = (block..<(block + 1600)).reduce(0.0) { $0 + Double(mic[$1]) * Double(mic[$1]) }
            guard e / 1600 > 300 * 300 else { continue }
            echo += e
            residual += (block..<(block + 1600)).reduce(0.0) { $0 + Double(output[$1]) * Double(output[$1]) }
        }
        XCTAssertGreaterThan(echo, 0)
        let mix = player.appReference
        return Run(erle: 10 * log10(echo / max(residual, 1)), counts: player.counts, overflow: mix.overflowSamples,
                   missing: mix.missingSamples, mixed: mix.mixedSamples)
    }

    func testTheAppsEarconIsMixedIntoThePlayersReferenceAndCancelled() throws {
        let mixed = try run(pushingEarcon: true)
        let control = try run(pushingEarcon: false)
        print("TTS + the app's earcon in the room: ERLE \(String(format: "%.1f", mixed.erle)) dB with the earcon pushed "
              + "(\(mixed.mixed) samples mixed, overflow \(mixed.overflow), missing \(mixed.missing)), "
              + "\(String(format: "%.1f", control.erle)) dB without")
        XCTAssertGreaterThanOrEqual(mixed.erle, 30, "the front end cancels both the speech and the app's earcon")
        XCTAssertLessThan(control.erle, mixed.erle - 10, "the earcon not in the reference stays in the output (not vacuous)")
        XCTAssertEqual(mixed.overflow, 0)
        XCTAssertEqual(mixed.missing, 0)
        XCTAssertEqual(mixed.counts.refusedReferenceSamples, 0)
        XCTAssertEqual(mixed.counts.referenceSamplesPushed, mixed.counts.renderedFrames, "one reference stream, not two")
        XCTAssertEqual(mixed.mixed, mixed.counts.renderedFrames, "every earcon sample mixed in the render that followed its push")
    }

    /// The mix is exact: the reference is the device buffer plus the app's samples (saturating), the device buffer
    /// itself is not touched (the app plays its sounds through its own output).
    func testTheReferenceIsTheDeviceBufferPlusTheAppsSamples() throws {
        let reference = RecordingReference(capacity: 1 << 16)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: reference)
        defer { player.close() }
        let app = (0..<frames).map { Int16($0 * 100 - 8000) } + [Int16](repeating: 30000, count: frames)
        XCTAssertEqual(app.withUnsafeBufferPointer { player.pushAppReference(samples: $0) }.accepted, 2 * frames)
        var out = [Int16](repeating: 1, count: 3 * frames)
        out.withUnsafeMutableBufferPointer { player.render(into: $0) }
        XCTAssertEqual(out, [Int16](repeating: 0, count: 3 * frames), "the device gets the player's silence, not the app's sound")
        XCTAssertEqual(reference.samples, app + [Int16](repeating: 0, count: frames))
        XCTAssertEqual(player.appReference.missingSamples, 0, "the app said nothing plays: the absent rest is not counted")
    }

    func testOverflowAndMissingSamplesAreCounted() throws {
        let reference = RecordingReference(capacity: 1 << 16)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: reference)
        defer { player.close() }
        let capacity = player.appReference.capacity
        XCTAssertGreaterThanOrEqual(capacity, rate / 2)
        // The app pushes ahead: what does not fit is refused, counted, and nothing waiting is overwritten.
        let ahead = [Int16](repeating: 7, count: capacity + 500)
        XCTAssertEqual(ahead.withUnsafeBufferPointer { player.pushAppReference(samples: $0) },
                       PushResult(status: .bufferFull, accepted: capacity))
        XCTAssertEqual(player.appReference.overflowSamples, 500)
        var out = [Int16](repeating: 0, count: capacity)
        out.withUnsafeMutableBufferPointer { player.render(into: $0) }
        XCTAssertEqual(reference.samples, [Int16](repeating: 7, count: capacity))
        // The app says it plays but its samples come late: the gap is mixed as silence and counted.
        player.setAppPlaying(true)
        let some = [Int16](repeating: 5, count: 100)
        _ = some.withUnsafeBufferPointer { player.pushAppReference(samples: $0) }
        var buffer = [Int16](repeating: 0, count: frames)
        buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }
        XCTAssertEqual(player.appReference.missingSamples, frames - 100)
        buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }
        XCTAssertEqual(player.appReference.missingSamples, 2 * frames - 100)
        player.setAppPlaying(false)
        buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }
        XCTAssertEqual(player.appReference.missingSamples, 2 * frames - 100, "nothing is missing once the app's sound is over")
        XCTAssertEqual(player.appReference.overflowSamples, 500)
    }

    /// playing = the app's sound or the player's speech plays: the sink hears one change each way.
    func testPlayingIsEitherTheAppsSoundOrThePlayersSpeech() throws {
        let reference = RecordingReference(capacity: 1 << 20)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: reference)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        var buffer = [Int16](repeating: 0, count: frames)
        func render(_ n: Int = 1) { for _ in 0..<n { buffer.withUnsafeMutableBufferPointer { player.render(into: $0) } } }
        player.setAppPlaying(true)
        render()
        XCTAssertEqual(reference.playingChanges, [true], "the app's play_start")
        // The player speaks an utterance while the app's sound plays on: still playing after it drained.
        let tone = (0..<(rate / 10)).map { Int16(3000 * sin(Double($0) * 0.3)) }
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian(tone)])
        XCTAssertTrue(log.wait { $0.contains(where: \.isInputEnded) })
        render(20)
        XCTAssertTrue(log.wait { $0.contains(where: \.isDrained) })
        XCTAssertEqual(reference.playingChanges, [true])
        player.setAppPlaying(false)
        render()
        XCTAssertEqual(reference.playingChanges, [true, false], "the app's play_over with the player silent")
        // The other order: the player speaks, the app's sound starts and ends during it.
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian(tone)])
        XCTAssertTrue(log.wait { $0.filter(\.isInputEnded).count == 2 })
        render()
        player.setAppPlaying(true)
        render()
        player.setAppPlaying(false)
        render()
        XCTAssertEqual(reference.playingChanges, [true, false, true], "the app's play_over while the player speaks changes nothing")
        render(20)
        XCTAssertTrue(log.wait { $0.filter(\.isDrained).count == 2 })
        XCTAssertEqual(reference.playingChanges, [true, false, true, false])
    }

    func testMixingAllocatesAndLocksNothingOnEitherSide() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1 && afe_lock_counter_available() == 1,
                          "allocation counting is off under sanitizers")
        var configuration = FrontEndConfiguration()
        configuration.reference = .init(sampleRate: rate)
        let frontEnd = try FrontEnd(configuration: configuration)
        try frontEnd.start()
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: frontEnd)
        defer { player.close() }
        let app = (0..<frames).map { Int16(truncatingIfNeeded: $0 * 37) }
        var out = [Int16](repeating: 0, count: frames), mic = [Int16](repeating: 0, count: frames)
        var allocations: Int64 = -1
        var locks = afe_lock_counts()
        player.setAppPlaying(true)
        app.withUnsafeBufferPointer { appBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                mic.withUnsafeMutableBufferPointer { micBuffer in
                    for call in 0..<300 {
                        if call == 100 { afe_allocation_counter_start(); afe_lock_counter_start() }
                        _ = player.pushAppReference(samples: appBuffer) // the app's thread, here the same one
                        player.setAppPlaying(call % 50 != 0)
                        player.render(into: outBuffer)
                        for i in 0..<frames { micBuffer[i] = appBuffer[i] / 2 }
                        _ = frontEnd.pushMic(samples: UnsafeBufferPointer(micBuffer))
                    }
                    allocations = afe_allocation_counter_stop()
                    locks = afe_lock_counter_stop()
                }
            }
        }
        XCTAssertEqual(allocations, 0, "allocations in pushAppReference + render + reference push after 100 buffers")
        XCTAssertEqual(player.appReference.overflowSamples, 0)
        XCTAssertEqual(player.appReference.missingSamples, 0)
        _ = try frontEnd.finish()
        // Locks: the mix on both sides and the render, into a recording sink (the front end's own pushes are
        // another test's subject).
        let recording = RecordingReference(capacity: 1 << 16)
        let second = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: recording)
        defer { second.close() }
        app.withUnsafeBufferPointer { appBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                afe_lock_counter_start()
                for call in 0..<200 {
                    _ = second.pushAppReference(samples: appBuffer)
                    second.setAppPlaying(call % 50 != 0)
                    second.render(into: outBuffer)
                }
                locks = afe_lock_counter_stop()
            }
        }
        XCTAssertEqual(locks.mutex_locks + locks.mutex_trylocks + locks.rwlocks + locks.semaphore_waits, 0,
                       "locks in pushAppReference + setAppPlaying + render")
        XCTAssertEqual(recording.count, 200 * frames)
    }
}
