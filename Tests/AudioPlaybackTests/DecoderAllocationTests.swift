import AllocationCounter
import AudioPlayback
import XCTest

/// After the header (the first two pieces, when the codec and the resampler are created), decoding a stream
/// allocates nothing, for every format, resampled or not.
final class DecoderAllocationTests: XCTestCase {
    func testNoAllocationAfterTheFirstTwoPieces() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let wav = try EncodedInputs.speech(rate: 22050)
        let wav24 = try EncodedInputs.speech(rate: 24000)
        let (source, _) = try EncodedInputs.samples(wav)
        let streams: [(SynthesisAudioFormat, Int, [[UInt8]])] = [
            (.pcm, 22050, stride(from: 0, to: source.count, by: 2048).map { Bytes.littleEndian(Array(source[$0..<min($0 + 2048, source.count)])) }),
            (.wav, 22050, Self.pieces(try EncodedInputs.bytes(wav))),
            (.mp3, 22050, Self.pieces(try EncodedInputs.mp3(wav))),
            (.opus, 24000, Feed.oggPages(try EncodedInputs.opus(wav24))),
        ]
        for (format, rate, pieces) in streams {
            for outputRate in [rate, 16000, 48000] {
                let decoder = try PlaybackDecoder(format: format, sampleRate: rate, outputRate: outputRate)
                var produced = 0
                var allocations: Int64 = 0
                // One flat buffer, the pieces as ranges of it: the loop itself allocates nothing.
                let flat = pieces.flatMap { $0 }
                var ends: [Int] = []
                for piece in pieces { ends.append((ends.last ?? 0) + piece.count) }
                try flat.withUnsafeBytes { all in
                    var start = 0
                    for index in 0..<ends.count {
                        if index == 2 { afe_allocation_counter_start() }
                        try decoder.decode(UnsafeRawBufferPointer(rebasing: all[start..<ends[index]])) { produced += $0.count }
                        start = ends[index]
                    }
                    try decoder.finish { produced += $0.count }
                    allocations = afe_allocation_counter_stop()
                }
                XCTAssertGreaterThan(produced, 0)
                XCTAssertEqual(allocations, 0, "\(format) \(rate) → \(outputRate) Hz, \(pieces.count) pieces")
            }
        }
    }

    private static func pieces(_ bytes: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: 4096).map { Array(bytes[$0..<min($0 + 4096, bytes.count)]) }
    }
}
