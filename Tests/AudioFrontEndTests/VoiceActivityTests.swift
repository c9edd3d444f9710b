import AllocationCounter
import Foundation
import XCTest
@testable import AudioFrontEnd

/// Frame F1 of the VAD backends against the labelled speech of the noisy vectors, the speech_noise_threshold
/// mapping, every rate, bad settings, reset and allocations.
///
/// What is scored: the detector's per-frame `isSpeech` (the library's frame output, "raw") and the frames inside
/// the segments of a default ``SpeechSegmenter`` fed with those decisions ("segmented", the event output).
/// Both must reach F1 ≥ 0.90 at 20 dB SNR for each backend's default configuration.
final class VoiceActivityTests: XCTestCase {
    typealias Score = (precision: Double, recall: Double, f1: Double)

    static let snrs = [0, 5, 10, 20]

    /// The labelled noisy vector at `snr` dB.
    private func noisy(_ snr: Int) throws -> (samples: [Int16], labels: [Bool]) {
        let name = "noisy_snr\(snr)db_16k.wav"
        let (samples, rate) = try TestVectors.int16(name)
        let labels = SignalMetrics.frameLabels(intervals: try TestVectors.entry(name).speechIntervals,
                                               frameCount: samples.count / (rate / 100))
        return (samples, labels)
    }

    /// Every backend setting in the table: the energy detector at five speech_noise_threshold values, the WebRTC
    /// detector at its four likelihoods. `isDefault` marks each backend's default configuration.
    private func settings() throws -> [(name: String, isDefault: Bool, make: () throws -> any VoiceActivityDetector)] {
        var list: [(name: String, isDefault: Bool, make: () throws -> any VoiceActivityDetector)] = []
        for value: Float in [-1, -0.5, 0, 0.5, 1] {
            let threshold = try SpeechNoiseThreshold(value)
            list.append(("energy snt \(value)", value == 0,
                         { try EnergyVoiceActivityDetector(.init(speechNoiseThreshold: threshold)) }))
        }
        for likelihood in WebRTCVoiceActivityDetector.Likelihood.allCases {
            list.append(("webrtc \(likelihood)", likelihood == WebRTCVoiceActivityDetector.Configuration().likelihood,
                         { try WebRTCVoiceActivityDetector(.init(likelihood: likelihood)) }))
        }
        return list
    }

    private func row(_ label: String, _ raw: Score, _ segmented: Score) -> String {
        String(format: "%-22@ raw P %.3f R %.3f F1 %.3f | segmented P %.3f R %.3f F1 %.3f",
               label as NSString, raw.precision, raw.recall, raw.f1, segmented.precision, segmented.recall,
               segmented.f1)
    }

    func testFrameF1OnNoisyVectorsPerBackendAndSetting() throws {
        XCTAssertEqual(EnergyVoiceActivityDetector.Configuration(), .init(speechNoiseThreshold: .neutral),
                       "the energy defaults must be speech_noise_threshold 0")
        var table = ["frame F1 vs manifest speech labels (segmented: default SpeechSegmenter, onset 100 ms, end 1300 ms)"]
        var defaultF1: [String: [Int: (raw: Double, segmented: Double)]] = [:]
        for snr in Self.snrs {
            let (samples, labels) = try noisy(snr)
            for setting in try settings() {
                let raw = VoiceActivityMeasurement.decisions(try setting.make(), samples)
                let smoothed = VoiceActivityMeasurement.segmented(raw, try SpeechSegmenter())
                let rawScore = SignalMetrics.f1(decisions: raw, labels: labels)
                let segmentedScore = SignalMetrics.f1(decisions: smoothed, labels: labels)
                table.append(row("\(snr) dB \(setting.name)\(setting.isDefault ? "*" : "")", rawScore, segmentedScore))
                if setting.isDefault {
                    let backend = String(setting.name.prefix { $0 != " " })
                    defaultF1[backend, default: [:]][snr] = (rawScore.f1, segmentedScore.f1)
                }
            }
        }
        print(table.joined(separator: "\n"))
        for backend in ["energy", "webrtc"] {
            guard let scores = defaultF1[backend], let at20 = scores[20], let at0 = scores[0] else {
                XCTFail("\(backend): no default row measured"); continue
            }
            XCTAssertGreaterThanOrEqual(at20.raw, 0.90, "\(backend) default, noisy_snr20db: raw frame F1")
            XCTAssertGreaterThanOrEqual(at20.segmented, 0.90, "\(backend) default, noisy_snr20db: segmented frame F1")
            XCTAssertLessThan(at0.raw, at20.raw, "\(backend) default: F1 at 0 dB SNR should be below F1 at 20 dB")
        }
        // The default backend's margins at lower SNR (measured 0.93 at 10 dB, 0.92 at 5 dB).
        XCTAssertGreaterThanOrEqual(defaultF1["energy"]?[10]?.raw ?? 0, 0.90, "energy default, noisy_snr10db: raw F1")
        XCTAssertGreaterThanOrEqual(defaultF1["energy"]?[5]?.raw ?? 0, 0.85, "energy default, noisy_snr5db: raw F1")
    }

    /// speech_noise_threshold -1 must call more frames speech (and find more of the speech, at the cost of more
    /// false alarms) than +1, on every noisy vector, for both backends.
    func testSpeechNoiseThresholdMovesDecisionsInTheDocumentedDirection() throws {
        let sensitive = SpeechNoiseThreshold.mostSensitive, strict = SpeechNoiseThreshold.leastSensitive
        XCTAssertEqual(WebRTCVoiceActivityDetector.Likelihood(sensitive), .high)
        XCTAssertEqual(WebRTCVoiceActivityDetector.Likelihood(strict), .veryLow)
        let backends: [(String, (SpeechNoiseThreshold) throws -> any VoiceActivityDetector)] = [
            ("energy", { try EnergyVoiceActivityDetector(.init(speechNoiseThreshold: $0)) }),
            ("webrtc", { try WebRTCVoiceActivityDetector(.init(speechNoiseThreshold: $0)) }),
        ]
        for (backend, make) in backends {
            var totalSensitive = 0, totalStrict = 0
            for snr in Self.snrs {
                let (samples, labels) = try noisy(snr)
                let loose = VoiceActivityMeasurement.decisions(try make(sensitive), samples)
                let tight = VoiceActivityMeasurement.decisions(try make(strict), samples)
                let count = { (d: [Bool]) in d.filter { $0 }.count }
                let falseAlarms = { (d: [Bool]) in zip(d, labels).filter { $0 && !$1 }.count }
                let context = "\(backend), noisy_snr\(snr)db, speech_noise_threshold -1 vs +1"
                XCTAssertGreaterThanOrEqual(count(loose), count(tight), "\(context): speech frames")
                XCTAssertGreaterThanOrEqual(SignalMetrics.f1(decisions: loose, labels: labels).recall,
                                            SignalMetrics.f1(decisions: tight, labels: labels).recall, "\(context): recall")
                XCTAssertGreaterThanOrEqual(falseAlarms(loose), falseAlarms(tight), "\(context): false alarms")
                totalSensitive += count(loose)
                totalStrict += count(tight)
            }
            XCTAssertGreaterThan(totalSensitive, totalStrict + 100,
                                 "\(backend): -1 should flag clearly more frames than +1 over the four vectors")
        }
    }

    func testSpeechNoiseThresholdMapping() throws {
        let expected: [(Float, WebRTCVoiceActivityDetector.Likelihood, Float)] = [
            (-1, .high, 2), (-0.51, .high, 2.98), (-0.5, .moderate, 3), (-0.1, .moderate, 3.8), (0, .low, 4),
            (0.49, .low, 4.98), (0.5, .veryLow, 5), (1, .veryLow, 6),
        ]
        for (value, likelihood, decibels) in expected {
            let threshold = try SpeechNoiseThreshold(value)
            XCTAssertEqual(WebRTCVoiceActivityDetector.Configuration(speechNoiseThreshold: threshold).likelihood,
                           likelihood, "speech_noise_threshold \(value)")
            let energy = EnergyVoiceActivityDetector.Configuration(speechNoiseThreshold: threshold)
            XCTAssertEqual(energy.thresholdDecibels, decibels, accuracy: 1e-5, "speech_noise_threshold \(value)")
            XCTAssertEqual(energy.releaseDecibels, decibels / 2, accuracy: 1e-5, "speech_noise_threshold \(value)")
            XCTAssertNoThrow(try EnergyVoiceActivityDetector(energy), "speech_noise_threshold \(value)")
        }
    }
}
