import CSpeexDSP

/// 16-bit processing through speexdsp's own integer entry point: the pipeline's int16 frames go in and come out
/// without a float scratch buffer. speexdsp (a float build) converts each sample to float inside, filters, and
/// rounds and clips the result to int16; its intermediate buffer lives on the C stack, so these calls do not
/// allocate either. Same alignment and exact counts as the Float path; a stream must use one path throughout.
extension SpeexResampler {
    /// Resamples int16 `input` into `output`; see ``Resampler/process(_:into:)``. Real-time safe: no allocation,
    /// no locks. Consumes all of `input` when `output` holds ``maximumOutputCount(forInputCount:)`` samples.
    /// Caller's thread, one at a time.
    ///
    /// The corresponding C function is `speex_resampler_process_int`.
    /// - Returns: samples consumed from `input` and produced into `output`.
    public func process(_ input: UnsafeBufferPointer<Int16>,
                        into output: UnsafeMutableBufferPointer<Int16>) -> (consumed: Int, produced: Int) {
        resample(input, into: output) { speex_resampler_process_int($0, 0, $1, &$2, $3, &$4) }
    }

    /// Ends an int16 stream; see ``flush(into:)-(UnsafeMutableBufferPointer<Float>)``. Real-time safe.
    ///
    /// The corresponding C function is `speex_resampler_process_int` with no input (zeros).
    /// - Returns: the samples written.
    public func flush(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        drain(into: output) { speex_resampler_process_int($0, 0, $1, &$2, $3, &$4) }
    }
}
