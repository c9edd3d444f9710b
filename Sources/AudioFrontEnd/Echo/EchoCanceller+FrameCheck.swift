/// The frame-length contract every echo canceller backend shares.
extension EchoCanceller {
    /// True when all three buffers hold exactly ``frameLength`` samples. Otherwise copies as much of `capture`
    /// into `output` as fits (unless they are the same memory) and returns false, so the caller can return
    /// ``StageStatus/wrongFrameLength``. Real-time safe.
    @inline(__always)
    func checkFrame(capture: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
                    output: UnsafeMutableBufferPointer<Int16>) -> Bool {
        let length = frameLength
        if capture.count == length && reference.count == length && output.count == length
            && capture.baseAddress != nil && reference.baseAddress != nil && output.baseAddress != nil {
            return true
        }
        copyCapture(capture, to: output, count: min(capture.count, output.count))
        return false
    }

    /// Copies the first `count` samples of `capture` into `output` unless both are the same memory.
    /// Real-time safe.
    @inline(__always)
    func copyCapture(_ capture: UnsafeBufferPointer<Int16>, to output: UnsafeMutableBufferPointer<Int16>,
                     count: Int) {
        guard count > 0, let source = capture.baseAddress, let target = output.baseAddress,
              UnsafePointer(target) != source else { return }
        target.update(from: source, count: count)
    }
}
