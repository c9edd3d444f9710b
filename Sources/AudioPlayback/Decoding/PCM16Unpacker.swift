/// Turns little-endian 16-bit interleaved bytes, split anywhere, into mono samples (channels averaged).
///
/// Holds the bytes of an incomplete frame between calls; scratch sized at creation, so no call allocates.
/// One thread at a time.
struct PCM16Unpacker {
    let channelCount: Int
    private var carry: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private(set) var carried = 0
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// The most channels a frame may have (its bytes must fit in the carry).
    static let maximumChannelCount = 8
    /// Mono samples per output call.
    static let chunkSamples = 2048

    init(channelCount: Int) {
        precondition((1...Self.maximumChannelCount).contains(channelCount))
        self.channelCount = channelCount
        scratch = .allocate(capacity: Self.chunkSamples)
    }

    func deallocate() { scratch.deallocate() }

    private var frameBytes: Int { 2 * channelCount }

    /// Unpacks `bytes` and returns the mono samples produced.
    @discardableResult
    mutating func unpack(_ bytes: UnsafeRawBufferPointer, output: (UnsafeBufferPointer<Int16>) -> Void) -> Int {
        var offset = 0
        var produced = 0
        // Complete the carried frame first.
        if carried > 0 {
            let need = min(frameBytes - carried, bytes.count)
            withUnsafeMutableBytes(of: &carry) { raw in
                for i in 0..<need { raw[carried + i] = bytes[i] }
            }
            carried += need
            offset = need
            guard carried == frameBytes else { return 0 }
            let sample = withUnsafeBytes(of: carry) { mix(UnsafeRawBufferPointer(rebasing: $0[0..<frameBytes]), 0) }
            scratch[0] = sample
            output(UnsafeBufferPointer(rebasing: scratch[0..<1]))
            carried = 0
            produced = 1
        }
        while bytes.count - offset >= frameBytes {
            let frames = min((bytes.count - offset) / frameBytes, Self.chunkSamples)
            let base = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + frames * frameBytes)])
            for frame in 0..<frames { scratch[frame] = mix(base, frame * frameBytes) }
            output(UnsafeBufferPointer(rebasing: scratch[0..<frames]))
            offset += frames * frameBytes
            produced += frames
        }
        let left = bytes.count - offset
        if left > 0 {
            withUnsafeMutableBytes(of: &carry) { raw in
                for i in 0..<left { raw[i] = bytes[offset + i] }
            }
            carried = left
        }
        return produced
    }

    /// The frame at `at` in `bytes`, its channels averaged (rounded toward zero).
    @inline(__always)
    private func mix(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int16 {
        if channelCount == 1 { return Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8) }
        var sum = 0
        for c in 0..<channelCount {
            sum += Int(Int16(bitPattern: UInt16(bytes[at + 2 * c]) | UInt16(bytes[at + 2 * c + 1]) << 8))
        }
        return Int16(sum / channelCount)
    }
}
