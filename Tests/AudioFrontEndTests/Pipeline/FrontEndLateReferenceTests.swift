import AudioFrontEnd
import XCTest

/// A reference stream whose first sample came after the mic's: reference is placed by sample count, so such a
/// stream stays behind the mic by its late start for good, and with a short echo path every frame finds its
/// reference not there yet (read as silence, counted missing): nothing is cancelled. This happened in CI: a
/// NeoNui dialog's new front end got the mic push of a render cycle before its reference push, and the whole
/// answer's echo went uncancelled (and so no barge-in). The front end re-anchors a reference that keeps
/// arriving behind the mic; a reference that stalls and then catches up keeps its alignment.
final class FrontEndLateReferenceTests: XCTestCase {
    static let rate = 16000

    /// A room with a short echo path (2.5 ms and 12.5 ms, as TalkingRoomSink): what is played at mic sample `n`
    /// is heard from `n + 40`.
    static func room(_ far: [Int16]) -> [Int16] {
        far.indices.map { n in
            let direct = n >= 40 ? 0.63 * Double(far[n - 40]) : 0
            let wall = n >= 200 ? 0.32 * Double(far[n - 200]) : 0
            return Int16(clamping: Int((direct + wall).rounded()))
        }
    }

    /// Pushes `mic` in 10 ms chunks; before each chunk `i`, the reference chunk `referenceFor(i)` (if any).
    /// `player`: the reference is a player's (``FrontEnd/startReferenceAtMic()``).
    static func run(mic: [Int16], player: Bool = false, reference: (Int) -> ArraySlice<Int16>?) throws -> FrontEndCollector {
        let (frontEnd, collector) = try FrontEndHarness.started(FrontEndConfiguration())
        if player { frontEnd.startReferenceAtMic() }
        for (i, start) in stride(from: 0, to: mic.count, by: 160).enumerated() {
            if let chunk = reference(i), !chunk.isEmpty {
                XCTAssertEqual(chunk.withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }.status, .ok)
            }
            XCTAssertEqual(mic[start..<min(mic.count, start + 160)].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }.status, .ok)
        }
        try frontEnd.finish()
        return collector
    }

    /// The stream starts one push late (the mic's first push came first) and stays one push behind.
    func testAReferenceThatStartedOnePushLateIsReanchored() throws {
        let far = try StageRunner.samples("farend_16k.wav")
        let mic = Self.room(far)
        let result = try Self.run(mic: mic) { i in
            i == 0 ? nil : far[((i - 1) * 160)..<min(far.count, i * 160)]
        }
        try check(result, mic: mic, from: Self.rate, label: "one push late")
    }

    /// A player that pushes each buffer's reference just before it writes the buffer to the device, and a front end
    /// that starts between the two (a NeoNui dialog starting while `StreamInputTtsPlayback` runs): the first
    /// buffer's echo is taken without its reference, so the reference starts one buffer into the mic. Its first
    /// sample is placed there: nothing is read before it arrived. Before, it was placed at 0, a buffer too early, and
    /// every read found it not there yet (15,360 samples counted missing here) until the late reads re-anchored it.
    func testAPlayersReferenceWhoseFirstBufferWasRefusedStartsBesideItsMic() throws {
        let far = try StageRunner.samples("farend_16k.wav")
        let mic = Self.room(far)
        let result = try Self.run(mic: mic, player: true) { i in
            i == 0 ? nil : far[(i * 160)..<min(far.count, (i + 1) * 160)]
        }
        try check(result, mic: mic, from: Self.rate / 2, label: "first buffer refused")
        XCTAssertEqual(result.summary?.drops.referenceMissingSamples, 0, "a reference read before it was pushed")
    }

    /// No reference at all for the first 3 s (nothing played, no play_start hint), then the reference as played.
    func testAReferenceThatStartsSecondsAfterTheMicWithoutAHintIsReanchored() throws {
        let far = try StageRunner.samples("farend_16k.wav")
        let lead = 3 * Self.rate
        let played = [Int16](repeating: 0, count: lead) + far
        let mic = Self.room(played)
        let result = try Self.run(mic: mic) { i in
            i * 160 < lead ? nil : played[(i * 160)..<min(played.count, (i + 1) * 160)]
        }
        try check(result, mic: mic, from: lead + Self.rate, label: "started 3 s late")
    }

    /// A reference thread that stalls for 300 ms and then pushes what it owed at once: its samples are where they
    /// belong, so the alignment is kept (no re-anchoring) and the echo after the stall is cancelled at once.
    func testAReferenceThatStallsAndCatchesUpKeepsItsAlignment() throws {
        let mic = try StageRunner.samples("echo_d120ms_16k.wav")
        let far = try StageRunner.samples("farend_16k.wav")
        let stall = 800..<830 // chunks: 8.0 to 8.3 s
        let result = try Self.run(mic: mic) { i in
            if stall.contains(i) { return nil }
            let from = i == stall.upperBound ? stall.lowerBound : i
            return far[(from * 160)..<min(far.count, (i + 1) * 160)]
        }
        let estimates = result.telemetry.compactMap(\.delayMilliseconds).suffix(200)
        print("MEASURED stalled reference: delay estimates \(estimates.min() ?? -1)...\(estimates.max() ?? -1) ms")
        XCTAssertTrue(estimates.allSatisfy { abs($0 - 120) <= 5 }, "the delay moved: \(estimates.min() ?? -1)...\(estimates.max() ?? -1)")
        let output = result.alignedAudio
        let after = SignalMetrics.erle(mic: mic, output: output, range: (9 * Self.rate)..<(14 * Self.rate))
        print("MEASURED stalled reference: ERLE 9-14 s \(String(format: "%.1f", after)) dB")
        XCTAssertGreaterThanOrEqual(after, 25)
    }

    /// A reference thread that falls behind gradually and catches up (it ran slower for 2 s, the lag growing to
    /// 400 ms, then faster): a lag that keeps changing is scheduling, not a late start, and must not be
    /// re-anchored (the soak's two push threads at 20x speed on a loaded machine: each re-anchoring moved the
    /// reference later for good, until the echo came before its reference and nothing was cancelled).
    func testAReferenceThatFallsBehindAndCatchesUpKeepsItsAlignment() throws {
        let mic = try StageRunner.samples("echo_d120ms_16k.wav")
        let far = try StageRunner.samples("farend_16k.wav")
        func lagChunks(_ i: Int) -> Double { // 0 until 3 s, up to 40 chunks at 5 s, back to 0 at 7 s
            i < 300 || i >= 700 ? 0 : i < 500 ? Double(i - 300) * 0.2 : Double(700 - i) * 0.2
        }
        var pushed = 0
        let result = try Self.run(mic: mic) { i in
            let target = min(far.count, Int((Double(i + 1) - lagChunks(i)) * 160))
            defer { pushed = max(pushed, target) }
            return target > pushed ? far[pushed..<target] : nil
        }
        let estimates = result.telemetry.compactMap(\.delayMilliseconds).suffix(200)
        let output = result.alignedAudio
        let after = SignalMetrics.erle(mic: mic, output: output, range: (9 * Self.rate)..<(14 * Self.rate))
        print("MEASURED reference falling behind and catching up: ERLE 9-14 s \(String(format: "%.1f", after)) dB, delay "
              + "estimates \(estimates.min() ?? -1)...\(estimates.max() ?? -1) ms")
        XCTAssertTrue(estimates.allSatisfy { abs($0 - 120) <= 5 }, "the delay moved: \(estimates.min() ?? -1)...\(estimates.max() ?? -1)")
        XCTAssertGreaterThanOrEqual(after, 25)
    }

    private func check(_ result: FrontEndCollector, mic: [Int16], from start: Int, label: String) throws {
        let output = result.alignedAudio
        let erle = SignalMetrics.erle(mic: mic, output: output, range: start..<mic.count)
        let missing = try XCTUnwrap(result.summary?.drops.referenceMissingSamples)
        print("MEASURED late reference (\(label)): ERLE after \(start / 16) ms \(String(format: "%.1f", erle)) dB, "
              + "reference missing \(missing) samples")
        XCTAssertGreaterThanOrEqual(erle, 20, label)
        XCTAssertLessThanOrEqual(missing, Self.rate, "\(label): at most a second of reference read before it came (the estimator's lock, then 200 ms)")
    }
}
