import AllocationCounter

/// Times a body called once per 10 ms frame after a warm-up, counting the calling thread's heap allocations and
/// CPU time over the measured frames.
struct FrameLoop {
    let warmupFrames: Int
    let frames: Int

    struct Result {
        var wall: [Int64]
        var cpuNanoseconds: Int64
        var processCPUNanoseconds: Int64
        var allocations: Int64
        var processAllocations: Int64
    }

    /// Calls `body(frameIndex)` for warm-up then measured frames; `body` returns nothing and must not allocate
    /// for the count to mean anything.
    func run(_ body: (Int) -> Void) -> Result {
        for i in 0..<warmupFrames { body(i) }
        var wall = [Int64](repeating: 0, count: frames)
        let cpu0 = Clock.threadCPU()
        let process0 = Clock.processCPU()
        afe_allocation_counter_start_global()
        afe_allocation_counter_start()
        wall.withUnsafeMutableBufferPointer { wall in
            for i in 0..<frames {
                let t0 = Clock.now()
                body(warmupFrames + i)
                wall[i] = Clock.now() - t0
            }
        }
        let allocations = afe_allocation_counter_stop()
        let processAllocations = afe_allocation_counter_stop_global()
        return Result(wall: wall, cpuNanoseconds: Clock.threadCPU() - cpu0,
                      processCPUNanoseconds: Clock.processCPU() - process0,
                      allocations: allocations, processAllocations: processAllocations)
    }
}

/// One measured stage or pipeline: per-frame wall time, CPU real-time factor, allocations per frame.
struct StageResult: Codable {
    var name: String
    /// Wall time per call (per 10 ms frame unless `unit` says otherwise), µs.
    var time: Distribution
    var unit: String
    /// CPU time of the calling thread / audio time.
    var realTimeFactor: Double
    /// Heap allocations per frame on the calling thread after warm-up.
    var allocationsPerFrame: Double

    init(name: String, unit: String = "10 ms frame", result: FrameLoop.Result, calls: [Int64]? = nil,
         audioSeconds: Double) {
        self.name = name
        self.unit = unit
        time = Distribution(nanoseconds: calls ?? result.wall)
        realTimeFactor = Double(result.cpuNanoseconds) / 1e9 / audioSeconds
        allocationsPerFrame = Double(result.allocations) / Double(max(1, result.wall.count))
    }
}
