/// 16-bit processing for the int16 pipeline: each piece of at most
/// ``SampleRateConverter/Configuration/int16ChunkCapacity`` samples is converted to float in scratch buffers sized
/// at creation, resampled, and rounded and clipped back to int16. No allocation. Same alignment and exact counts
/// as the Float path; a stream must use one path throughout.
extension SampleRateConverter {
    /// Resamples int16 `input` into `output`; see ``Resampler/process(_:into:)``. Real-time safe: no allocation,
    /// no locks. Consumes all of `input` when `output` holds ``maximumOutputCount(forInputCount:)`` samples;
    /// chunks longer than the scratch are processed in pieces. Caller's thread, one at a time.
    ///
    /// The corresponding C function is `src_process`.
    /// - Returns: samples consumed from `input` and produced into `output`.
    public func process(_ input: UnsafeBufferPointer<Int16>,
                        into output: UnsafeMutableBufferPointer<Int16>) -> (consumed: Int, produced: Int) {
        if stream.isPassThrough { return stream.passThrough(input, into: output) }
        var consumed = 0, produced = 0
        while consumed < input.count {
            let piece = min(input.count - consumed, floatInput.count)
            let room = min(output.count - produced, floatOutput.count)
            let pieceInput = UnsafeMutableBufferPointer(rebasing: floatInput[0..<piece])
            SampleConversion.convert(UnsafeBufferPointer(rebasing: input[consumed..<(consumed + piece)]), to: pieceInput)
            let step = process(UnsafeBufferPointer(pieceInput),
                               into: UnsafeMutableBufferPointer(rebasing: floatOutput[0..<room]))
            SampleConversion.convert(UnsafeBufferPointer(rebasing: floatOutput[0..<step.produced]),
                                     to: UnsafeMutableBufferPointer(rebasing: output[produced..<(produced + step.produced)]))
            consumed += step.consumed
            produced += step.produced
            if step.consumed < piece { break } // output full
        }
        return (consumed, produced)
    }

    /// Ends an int16 stream; see ``flush(into:)-(UnsafeMutableBufferPointer<Float>)``. Real-time safe.
    ///
    /// The corresponding C function is `src_process` over zeros.
    /// - Returns: the samples written.
    public func flush(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        var written = 0
        repeat {
            let count = min(output.count - written, floatOutput.count)
            let piece = flush(into: UnsafeMutableBufferPointer(rebasing: floatOutput[0..<count]))
            SampleConversion.convert(UnsafeBufferPointer(rebasing: floatOutput[0..<piece]),
                                     to: UnsafeMutableBufferPointer(rebasing: output[written..<(written + piece)]))
            written += piece
            if piece < count || piece == 0 { break }
        } while written < output.count
        return written
    }
}
