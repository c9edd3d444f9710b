import AudioFrontEnd
import Synchronization

/// Counts the events a front end delivers and the Opus bytes among them (on its drain thread).
final class EventCounter: FrontEndDelegate {
    let count = Atomic<Int>(0)
    let opusBytes = Atomic<Int>(0)
    /// Level events delivered: one per processed frame.
    let levels = Atomic<Int>(0)
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        count.add(1, ordering: .relaxed)
        if case .level = event { levels.add(1, ordering: .relaxed) }
        if case .opusPacket(let packet) = event { opusBytes.add(packet.bytes.count, ordering: .relaxed) }
    }
}

/// Our full pipeline, driven as fast as it goes: each 10 ms, push 10 ms of reference then 10 ms of mic (the
/// frame is processed inside the mic push).
struct PipelineResult: Codable {
    var name: String
    /// pushReference + pushMic per 10 ms frame, µs.
    var frame: Distribution
    var pushMic: Distribution
    var pushReference: Distribution
    /// Push thread CPU / audio time.
    var realTimeFactor: Double
    /// Process CPU (push thread + drain thread) / audio time.
    var processRealTimeFactor: Double
    /// Heap allocations per frame on the push thread after warm-up.
    var allocationsPerFrame: Double
    /// Heap allocations per frame in the whole process (the drain thread turns events into Swift values).
    var processAllocationsPerFrame: Double
    var framesProcessed: Int
    /// Opus bitrate of the whole run, kb/s: a check that both pipelines encode alike.
    var opusKilobitsPerSecond: Double
}

enum OurPipeline {
    static func run(_ name: String, configuration: FrontEndConfiguration, input: BenchmarkInput,
                    warmupFrames: Int = 100) throws -> PipelineResult {
        let frontEnd = try FrontEnd(configuration: configuration)
        let counter = EventCounter()
        frontEnd.delegate = counter
        try frontEnd.start()
        let n = input.frameLength
        var micTimes = [Int64](repeating: 0, count: input.frameCount)
        var referenceTimes = [Int64](repeating: 0, count: input.frameCount)
        var refused = 0
        let loop = FrameLoop(warmupFrames: warmupFrames, frames: input.frameCount - warmupFrames)
        let result = input.mic.withUnsafeBufferPointer { mic in
            input.reference.withUnsafeBufferPointer { reference in
                micTimes.withUnsafeMutableBufferPointer { micTimes in
                    referenceTimes.withUnsafeMutableBufferPointer { referenceTimes in
                        loop.run { i in
                            let t0 = Clock.now()
                            let r = frontEnd.pushReference(samples: UnsafeBufferPointer(rebasing: reference[(i * n)..<(i * n + n)]))
                            let t1 = Clock.now()
                            let m = frontEnd.pushMic(samples: UnsafeBufferPointer(rebasing: mic[(i * n)..<(i * n + n)]))
                            let t2 = Clock.now()
                            referenceTimes[i] = t1 - t0
                            micTimes[i] = t2 - t1
                            if r.accepted != n || m.accepted != n { refused += 1 }
                        }
                    }
                }
            }
        }
        let summary = try frontEnd.finish()
        guard refused == 0 else { throw BenchmarkError("\(name): \(refused) pushes were not fully accepted") }
        let frames = Double(loop.frames)
        let seconds = frames / 100
        return PipelineResult(
            name: name, frame: Distribution(nanoseconds: result.wall),
            pushMic: Distribution(nanoseconds: Array(micTimes[warmupFrames...])),
            pushReference: Distribution(nanoseconds: Array(referenceTimes[warmupFrames...])),
            realTimeFactor: Double(result.cpuNanoseconds) / 1e9 / seconds,
            processRealTimeFactor: Double(result.processCPUNanoseconds) / 1e9 / seconds,
            allocationsPerFrame: Double(result.allocations) / frames,
            processAllocationsPerFrame: Double(result.processAllocations) / frames,
            framesProcessed: summary.framesProcessed,
            opusKilobitsPerSecond: Double(counter.opusBytes.load(ordering: .relaxed)) * 8 / 1000 / input.seconds)
    }
}
