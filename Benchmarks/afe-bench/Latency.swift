import AudioFrontEnd
import Foundation

/// Push → AEC-output-event latency: a mic thread and a reference thread push 10 ms each every 10 ms (paced in
/// real time), the front end's drain thread hands the processed audio to a consumer, which stamps each
/// `.audio` event. Latency of a frame = its arrival − the start of the mic push that completed it.
struct LatencyResult: Codable {
    var pushToEvent: Distribution
    var pushMic: Distribution
    var pushReference: Distribution
    var frames: Int
    var missingEvents: Int
}

/// Stamps the arrival of each processed 10 ms frame (drain thread); read after `finish()`.
final class ArrivalRecorder: FrontEndDelegate, @unchecked Sendable {
    // Invariant for @unchecked Sendable: written only on the drain thread, read after finish() returned.
    let arrivals: UnsafeMutableBufferPointer<Int64>
    let frameLength: Int

    init(frames: Int, frameLength: Int) {
        arrivals = .allocate(capacity: frames)
        arrivals.initialize(repeating: 0)
        self.frameLength = frameLength
    }

    deinit { arrivals.deallocate() }

    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        guard case .audio(let chunk) = event else { return }
        let now = Clock.now()
        var position = chunk.position
        while position < chunk.position + chunk.samples.count {
            let frame = position / frameLength
            if frame < arrivals.count, arrivals[frame] == 0 { arrivals[frame] = now }
            position += frameLength - position % frameLength
        }
    }
}

enum Latency {
    static func run(configuration: FrontEndConfiguration, input: BenchmarkInput) throws -> LatencyResult {
        let n = input.frameLength
        let frames = input.frameCount
        let outputFrame = configuration.effectiveOutputRate / 100
        let completedBy = try framesCompleted(pushes: frames, input: input, configuration: configuration)
        let frontEnd = try FrontEnd(configuration: configuration)
        let recorder = ArrivalRecorder(frames: frames, frameLength: outputFrame)
        frontEnd.delegate = recorder
        try frontEnd.start()
        let micStarts = UnsafeMutableBufferPointer<Int64>.allocate(capacity: frames)
        let micCosts = UnsafeMutableBufferPointer<Int64>.allocate(capacity: frames)
        let referenceCosts = UnsafeMutableBufferPointer<Int64>.allocate(capacity: frames)
        defer { micStarts.deallocate(); micCosts.deallocate(); referenceCosts.deallocate() }
        let start = Clock.now() + 20_000_000
        let done = DispatchGroup()
        nonisolated(unsafe) let micStartsBox = micStarts, micCostsBox = micCosts, referenceCostsBox = referenceCosts
        let mic = input.mic, reference = input.reference
        func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
            done.enter()
            let thread = Thread {
                body()
                done.leave()
            }
            thread.name = name
            thread.start()
        }
        // The reference is played before its echo is captured: its thread runs 2 ms ahead.
        spawn("reference") {
            reference.withUnsafeBufferPointer { samples in
                for k in 0..<frames {
                    Clock.sleep(until: start + Int64(k) * 10_000_000 - 2_000_000)
                    let t = Clock.now()
                    _ = frontEnd.pushReference(samples: UnsafeBufferPointer(rebasing: samples[(k * n)..<(k * n + n)]))
                    referenceCostsBox[k] = Clock.now() - t
                }
            }
        }
        spawn("mic") {
            mic.withUnsafeBufferPointer { samples in
                for k in 0..<frames {
                    Clock.sleep(until: start + Int64(k) * 10_000_000)
                    let t = Clock.now()
                    _ = frontEnd.pushMic(samples: UnsafeBufferPointer(rebasing: samples[(k * n)..<(k * n + n)]))
                    micStartsBox[k] = t
                    micCostsBox[k] = Clock.now() - t
                }
            }
        }
        done.wait()
        try frontEnd.finish()
        var latencies = [Int64]()
        var missing = 0
        for (frame, push) in completedBy.enumerated() where push >= 0 && frame >= 100 {
            let arrival = recorder.arrivals[frame]
            if arrival == 0 { missing += 1; continue }
            latencies.append(arrival - micStarts[push])
        }
        return LatencyResult(pushToEvent: Distribution(nanoseconds: latencies),
                             pushMic: Distribution(nanoseconds: Array(micCosts[100...])),
                             pushReference: Distribution(nanoseconds: Array(referenceCosts[100...])),
                             frames: latencies.count, missingEvents: missing)
    }

    /// For each processed frame, the index of the mic push (of 10 ms) that completed it, from a replica of the
    /// pipeline's mic resampler fed the same chunks; -1 for frames completed only by `finish()`.
    private static func framesCompleted(pushes: Int, input: BenchmarkInput, configuration: FrontEndConfiguration)
        throws -> [Int] {
        let rate = configuration.processingRate
        let frameLength = rate / 100
        let replica = try SpeexResampler(inputRate: input.sampleRate, outputRate: rate)
        var out = [Int16](repeating: 0, count: 2 * frameLength + 64)
        var produced = 0
        var result = [Int]()
        let n = input.frameLength
        input.mic.withUnsafeBufferPointer { mic in
            out.withUnsafeMutableBufferPointer { out in
                for k in 0..<pushes {
                    produced += replica.process(UnsafeBufferPointer(rebasing: mic[(k * n)..<(k * n + n)]), into: out).produced
                    while (result.count + 1) * frameLength <= produced { result.append(k) }
                }
            }
        }
        guard rate == configuration.effectiveOutputRate else { return result.map { _ in -1 } }
        return result
    }
}
