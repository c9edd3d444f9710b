/// Stream bookkeeping shared by the resampler backends: the rates, the samples consumed and produced since the
/// stream began, and what a flush still owes.
///
/// The counts are what make the ``Resampler`` contract exact: over a stream of `n` input samples a backend
/// produces `floor(n × outputRate / inputRate)` samples, the last of them by feeding zeros in
/// ``Resampler/flush(into:)``. Real-time safe (no allocation after creation); owned by one resampler, so one
/// thread at a time.
struct ResamplerStream {
    let inputRate: Int
    let outputRate: Int
    /// The rates divided by their greatest common divisor, so the products stay small.
    private let inputStep: Int
    private let outputStep: Int
    /// Input samples consumed since the stream began (zeros fed by a flush are not counted).
    private(set) var consumed = 0
    /// Output samples produced since the stream began, flushed ones included.
    private(set) var produced = 0

    /// The most samples one backend call produces beyond `floor(n × outputRate / inputRate)` for `n` inputs:
    /// the outputs of a call are the output instants falling in a stretch of `n` input samples, at most one more
    /// than the floor, and one more for the rounding of the backend's own position arithmetic.
    static let outputSlack = 2

    /// Checks both rates against ``SampleRates/supported``.
    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` naming the component and the rate.
    init(inputRate: Int, outputRate: Int, component: String) throws {
        try Self.checkRate(inputRate, "input", component)
        try Self.checkRate(outputRate, "output", component)
        self.inputRate = inputRate
        self.outputRate = outputRate
        var a = inputRate, b = outputRate
        while b != 0 { (a, b) = (b, a % b) }
        inputStep = inputRate / a
        outputStep = outputRate / a
    }

    private static func checkRate(_ rate: Int, _ side: String, _ component: String) throws {
        let range = SampleRates.supported
        guard range.contains(rate) else {
            throw AudioFrontEndError(.unsupportedSampleRate,
                                     "\(component) \(side) rate must be \(range.lowerBound)...\(range.upperBound) Hz, not \(rate) Hz")
        }
    }

    /// True when the rates are equal and the backend copies.
    var isPassThrough: Bool { inputRate == outputRate }

    /// `floor(n × outputRate / inputRate)`.
    func expectedOutput(forInput n: Int) -> Int { n * outputStep / inputStep }

    /// The most samples one call can produce for `n` input samples (exactly `n` when copying).
    func maximumOutput(forInput n: Int) -> Int {
        isPassThrough ? n : expectedOutput(forInput: n) + Self.outputSlack
    }

    /// The largest input count whose output surely fits in `room` samples: the inverse of ``maximumOutput(forInput:)``.
    func maximumInput(forOutputRoom room: Int) -> Int {
        if isPassThrough { return room }
        guard room >= Self.outputSlack else { return 0 }
        // p × out / in < room - 1  ⇔  floor(p × out / in) + 2 ≤ room
        return ((room - Self.outputSlack + 1) * inputStep - 1) / outputStep
    }

    /// Samples still owed for the input consumed so far: what a flush writes.
    var owed: Int { max(0, expectedOutput(forInput: consumed) - produced) }

    mutating func record(_ moved: (consumed: Int, produced: Int)) {
        consumed += moved.consumed
        produced += moved.produced
    }

    /// Starts a new stream: the counts return to zero.
    mutating func restart() {
        consumed = 0
        produced = 0
    }

    /// Copies as much of `input` as fits into `output` (equal rates) and counts it.
    mutating func passThrough<Sample>(_ input: UnsafeBufferPointer<Sample>,
                                      into output: UnsafeMutableBufferPointer<Sample>) -> (consumed: Int, produced: Int) {
        let count = min(input.count, output.count)
        if count > 0, let source = input.baseAddress, let destination = output.baseAddress {
            destination.update(from: source, count: count)
        }
        record((count, count))
        return (count, count)
    }
}
