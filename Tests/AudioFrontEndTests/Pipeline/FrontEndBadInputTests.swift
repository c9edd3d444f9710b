import AudioFrontEnd
import Foundation
import XCTest

/// Points 1 and 5 of the pipeline issue: every bad configuration gets a typed error naming it, every bad call a
/// clear status, and overload loses nothing silently.
final class FrontEndBadInputTests: XCTestCase {
    func testSampleRatesOutsideTheRulesAreTypedErrorsNamingTheRate() {
        let cases: [(String, String, (inout FrontEndConfiguration) -> Void)] = [
            ("8 kHz mic with echo cancellation", "8000", { $0.mic = .init(sampleRate: 8000) }),
            ("8 kHz mic with VAD", "8000", { $0.mic = .init(sampleRate: 8000); $0.echoCancellation = .off }),
            ("8 kHz mic with echo cancellation, VAD off", "8000", { $0.mic = .init(sampleRate: 8000); $0.voiceDetection = nil }),
            ("8 kHz processing with echo cancellation", "8000", { $0.processingRate = 8000 }),
            ("12 kHz mic", "12000", { $0.mic = .init(sampleRate: 12000) }),
            ("11.025 kHz mic, stages off", "11025", { $0 = FrontEndHarness.plain(mic: .init(sampleRate: 11025)) }),
            ("7999 Hz mic, stages off", "7999", { $0 = FrontEndHarness.plain(mic: .init(sampleRate: 7999)) }),
            ("0 Hz mic", "0", { $0.mic = .init(sampleRate: 0) }),
            ("negative mic rate", "-16000", { $0.mic = .init(sampleRate: -16000) }),
            ("96 kHz mic", "96000", { $0.mic = .init(sampleRate: 96000) }),
            ("4 kHz reference", "4000", { $0.reference = .init(sampleRate: 4000) }),
            ("96 kHz reference", "96000", { $0.reference = .init(sampleRate: 96000) }),
            ("32 kHz processing", "32000", { $0.processingRate = 32000 }),
            ("44.1 kHz processing", "44100", { $0.processingRate = 44100 }),
            ("96 kHz output", "96000", { $0.outputRate = 96000 }),
            ("4 kHz output", "4000", { $0.outputRate = 4000 }),
        ]
        for (label, rate, change) in cases {
            var configuration = FrontEndConfiguration()
            change(&configuration)
            XCTAssertThrowsError(try FrontEnd(configuration: configuration), label) { error in
                guard let error = error as? AudioFrontEndError else { return XCTFail("\(label): untyped \(error)") }
                XCTAssertEqual(error.code, .unsupportedSampleRate, "\(label): \(error)")
                XCTAssertTrue(error.message.contains(rate), "\(label): the message names \(rate): \(error.message)")
            }
        }
        for (label, change) in [("44.1 kHz mic and reference", { (c: inout FrontEndConfiguration) in
                                    c.mic = .init(sampleRate: 44100); c.reference = .init(sampleRate: 44100) }),
                                ("8 kHz reference", { $0.reference = .init(sampleRate: 8000) }),
                                ("22.05 kHz mic, 48 kHz processing", { $0.mic = .init(sampleRate: 22050); $0.processingRate = 48000 })] {
            var configuration = FrontEndConfiguration()
            change(&configuration)
            XCTAssertNoThrow(try FrontEnd(configuration: configuration), label)
        }
    }

    /// 8 kHz is allowed with echo cancellation and VAD off, at an 8 or 16 kHz processing rate, and then works:
    /// exact output counts from odd byte pushes.
    func testEightKilohertzMicWithEchoCancellationAndVADOffWorks() throws {
        for (processing, output) in [(8000, 8000), (16000, 16000), (8000, 16000)] {
            var configuration = FrontEndHarness.plain(mic: .init(sampleRate: 8000))
            configuration.processingRate = processing
            configuration.outputRate = output
            configuration.encoding = FrontEndConfiguration.Encoding()
            let (frontEnd, collector) = try FrontEndHarness.started(configuration)
            let count = 8000 * 2 + 11
            let bytes = FrontEndChannelTests.bytes((0..<count).map { Int16(sin(Double($0) * 0.2) * 6000) })
            FrontEndChannelTests.pushInRandomPieces(bytes, to: frontEnd, seed: UInt64(processing + output))
            let summary = try frontEnd.finish()
            let label = "8 kHz mic → \(processing) → \(output) Hz"
            XCTAssertEqual(summary.micSamplesPushed, count, label)
            XCTAssertEqual(collector.audio.count, count * output / 8000, label)
            XCTAssertTrue(collector.events.contains { if case .oggPage = $0 { true } else { false } }, "\(label): encoded")
            // The tone (about -17 dBFS) comes through: output power within 1 dB of the input's.
            let input = (0..<count).map { Int16(sin(Double($0) * 0.2) * 6000) }
            let ratio = SignalMetrics.decibels(SignalMetrics.power(collector.audio) / SignalMetrics.power(input))
            XCTAssertEqual(ratio, 0, accuracy: 1, "\(label): level change")
        }
    }

    /// A 44.1 kHz mic and reference (the echo vector and its far end resampled) through the default chain: the
    /// echo is removed as at 16 kHz.
    func testFortyFourKilohertzMicAndReferenceCancelTheEcho() throws {
        let echo = try TestVectors.float("echo_d120ms_16k.wav").samples
        let far = try TestVectors.float("farend_16k.wav").samples
        func to44(_ x: [Float]) throws -> [Int16] {
            SampleConversion.int16(from: try SampleRateConverter(inputRate: 16000, outputRate: 44100).resample(x))
        }
        var configuration = FrontEndConfiguration()
        configuration.mic = .init(sampleRate: 44100)
        configuration.reference = .init(sampleRate: 44100)
        let mic44 = try to44(echo)
        let result = try FrontEndHarness.run(configuration, mic: mic44, reference: try to44(far), chunk: 441)
        let output = result.alignedAudio
        XCTAssertEqual(output.count, mic44.count * 16000 / 44100, "output count")
        // Against the 16 kHz echo (the same signal before resampling): ERLE per second of echo from 3 s on.
        let echo16 = SampleConversion.int16(from: echo)
        let runs = FrontEndHarness.erlePerEchoRun(mic: echo16, output: output, start: 3 * 16000, frames: 100)
        let worst = try XCTUnwrap(runs.map(\.erle).min())
        print("44.1 kHz mic and reference: worst ERLE per second of echo from 3 s \(String(format: "%.1f", worst)) dB, "
              + "delay estimate \(result.telemetry.last?.delayMilliseconds ?? .nan) ms")
        XCTAssertGreaterThanOrEqual(worst, 25, "44.1 kHz: worst ERLE per second of echo from 3 s on")
    }
}
