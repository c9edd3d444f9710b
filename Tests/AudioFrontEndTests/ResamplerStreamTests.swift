import AllocationCounter
import Foundation
import XCTest
@testable import AudioFrontEnd

/// The stream contract of both resampler backends: exact counts, chunk-size independence, int16 paths,
/// typed errors, and no allocation on the real-time calls.
final class ResamplerStreamTests: XCTestCase {
    static let pairs = [(44100, 16000), (48000, 16000), (16000, 48000), (22050, 16000), (16000, 8000), (8000, 44100),
                        (32000, 44100)]
    static let backends = ResamplerBackend.defaults + [.libsamplerate(.init(quality: .fastest))]

    /// The seed of the random chunk sizes: `AFE_TEST_SEED` from the environment, else a fixed one.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["AFE_TEST_SEED"].flatMap { UInt64($0) } ?? 20_261_130

    /// Ten minutes of 44.1 kHz (and shorter streams at other pairs) in random chunks of 1…4000 samples: every
    /// call consumes its whole chunk into `maximumOutputCount` samples of room, and after the flush the total is
    /// exactly floor(n × out / in).
    func testExactCountsOverLongStreamsInRandomChunks() throws {
        print("ResamplerStreamTests seed \(Self.seed) (set AFE_TEST_SEED to repeat)")
        var random = SeededRandom(seed: Self.seed)
        let source = (0..<4000).map { _ in Float(random.unitDouble() - 0.5) }
        var output = [Float](repeating: 0, count: 30000)
        for backend in Self.backends {
            for (inputRate, outputRate) in Self.pairs {
                let long = (inputRate, outputRate) == (44100, 16000)
                let total = inputRate * (long ? (backend.isLibsamplerate ? 120 : 600) : 10)
                let resampler = try backend.make(inputRate, outputRate)
                let label = "\(backend) \(inputRate)→\(outputRate), \(total) samples, seed \(Self.seed)"
                var fed = 0, produced = 0, shortCalls = 0, overfull = 0
                while fed < total {
                    let chunk = min(total - fed, 1 + Int(random.next() % 4000))
                    let room = resampler.maximumOutputCount(forInputCount: chunk)
                    let moved = source.withUnsafeBufferPointer { all in
                        output.withUnsafeMutableBufferPointer {
                            resampler.process(UnsafeBufferPointer(rebasing: all[0..<chunk]),
                                              into: UnsafeMutableBufferPointer(rebasing: $0[0..<room]))
                        }
                    }
                    if moved.consumed != chunk { shortCalls += 1 }
                    if moved.produced > room { overfull += 1 }
                    if moved.consumed == 0 { break } // stuck: the assertions below report it
                    fed += moved.consumed
                    produced += moved.produced
                }
                produced += output.withUnsafeMutableBufferPointer { resampler.flush(into: $0) }
                XCTAssertEqual(shortCalls, 0, "\(label): calls that left input unconsumed")
                XCTAssertEqual(overfull, 0, "\(label): calls beyond maximumOutputCount")
                XCTAssertEqual(produced, total * outputRate / inputRate, label)
            }
        }
    }

    /// Random chunks into random (often too small) output room and flushes into small buffers give the same
    /// samples as one call and one flush; a reset stream, and a stream after a flush, start afresh.
    func testChunkedProcessingMatchesOneCall() throws {
        var random = SeededRandom(seed: Self.seed &+ 1)
        for backend in Self.backends {
            for (inputRate, outputRate) in Self.pairs {
                let input = (0..<(inputRate * 2)).map { _ in Float(random.unitDouble() - 0.5) * 0.8 }
                let resampler = try backend.make(inputRate, outputRate)
                let label = "\(backend) \(inputRate)→\(outputRate), seed \(Self.seed &+ 1)"
                let whole = Self.oneCall(resampler, input)
                XCTAssertEqual(whole.count, input.count * outputRate / inputRate, label)
                let chunked = Self.randomChunks(resampler, input, &random)
                XCTAssertEqual(chunked.count, whole.count, label)
                XCTAssertLessThanOrEqual(Self.maxDifference(chunked, whole), 1e-6, "\(label): chunked vs. one call")
                _ = Self.oneCall(resampler, Array(input.reversed()[0..<1234])) // unflushed stream …
                resampler.reset() // … then reset
                XCTAssertLessThanOrEqual(Self.maxDifference(Self.oneCall(resampler, input), whole), 1e-6, "\(label): after reset")
            }
        }
    }

    /// The int16 paths match the float path to within one step of rounding, with libsamplerate's scratch
    /// (capacity 500 here) forced to work in pieces, and give the same exact counts.
    func testInt16PathsMatchFloatPath() throws {
        var random = SeededRandom(seed: Self.seed &+ 2)
        for (inputRate, outputRate) in Self.pairs {
            let ints = (0..<inputRate).map { _ in Int16(truncatingIfNeeded: Int(random.next() % 40000) - 20000) }
            let floats = SampleConversion.float(from: ints)
            let speex = try SpeexResampler(inputRate: inputRate, outputRate: outputRate)
            let converter = try SampleRateConverter(inputRate: inputRate, outputRate: outputRate,
                                                    configuration: .init(int16ChunkCapacity: 500))
            let runs = [
                ("speex", ResamplerProbe.resampleInt16(ints, chunk: 1777, speex.process, speex.flush), speex.resample(floats)),
                ("libsamplerate", ResamplerProbe.resampleInt16(ints, chunk: 1777, converter.process, converter.flush),
                 converter.resample(floats)),
            ]
            for (name, (intOutput, shortCalls), floatOutput) in runs {
                let label = "\(name) int16 \(inputRate)→\(outputRate)"
                XCTAssertEqual(shortCalls, 0, "\(label): calls that left input unconsumed")
                XCTAssertEqual(intOutput.count, ints.count * outputRate / inputRate, label)
                let expected = SampleConversion.int16(from: floatOutput)
                let worst = zip(intOutput, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
                XCTAssertLessThanOrEqual(worst, 1, "\(label): largest difference from the float path")
            }
        }
    }

    func testBadConfigurationThrowsNamedErrors() {
        for (inputRate, outputRate) in [(7999, 16000), (16000, 48001), (0, 16000), (16000, 96000), (-8000, 8000)] {
            for backend in ResamplerBackend.defaults {
                let bad = inputRate == 16000 ? outputRate : inputRate
                XCTAssertThrowsError(try backend.make(inputRate, outputRate), "\(backend) \(inputRate)→\(outputRate)") {
                    let error = $0 as? AudioFrontEndError
                    XCTAssertEqual(error?.code, .unsupportedSampleRate, "\(backend) \(inputRate)→\(outputRate)")
                    XCTAssertTrue(error?.message.contains("\(bad) Hz") == true, "\(error?.message ?? "") names \(bad)")
                }
            }
        }
        for quality in [-1, 11] {
            XCTAssertThrowsError(try SpeexResampler(inputRate: 48000, outputRate: 16000, configuration: .init(quality: quality))) {
                let error = $0 as? AudioFrontEndError
                XCTAssertEqual(error?.code, .invalidConfiguration, "quality \(quality)")
                XCTAssertTrue(error?.message.contains("quality") == true && error?.message.contains("\(quality)") == true,
                              error?.message ?? "")
            }
        }
        XCTAssertThrowsError(try SampleRateConverter(inputRate: 48000, outputRate: 16000,
                                                     configuration: .init(int16ChunkCapacity: 0))) {
            XCTAssertEqual(($0 as? AudioFrontEndError)?.code, .invalidConfiguration)
        }
        XCTAssertNoThrow(try SpeexResampler(inputRate: 8000, outputRate: 48000, configuration: .init(quality: 10)))
        XCTAssertNoThrow(try SampleRateConverter(inputRate: 48000, outputRate: 8000, configuration: .init(quality: .best)))
    }

    /// process and flush, float and int16, allocate nothing after warm-up (2000 frames of 10 ms, flushing every 200).
    func testProcessAndFlushAllocateNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let speex = try SpeexResampler(inputRate: 48000, outputRate: 16000)
        let converter = try SampleRateConverter(inputRate: 48000, outputRate: 16000)
        let upsampler = try SampleRateConverter(inputRate: 16000, outputRate: 48000, configuration: .init(quality: .best))
        let copier = try SpeexResampler(inputRate: 16000, outputRate: 16000)
        let floatInput = ResamplerProbe.tone(1000, amplitude: 0.5, rate: 48000, seconds: 0.01)
        let intInput = SampleConversion.int16(from: floatInput)
        var floatOutput = [Float](repeating: 0, count: 2000)
        var intOutput = [Int16](repeating: 0, count: 2000)
        var produced = 0
        for pass in 0..<2 { // pass 0 warms up (the runtime allocates metadata on first use)
            if pass == 1 { afe_allocation_counter_start() }
            floatInput.withUnsafeBufferPointer { fin in
                intInput.withUnsafeBufferPointer { iin in
                    floatOutput.withUnsafeMutableBufferPointer { fout in
                        intOutput.withUnsafeMutableBufferPointer { iout in
                            for frame in 0..<2000 {
                                let fin16k = UnsafeBufferPointer(rebasing: fin[0..<160])
                                produced += speex.process(fin, into: fout).produced
                                produced += converter.process(fin, into: fout).produced
                                produced += upsampler.process(fin16k, into: fout).produced
                                produced += copier.process(fin16k, into: fout).produced
                                produced += speex.process(iin, into: iout).produced
                                produced += converter.process(iin, into: iout).produced
                                if frame % 200 == 199 {
                                    produced += speex.flush(into: fout) + converter.flush(into: fout)
                                    produced += upsampler.flush(into: fout) + copier.flush(into: fout)
                                    produced += speex.flush(into: iout) + converter.flush(into: iout)
                                }
                            }
                        }
                    }
                }
            }
        }
        let allocations = afe_allocation_counter_stop()
        XCTAssertEqual(allocations, 0, "allocations in 2000 frames × 6 streams")
        XCTAssertGreaterThan(produced, 0)
    }

    // MARK: - Helpers

    static func oneCall(_ resampler: any FlushAccounting, _ input: [Float]) -> [Float] {
        var output = [Float](repeating: 0, count: resampler.maximumOutputCount(forInputCount: input.count))
        let moved = input.withUnsafeBufferPointer { i in output.withUnsafeMutableBufferPointer { resampler.process(i, into: $0) } }
        XCTAssertEqual(moved.consumed, input.count, "one call consumes everything")
        var tail = [Float](repeating: 0, count: resampler.remainingOutputCount)
        let flushed = tail.withUnsafeMutableBufferPointer { resampler.flush(into: $0) }
        return Array(output[0..<moved.produced]) + tail[0..<flushed]
    }

    static func randomChunks(_ resampler: any FlushAccounting, _ input: [Float], _ random: inout SeededRandom) -> [Float] {
        var result: [Float] = []
        var buffer = [Float](repeating: 0, count: 30000)
        var offset = 0, idleCalls = 0
        input.withUnsafeBufferPointer { all in
            while offset < input.count, idleCalls < 1000 { // a stuck resampler ends the loop; the caller's count check fails
                let end = min(input.count, offset + 1 + Int(random.next() % 4000))
                let room = random.next() % 2 == 0 ? resampler.maximumOutputCount(forInputCount: end - offset)
                                                  : Int(random.next() % 200)
                let moved = buffer.withUnsafeMutableBufferPointer {
                    resampler.process(UnsafeBufferPointer(rebasing: all[offset..<end]), into: UnsafeMutableBufferPointer(rebasing: $0[0..<room]))
                }
                result += buffer[0..<moved.produced]
                offset += moved.consumed
                idleCalls = moved.consumed == 0 && moved.produced == 0 ? idleCalls + 1 : 0
            }
        }
        while resampler.remainingOutputCount > 0 {
            let room = 1 + Int(random.next() % 7)
            let written = buffer.withUnsafeMutableBufferPointer { resampler.flush(into: UnsafeMutableBufferPointer(rebasing: $0[0..<room])) }
            result += buffer[0..<written]
            if written == 0 { break }
        }
        return result
    }

    static func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count else { return .infinity }
        return zip(a, b).map { abs($0 - $1) }.max() ?? 0
    }
}

extension ResamplerBackend {
    var isLibsamplerate: Bool { if case .libsamplerate = self { true } else { false } }
}
