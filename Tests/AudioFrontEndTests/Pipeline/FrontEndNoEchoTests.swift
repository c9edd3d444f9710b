import XCTest
@testable import AudioFrontEnd

/// A reference that leaves no echo in the mic (headphones, a muted or distant loudspeaker): the delay estimator
/// says so (``DelayEstimator/findsNoEcho``) and the echo speech gate stands aside
/// (``FrontEndConfiguration/EchoGate/opensWithoutEcho``), so the user is heard while the far end plays. Before,
/// the gate waited for a canceller convergence that never came and no speech during playback counted.
final class FrontEndNoEchoTests: XCTestCase {
    /// The estimator's verdict per second over `mic` against `reference` (16 kHz).
    private func verdicts(mic: [Int16], reference: [Int16]) -> [Bool] {
        let estimator = DelayEstimator(sampleRate: 16000)
        var out: [Bool] = []
        for frame in 0..<(min(mic.count, reference.count) / 160) {
            mic.withUnsafeBufferPointer { m in
                reference.withUnsafeBufferPointer { r in
                    estimator.process(mic: UnsafeBufferPointer(rebasing: m[(frame * 160)..<((frame + 1) * 160)]),
                                      reference: UnsafeBufferPointer(rebasing: r[(frame * 160)..<((frame + 1) * 160)]))
                }
            }
            if frame % 100 == 99 { out.append(estimator.findsNoEcho) }
        }
        return out
    }

    func testTheEstimatorFindsNoEchoOnlyWhereThereIsNone() throws {
        let reference = try TestVectors.int16("farend_16k.wav").samples
        // The reference sounds from 0.32 s; the verdict needs 20 updates (2.6 s of it) and then 4 unconfident in
        // a row. nearend_16k is exact digital silence until 3 s: such windows count as unconfident too.
        for name in ["nearend_16k.wav", "noisy_snr10db_16k.wav", "noisy_snr0db_16k.wav"] {
            let series = verdicts(mic: try TestVectors.int16(name).samples, reference: reference)
            XCTAssertTrue(series.dropFirst(4).allSatisfy { $0 }, "\(name): no echo found from 5 s on: \(series)")
        }
        for name in ["echo_d40ms_16k.wav", "echo_d250ms_16k.wav", "doubletalk_ser0db_16k.wav", "doubletalk_ser5db_16k.wav"] {
            let series = verdicts(mic: try TestVectors.int16(name).samples, reference: reference)
            XCTAssertFalse(series.contains(true), "\(name): an echo taken for none: \(series)")
        }
    }

    /// The noisy near-end vector with the echo vector (250 ms) added for its first 8 s: the loudspeaker's echo goes
    /// away (headphones plugged in) while the reference plays on.
    private func echoThatGoesAway() throws -> [Int16] {
        let near = try TestVectors.int16("noisy_snr10db_16k.wav").samples
        let echo = try TestVectors.int16("echo_d250ms_16k.wav").samples
        return near.indices.map { i in
            i < 8 * 16000 ? Int16(clamping: Int(near[i]) + Int(echo[i])) : near[i]
        }
    }

    func testTheVerdictFollowsAnEchoThatGoesAway() throws {
        let series = verdicts(mic: try echoThatGoesAway(), reference: try TestVectors.int16("farend_16k.wav").samples)
        // The reference plays again from 8.92 s: about 4 s of it without an echo bring the verdict (the estimator's
        // own 4 s spectrum, weighed by level, held the old echo's peak about 14 s).
        XCTAssertFalse(series.prefix(8).contains(true), "an echo taken for none: \(series)")
        XCTAssertTrue(series[14...].allSatisfy { $0 }, "no echo found from 15 s on: \(series)")
    }

    /// The speech segments of the noisy near-end vector with the far-end vector pushed as the reference (no echo
    /// of it in the mic), with the gate standing aside or not.
    private func segments(opensWithoutEcho: Bool, reference: Bool = true, mic: [Int16]? = nil) throws -> [ClosedRange<Int>] {
        var configuration = FrontEndConfiguration()
        configuration.voiceDetection!.echoGate.opensWithoutEcho = opensWithoutEcho
        configuration.pausesCancellersWithoutEcho = opensWithoutEcho
        let collector = try FrontEndHarness.run(configuration, mic: try mic ?? TestVectors.int16("noisy_snr10db_16k.wav").samples,
                                                reference: reference ? try TestVectors.int16("farend_16k.wav").samples : nil)
        let starts = collector.events.compactMap { if case .speechStarted(let ms) = $0 { ms } else { nil } }
        let ends = collector.events.compactMap { if case .speechEnded(let ms) = $0 { ms } else { nil } }
        return zip(starts, ends).map { $0...$1 }
    }

    func testTheUserIsHeardWhileAReferenceWithoutEchoPlays() throws {
        XCTAssertTrue(FrontEndConfiguration.EchoGate().opensWithoutEcho, "on by default")
        // The utterances at 12.32-15.05 s and 17.22-19.80 s fall while the reference plays (8.92-13.66 s,
        // 15.82-20.23 s), long after the estimator's verdict.
        let during = [12320...15050, 17220...19800]
        func heard(_ segments: [ClosedRange<Int>]) -> [Bool] {
            during.map { utterance in segments.contains { $0.overlaps(utterance) && $0.upperBound - $0.lowerBound >= 1000 } }
        }
        let open = try segments(opensWithoutEcho: true)
        let waiting = try segments(opensWithoutEcho: false)
        let alone = try segments(opensWithoutEcho: true, reference: false)
        print("no echo: segments standing aside \(open), waiting for convergence \(waiting), without a reference \(alone)")
        XCTAssertEqual(heard(open), [true, true], "both utterances heard during playback: \(open)")
        XCTAssertEqual(heard(waiting), [false, false], "the gate that waits hears neither: \(waiting)")
        // The first utterance ends after the reference has stopped (13.66 s): the gate that stood aside does not
        // hold its end to the after-playback test (a residual level it never learned) but ends it where the
        // front end without a reference does.
        let end = { (segments: [ClosedRange<Int>]) in segments.first { $0.overlaps(during[0]) }?.upperBound ?? 0 }
        XCTAssertEqual(Double(end(open)), Double(end(alone)), accuracy: 150, "the first utterance's end: \(open) vs \(alone)")
    }

    /// Once the echo has gone, the cancellers pause (``FrontEndConfiguration/pausesCancellersWithoutEcho``): the
    /// mic goes on as it came instead of the mic minus the echo they had learned, and the user is heard.
    func testTheCancellersPauseOnceTheEchoHasGone() throws {
        let mic = try echoThatGoesAway()
        let reference = try TestVectors.int16("farend_16k.wav").samples
        // How far the output stands from the mic over 16-20 s (the reference plays 15.82-20.23 s, the verdict
        // holds from about 13 s), dB relative to the mic.
        func departure(pauses: Bool) throws -> Double {
            var configuration = FrontEndConfiguration()
            configuration.pausesCancellersWithoutEcho = pauses
            let output = try FrontEndHarness.run(configuration, mic: mic, reference: reference).alignedAudio
            var difference = 0.0, power = 1e-9
            for i in (16 * 16000)..<(20 * 16000) {
                difference += pow(Double(output[i]) - Double(mic[i]), 2)
                power += pow(Double(mic[i]), 2)
            }
            return 10 * log10(difference / power + 1e-12)
        }
        let paused = try departure(pauses: true), running = try departure(pauses: false)
        print("echo gone at 8 s: output minus mic over 16-20 s \(paused) dB paused, \(running) dB running")
        XCTAssertLessThan(paused, -60, "the mic as it came")
        XCTAssertGreaterThan(running, -30, "the cancellers running on change it")
        // The utterance at 17.22-19.80 s falls while the reference plays, about 9 s after the echo went away.
        let open = try segments(opensWithoutEcho: true, mic: mic)
        XCTAssertTrue(open.contains { $0.overlaps(17220...19800) && $0.upperBound - $0.lowerBound >= 1000 },
                      "heard once the echo has gone: \(open)")
        // Barge-in decides while the user talks over the reference (3.03 s with the echo, 12.32 and 17.22 s
        // without), never on what the cancellers made of the echo that went.
        let collector = try FrontEndHarness.run(FrontEndConfiguration(), mic: mic, reference: reference)
        let decisions = collector.events.compactMap { if case .bargeIn(let d) = $0 { d.milliseconds } else { nil } }
        XCTAssertTrue(decisions.contains { (17220...18220).contains($0) }, "decided after 17.22 s: \(decisions)")
        XCTAssertTrue(decisions.allSatisfy { d in [3030...4830, 12320...15050, 17220...19800].contains { $0.contains(d) } },
                      "only while the user talks: \(decisions)")
    }

    /// The user who talks over a reference without an echo interrupts it: with the cancellers paused the
    /// decision's margins over the residual echo (learned on an echo) do not apply, the VAD's speech during
    /// playback decides.
    func testTheUserBargesInOverAReferenceWithoutEcho() throws {
        let collector = try FrontEndHarness.run(FrontEndConfiguration(), mic: try TestVectors.int16("noisy_snr10db_16k.wav").samples,
                                                reference: try TestVectors.int16("farend_16k.wav").samples)
        let decisions = collector.events.compactMap { if case .bargeIn(let d) = $0 { d.milliseconds } else { nil } }
        print("no echo: barge-in decisions at \(decisions) ms")
        // The utterances at 3.03-4.83 s, 12.32-15.05 s and 17.22-19.80 s start while the reference plays (2.20-5.14 s,
        // 8.92-13.66 s, 15.82-20.23 s; the verdict needs about 2.6 s of it): each decided within its first second.
        for onset in [3030, 12320, 17220] {
            XCTAssertTrue(decisions.contains { $0 > onset && $0 <= onset + 1000 }, "decided after \(onset) ms: \(decisions)")
        }
        XCTAssertTrue(decisions.allSatisfy { d in [3030...4830, 12320...15050, 17220...19800].contains { $0.contains(d) } },
                      "only while the user talks: \(decisions)")
    }
}
