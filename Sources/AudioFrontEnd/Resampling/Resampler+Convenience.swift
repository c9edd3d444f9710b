/// Allocating conveniences over any ``Resampler``. Not real-time safe: they allocate arrays.
extension Resampler {
    /// Resamples a whole stream in one go: processes `input`, then flushes, returning
    /// ``expectedOutputCount(forInputCount:)`` samples when the stream was fresh (just created, reset or flushed).
    /// Afterwards the resampler is ready for a new stream. Allocates; not real-time safe. One thread at a time.
    public func resample(_ input: [Float]) -> [Float] {
        var output: [Float] = []
        output.reserveCapacity(expectedOutputCount(forInputCount: input.count) + 16)
        let chunk = 4096
        var scratch = [Float](repeating: 0, count: max(maximumOutputCount(forInputCount: chunk), chunk))
        input.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let end = min(offset + chunk, all.count)
                let moved = scratch.withUnsafeMutableBufferPointer {
                    process(UnsafeBufferPointer(rebasing: all[offset..<end]), into: $0)
                }
                output.append(contentsOf: scratch[0..<moved.produced])
                if moved.consumed == 0 && moved.produced == 0 { break }
                offset += moved.consumed
            }
        }
        while true {
            let written = scratch.withUnsafeMutableBufferPointer { flush(into: $0) }
            output.append(contentsOf: scratch[0..<written])
            if written < scratch.count { break }
        }
        return output
    }
}
