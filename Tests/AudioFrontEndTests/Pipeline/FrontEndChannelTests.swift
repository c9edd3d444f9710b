import AudioFrontEnd
import Foundation
import XCTest

/// A multi-channel mic: interleaved pushes are down-mixed or one channel is chosen (``FrontEndConfiguration/InputFormat``).
final class FrontEndChannelTests: XCTestCase {
    /// `frames` interleaved frames of `channels` channels, each channel a different tone and level, so any mix-up
    /// of channels shows.
    static func interleaved(frames: Int, channels: Int) -> [Int16] {
        var samples = [Int16](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            for c in 0..<channels {
                let amplitude = 2000.0 * Double(c + 1)
                samples[f * channels + c] = Int16(sin(Double(f) * 0.01 * Double(c + 2)) * amplitude + Double(c * 100))
            }
        }
        return samples
    }

    static func bytes(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    /// Pushes `bytes` in random pieces (odd lengths included, pieces ending inside a sample and inside a frame).
    static func pushInRandomPieces(_ bytes: [UInt8], to frontEnd: FrontEnd, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var offset = 0
        while offset < bytes.count {
            let n = min(bytes.count - offset, Int(random.next() % 701))
            let result = bytes[offset..<(offset + n)].withUnsafeBytes { frontEnd.pushMic(bytes: $0) }
            XCTAssertEqual(result, PushResult(status: .ok, accepted: n), "seed \(seed)")
            offset += n
        }
    }

    /// No stage changes the audio here (echo cancellation, VAD and noise suppression off, all rates 16 kHz), so
    /// the output is exactly the selected channel or the integer mean of the channels.
    func testDownmixAndChannelSelectionFromOddBytePushes() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        for channels in [2, 4] {
            let frames = 16000 * 2 + 37
            let input = Self.interleaved(frames: frames, channels: channels)
            let selections: [FrontEndConfiguration.ChannelSelection] = [.downmix] + (0..<channels).map { .channel($0) }
            for selection in selections {
                let (frontEnd, collector) = try FrontEndHarness.started(FrontEndHarness.plain(
                    mic: .init(sampleRate: 16000, channelCount: channels, channelSelection: selection)))
                Self.pushInRandomPieces(Self.bytes(input), to: frontEnd, seed: seed)
                let summary = try frontEnd.finish()
                let label = "\(channels) channels, \(selection), seed \(seed)"
                XCTAssertEqual(summary.micSamplesPushed, frames, "\(label): frames counted once, not per channel")
                XCTAssertEqual(summary.outputSamples, frames, label)
                let expected: [Int16] = (0..<frames).map { f in
                    switch selection {
                    case .channel(let c): return input[f * channels + c]
                    case .downmix: return Int16((0..<channels).reduce(0) { $0 + Int(input[f * channels + $1]) } / channels)
                    }
                }
                XCTAssertEqual(collector.audio.count, frames, label)
                XCTAssertTrue(collector.audio == expected, "\(label): output differs from the expected mono signal")
            }
        }
    }

    /// With the default chain and resampling (48 kHz, 2 or 4 channels → 16 kHz): exact output count, and a
    /// partial frame at the end (a sample of a frame whose other channels never came) is not counted as pushed.
    func testExactAccountingWithTheDefaultChainAndResampling() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        for channels in [2, 4] {
            for selection in [FrontEndConfiguration.ChannelSelection.downmix, .channel(channels - 1)] {
                var configuration = FrontEndConfiguration()
                configuration.mic = .init(sampleRate: 48000, channelCount: channels, channelSelection: selection)
                let (frontEnd, collector) = try FrontEndHarness.started(configuration)
                let frames = 48000 + 4799
                var bytes = Self.bytes(Self.interleaved(frames: frames, channels: channels))
                bytes += [1, 0, 2] // one and a half samples of a frame that never completes
                Self.pushInRandomPieces(bytes, to: frontEnd, seed: seed)
                let summary = try frontEnd.finish()
                let label = "48 kHz, \(channels) channels, \(selection), seed \(seed)"
                XCTAssertEqual(summary.micSamplesPushed, frames, label)
                XCTAssertEqual(collector.audio.count, frames / 3, label)
                XCTAssertEqual(summary.outputSamples, frames / 3, label)
                XCTAssertEqual(summary.drops.micRefusedBytes, 0, label)
            }
        }
    }

    /// Sample pushes that end inside a frame keep the partial frame for the next push.
    func testSamplePushesEndingInsideAFrame() throws {
        let (frontEnd, collector) = try FrontEndHarness.started(FrontEndHarness.plain(
            mic: .init(sampleRate: 16000, channelCount: 4, channelSelection: .channel(2))))
        let frames = 1601
        let input = Self.interleaved(frames: frames, channels: 4)
        var offset = 0
        for n in [3, 1, 5, 7, 160, 641, 2] + [Int](repeating: 999, count: 7) {
            let end = min(input.count, offset + n)
            XCTAssertEqual(input[offset..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) },
                           PushResult(status: .ok, accepted: end - offset))
            offset = end
        }
        XCTAssertEqual(offset, input.count)
        let summary = try frontEnd.finish()
        XCTAssertEqual(summary.micSamplesPushed, frames)
        XCTAssertTrue(collector.audio == (0..<frames).map { input[$0 * 4 + 2] }, "channel 2 of 4 from partial-frame pushes")
    }

    func testBadChannelCountsAndIndicesAreTypedErrors() {
        let cases: [(FrontEndConfiguration.InputFormat, Bool, String)] = [
            (.init(sampleRate: 16000, channelCount: 2, channelSelection: .channel(2)), true, "mic channel 2 of 2"),
            (.init(sampleRate: 16000, channelCount: 4, channelSelection: .channel(4)), true, "mic channel 4 of 4"),
            (.init(sampleRate: 16000, channelCount: 2, channelSelection: .channel(-1)), true, "mic channel -1"),
            (.init(sampleRate: 16000, channelCount: 0), true, "mic with 0 channels"),
            (.init(sampleRate: 16000, channelCount: 33), true, "mic with 33 channels"),
            (.init(sampleRate: 16000, channelCount: 1, channelSelection: .channel(1)), false, "reference channel 1 of 1"),
        ]
        for (format, isMic, label) in cases {
            var configuration = FrontEndConfiguration()
            if isMic { configuration.mic = format } else { configuration.reference = format }
            XCTAssertThrowsError(try FrontEnd(configuration: configuration), label) { error in
                XCTAssertEqual((error as? AudioFrontEndError)?.code, .invalidConfiguration, "\(label): \(error)")
                XCTAssertTrue("\(error)".contains(isMic ? "mic" : "reference"), "\(label): the message names the stream: \(error)")
            }
        }
    }
}
