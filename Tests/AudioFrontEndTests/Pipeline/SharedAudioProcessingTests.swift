@testable import AudioFrontEnd
import Foundation
import XCTest

/// Issue 13, part 6: when the echo canceller, the noise suppressor and the VAD are all WebRTC's, the front end
/// runs them in the canceller's one `AudioProcessing` (one band split, one `ProcessStream`) instead of three
/// instances that each re-buffer the frame. What that must keep: the declared delay, the echo removal, noise
/// suppression and voice detection, also while the canceller pauses (no playback).
final class SharedAudioProcessingTests: XCTestCase {
    /// AEC2 with NS hosted delays its output by the canceller's and the suppressor's delays together, at every
    /// rate the library takes (silent reference, as in `EchoCancellerContractTests.testDeclaredLatencyIsMeasured`).
    func testHostedNoiseSuppressionDelayIsMeasured() throws {
        for rate in [8000, 16000, 32000, 48000] {
            let input = SyntheticEcho(sampleRate: rate, seconds: 3, delayMilliseconds: 0).reference
            let silent = [Int16](repeating: 0, count: input.count)
            let canceller = try WebRTCEchoCanceller(configuration: .init(sampleRate: rate), hostedNoise: .moderate,
                                                    hostedVoice: .low)
            let output = StageRunner.run(canceller, mic: input, reference: silent)
            let measured = StageRunner.latency(reference: input, test: output, ranges: [(rate * 2)..<(rate * 2 + rate / 2)],
                                               maxLag: rate / 25)
            print("MEASURED latency of AEC2 hosting NS at \(rate) Hz: \(measured) samples (declared \(canceller.latencySamples))")
            XCTAssertEqual(measured, canceller.latencySamples, accuracy: 1, "at \(rate) Hz")
        }
    }

    /// The benchmark's reference chain (AEC2 + WebRTC NS + WebRTC VAD) on the 0 dB SER double-talk vector:
    /// the output aligned by the reported delay (13 ms: 112 + 96 samples) lines up with the mic, the far-end-only
    /// echo is removed, and the hosted VAD starts speech segments inside the near end's speech.
    func testSharedChainRemovesEchoAndDetectsTheTalker() throws {
        var configuration = FrontEndConfiguration()
        configuration.echoCancellation = .webRTC(WebRTCEchoCanceller.Configuration())
        configuration.noiseSuppression = .webRTC(WebRTCNoiseSuppressor.Configuration())
        configuration.voiceDetection = .init(detector: .webRTC(WebRTCVoiceActivityDetector.Configuration()))
        let frontEnd = try FrontEnd(configuration: configuration)
        XCTAssertEqual(frontEnd.processingDelay.samples, 112 + 96)
        let figures = try FrontEndDoubleTalkTests.measure(configuration, ser: 0)
        print("MEASURED AEC2 + NS + VAD in one AudioProcessing, doubletalk_ser0db_16k.wav: \(figures)")
        XCTAssertEqual(figures.lag, 0, "\(figures)")
        XCTAssertGreaterThanOrEqual(figures.farEndOnlyERLE, 25, "\(figures)")

        let name = "doubletalk_ser0db_16k.wav"
        let collector = try FrontEndHarness.run(configuration, mic: try StageRunner.samples(name),
                                                reference: try StageRunner.samples("farend_16k.wav"))
        let entry = try TestVectors.entry(name)
        let near = (entry["doubletalk"] as! [[Double]]) + (entry["nearend_only"] as! [[Double]])
        let starts = collector.events.compactMap { if case .speechStarted(let ms) = $0 { ms } else { nil } }
        print("MEASURED speech starts (ms): \(starts); near-end speech (s): \(near)")
        XCTAssertFalse(starts.isEmpty, "the hosted VAD found no speech")
        for start in starts {
            let seconds = Double(start) / 1000
            XCTAssertTrue(near.contains { seconds >= $0[0] - 0.3 && seconds <= $0[1] }, "speech start at \(start) ms outside the near end's speech \(near)")
        }
    }

    /// With the far end silent (`setPlaying(false)`) the canceller pauses; its `AudioProcessing`, which also
    /// suppresses the noise and detects voice, keeps running on a silent reference: on the 10 dB SNR vector the
    /// noise between the utterances falls and the speech is still found.
    func testNoiseSuppressionAndVoiceDetectionRunWhileTheCancellerPauses() throws {
        var configuration = FrontEndConfiguration()
        configuration.echoCancellation = .webRTC(WebRTCEchoCanceller.Configuration())
        configuration.noiseSuppression = .webRTC(WebRTCNoiseSuppressor.Configuration())
        configuration.voiceDetection = .init(detector: .webRTC(WebRTCVoiceActivityDetector.Configuration()))
        let name = "noisy_snr10db_16k.wav"
        let mic = try StageRunner.samples(name)
        let (frontEnd, collector) = try FrontEndHarness.started(configuration)
        frontEnd.setPlaying(false)
        var offset = 0
        while offset < mic.count {
            let end = min(mic.count, offset + 160)
            offset += mic[offset..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }.accepted
            if offset < end { usleep(1000) }
        }
        try frontEnd.finish()
        let output = collector.alignedAudio
        let speech = (try TestVectors.entry(name)["speech"] as! [[Double]]).map { Int($0[0] * 16000)..<Int($0[1] * 16000) }
        let noise = StageRunner.gaps(between: speech, count: mic.count, margin: 1600).filter { $0.lowerBound >= 16000 }
        let reduction = SignalMetrics.decibels(StageRunner.power(mic, noise) / max(StageRunner.power(output, noise), 1e-10))
        let starts = collector.events.compactMap { if case .speechStarted(let ms) = $0 { ms } else { nil } }
        print("MEASURED paused canceller, \(name): noise reduced by \(StageRunner.dB(reduction)) dB, speech starts \(starts) ms")
        XCTAssertGreaterThanOrEqual(reduction, 5, "NS should keep suppressing while the canceller pauses")
        XCTAssertFalse(starts.isEmpty, "the hosted VAD should keep detecting while the canceller pauses")
    }
}
