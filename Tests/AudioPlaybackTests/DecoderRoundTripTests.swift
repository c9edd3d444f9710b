import AudioFrontEnd
import AudioPlayback
import XCTest

/// Each format decoded from what a real encoder made, fed in the pieces a network delivers, against the source.
/// Exact for pcm and wav; for mp3 and opus, correlation and SNR after alignment (thresholds below, each set
/// with a margin under what was measured and printed in the failure message). Measured 2026-12-01 on espeak-ng's
/// sentence: mp3 (lame 64 kb/s) 0 samples off in length, lag 0, correlation 0.9987, SNR 25.9 dB; opus (opusenc
/// 32 kb/s) 0 samples off, lag −1, correlation 0.9877, SNR 16.1 dB, decoded at 24 kHz or at 48 kHz and resampled.
final class DecoderRoundTripTests: XCTestCase {
    func testPCMIsExactInAnySplitAndResampledLengthIsExact() throws {
        let (source, rate) = try EncodedInputs.samples(EncodedInputs.speech(rate: 24000))
        var bytes: [UInt8] = []
        for s in source { bytes += [UInt8(truncatingIfNeeded: s), UInt8(truncatingIfNeeded: s >> 8)] }
        for seed in [1, 2, 3] as [UInt64] {
            let decoded = Feed.decode(try PlaybackDecoder(format: .pcm, sampleRate: rate, outputRate: rate),
                                      bytes, splits: Feed.randomSplits(seed: seed, maximum: 3001))
            XCTAssertNil(decoded.error)
            XCTAssertEqual(decoded.samples, source, "pcm, seed \(seed)")
        }
        for outputRate in [8000, 16000, 22050, 44100, 48000] {
            let decoded = Feed.decode(try PlaybackDecoder(format: .pcm, sampleRate: rate, outputRate: outputRate),
                                      bytes, splits: [4097, 1, 333])
            XCTAssertEqual(decoded.samples.count, source.count * outputRate / rate, "pcm 24000 → \(outputRate) Hz")
        }
    }

    func testWAVIsExactMonoAndStereoAveraged() throws {
        for (rate, channels) in [(22050, 1), (16000, 2), (48000, 1)] {
            let file = try EncodedInputs.speech(rate: rate, channels: channels)
            let audio = try AudioFile(contentsOf: file)
            let interleaved = audio.int16Samples
            let expected = (0..<audio.frameCount).map { f in
                Int16((0..<channels).reduce(0) { $0 + Int(interleaved[f * channels + $1]) } / channels)
            }
            let bytes = try EncodedInputs.bytes(file)
            for splits in [[bytes.count], [1], Feed.randomSplits(seed: 7, maximum: 2000), [44, 3, 1000]] {
                let decoded = Feed.decode(try PlaybackDecoder(format: .wav, sampleRate: 0, outputRate: rate), bytes, splits: splits)
                XCTAssertNil(decoded.error, "\(rate) Hz × \(channels)")
                XCTAssertEqual(decoded.samples, expected, "wav \(rate) Hz × \(channels), splits \(splits.prefix(4))")
            }
            let resampled = Feed.decode(try PlaybackDecoder(format: .wav, sampleRate: 0, outputRate: 16000), bytes, splits: [999])
            XCTAssertEqual(resampled.samples.count, expected.count * 16000 / rate, "wav \(rate) → 16000 Hz")
        }
    }

    func testMP3DecodesAlignedAboveThresholds() throws {
        let wav = try EncodedInputs.speech(rate: 22050)
        let (source, rate) = try EncodedInputs.samples(wav)
        let bytes = try EncodedInputs.mp3(wav)
        var first: [Int16]?
        for splits in [[bytes.count], Feed.randomSplits(seed: 11, maximum: 700), [1, 2, 417]] {
            let decoded = Feed.decode(try PlaybackDecoder(format: .mp3, sampleRate: 0, outputRate: rate), bytes, splits: splits)
            XCTAssertNil(decoded.error)
            if let first { XCTAssertEqual(decoded.samples, first, "the split changes libmpg123's integer output") }
            first = decoded.samples
        }
        try checkLossy(source: source, decoded: first ?? [], label: "mp3 64 kb/s 22050 Hz",
                       minimumCorrelation: 0.99, minimumSNR: 20, maximumLag: 2, lengthTolerance: 3)
    }

    func testOpusDecodesAlignedAboveThresholdsPageByPageAndSplit() throws {
        let wav = try EncodedInputs.speech(rate: 24000)
        let (source, rate) = try EncodedInputs.samples(wav)
        let bytes = try EncodedInputs.opus(wav)
        let pages = Feed.oggPages(bytes)
        XCTAssertGreaterThan(pages.count, 3)
        var first: [Int16]?
        for splits in [pages.map(\.count), Feed.randomSplits(seed: 5, maximum: 300), [1], [bytes.count]] {
            let decoded = Feed.decode(try PlaybackDecoder(format: .opus, sampleRate: rate, outputRate: rate), bytes, splits: splits)
            XCTAssertNil(decoded.error)
            if let first { XCTAssertEqual(decoded.samples, first, "the split changes the decoded integers") }
            first = decoded.samples
        }
        try checkLossy(source: source, decoded: first ?? [], label: "opus 32 kb/s at 24000 Hz",
                       minimumCorrelation: 0.97, minimumSNR: 12, maximumLag: 2, lengthTolerance: 3)
        // 48 kHz decode (22050 is no Opus rate) resampled to 22050: the length follows the granule positions.
        let wav22 = try EncodedInputs.speech(rate: 22050)
        let (source22, _) = try EncodedInputs.samples(wav22)
        let decoded = Feed.decode(try PlaybackDecoder(format: .opus, sampleRate: 22050, outputRate: 22050),
                                  try EncodedInputs.opus(wav22), splits: [200])
        try checkLossy(source: source22, decoded: decoded.samples, label: "opus 32 kb/s 48 kHz → 22050 Hz",
                       minimumCorrelation: 0.97, minimumSNR: 12, maximumLag: 2, lengthTolerance: 3)
    }

    private func checkLossy(source: [Int16], decoded: [Int16], label: String, minimumCorrelation: Double,
                            minimumSNR: Double, maximumLag: Int, lengthTolerance: Int) throws {
        let (lag, correlation) = Quality.align(source, decoded)
        let snr = Quality.snr(source, decoded, lag: lag)
        let summary = "\(label): \(decoded.count) samples for \(source.count), lag \(lag), correlation "
            + "\(String(format: "%.4f", correlation)), SNR \(String(format: "%.1f", snr)) dB"
        print(summary)
        XCTAssertLessThanOrEqual(abs(decoded.count - source.count), lengthTolerance, summary)
        XCTAssertLessThanOrEqual(abs(lag), maximumLag, summary)
        XCTAssertGreaterThanOrEqual(correlation, minimumCorrelation, summary)
        XCTAssertGreaterThanOrEqual(snr, minimumSNR, summary)
    }
}
