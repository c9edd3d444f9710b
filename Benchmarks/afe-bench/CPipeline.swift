import CReferencePipeline

/// The bare C reference pipeline, driven like ours: one call per 10 ms frame, each stage timed inside.
struct CPipelineResult: Codable {
    var name: String
    var frame: Distribution
    var realTimeFactor: Double
    var allocationsPerFrame: Double
    /// Per stage, µs per call (Opus per 20 ms packet).
    var stages: [String: Distribution]
    /// Opus bitrate of the whole run, kb/s.
    var opusKilobitsPerSecond: Double
}

final class CPipeline {
    let handle: OpaquePointer

    init(_ config: afe_ref_config) throws {
        var config = config
        var error: Int32 = 0
        guard let handle = afe_ref_create(&config, &error) else {
            throw BenchmarkError("the C reference pipeline could not be created (status \(error))")
        }
        self.handle = handle
    }

    deinit { afe_ref_destroy(handle) }

    /// Processes frame `i` of `input`; returns the Opus bytes or a negative status.
    @inline(__always)
    func process(_ mic: UnsafeBufferPointer<Int16>, _ reference: UnsafeBufferPointer<Int16>, frame i: Int,
                 length n: Int, times: UnsafeMutablePointer<afe_ref_stage_times>?) -> Int32 {
        afe_ref_process(handle, mic.baseAddress! + i * n, reference.baseAddress! + i * n, times)
    }

    static func run(_ name: String, config: afe_ref_config, input: BenchmarkInput,
                    warmupFrames: Int = 100) throws -> CPipelineResult {
        let pipeline = try CPipeline(config)
        let n = input.frameLength
        let total = input.frameCount
        var stageTimes = [afe_ref_stage_times](repeating: afe_ref_stage_times(), count: total)
        var failures = 0
        var opusBytes = 0
        let loop = FrameLoop(warmupFrames: warmupFrames, frames: total - warmupFrames)
        let result = input.mic.withUnsafeBufferPointer { mic in
            input.reference.withUnsafeBufferPointer { reference in
                stageTimes.withUnsafeMutableBufferPointer { times in
                    loop.run { i in
                        let bytes = pipeline.process(mic, reference, frame: i, length: n, times: times.baseAddress! + i)
                        if bytes < 0 { failures += 1 } else { opusBytes += Int(bytes) }
                    }
                }
            }
        }
        guard failures == 0 else { throw BenchmarkError("\(name): \(failures) frames failed") }
        let measured = stageTimes[warmupFrames...]
        func stage(_ value: (afe_ref_stage_times) -> Int64) -> Distribution {
            Distribution(nanoseconds: measured.map(value).filter { $0 > 0 })
        }
        let frames = Double(loop.frames)
        return CPipelineResult(
            name: name, frame: Distribution(nanoseconds: result.wall),
            realTimeFactor: Double(result.cpuNanoseconds) / 1e9 / (frames / 100),
            allocationsPerFrame: Double(result.allocations) / frames,
            stages: ["resample mic": stage { $0.resample_mic }, "resample reference": stage { $0.resample_reference },
                     "APM render": stage { $0.apm_render }, "APM capture": stage { $0.apm_capture },
                     "APM render + capture": stage { $0.apm_render + $0.apm_capture },
                     "Opus packet": stage { $0.opus }],
            opusKilobitsPerSecond: Double(opusBytes) * 8 / 1000 / input.seconds)
    }
}
