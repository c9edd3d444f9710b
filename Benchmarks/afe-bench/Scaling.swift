import AudioFrontEnd
import Foundation
import Synchronization

/// N sessions at once, each on its own push thread (plus its own drain thread), each pushing the whole input as
/// fast as it goes. Capacity is counted from CPU time (real-time audio seconds per CPU second), which other
/// processes on a shared machine disturb far less than wall time; the wall-time figure is reported beside it.
struct ScalingResult: Codable {
    var sessions: Int
    /// Wall time / audio time of one session: ≤ 1 means all N sessions kept up with real time.
    var wallRealTimeFactor: Double
    /// Process CPU time / (N × audio time).
    var cpuRealTimeFactorPerSession: Double
    /// The push threads' CPU time / (N × audio time): the frame processing alone, without drain threads.
    var pushThreadRealTimeFactorPerSession: Double
    /// Sessions one core sustains in real time: 1 / cpuRealTimeFactorPerSession.
    var sessionsPerCore: Double
    /// Sessions the whole machine sustained by wall time: N / wallRealTimeFactor.
    var sessionsByWallTime: Double
    /// Resident set growth per session, MiB (rings, stages, library state, threads): only pages touched so far.
    var residentPerSessionMiB: Double
    /// Heap in use per session, MiB (every ring and library state whether touched yet or not; no stacks).
    var heapPerSessionMiB: Double
    /// The larger of the two: what a long session ends up holding.
    var memoryPerSessionMiB: Double { max(residentPerSessionMiB, heapPerSessionMiB) }
    /// The same N sessions of the bare C pipeline, one thread each, right after: the control for a shared machine.
    var cSessionsPerCore: Double
    var cMemoryPerSessionMiB: Double
}

enum Scaling {
    static func run(sessions: Int, configuration: FrontEndConfiguration, input: BenchmarkInput) throws -> ScalingResult {
        Memory.trim()
        let rss0 = Memory.residentBytes()
        let heap0 = Memory.heapBytes()
        var frontEnds = [FrontEnd]()
        for _ in 0..<sessions {
            let frontEnd = try FrontEnd(configuration: configuration)
            frontEnd.delegate = sharedCounter
            try frontEnd.start()
            frontEnds.append(frontEnd)
        }
        let n = input.frameLength
        let frames = input.frameCount
        let mic = input.mic, reference = input.reference
        let done = DispatchGroup()
        let pushCPU = Atomic<Int64>(0)
        let cpu0 = Clock.processCPU()
        let wall0 = Clock.now()
        for frontEnd in frontEnds {
            done.enter()
            let thread = Thread {
                defer { pushCPU.add(Clock.threadCPU(), ordering: .relaxed) }
                mic.withUnsafeBufferPointer { mic in
                    reference.withUnsafeBufferPointer { reference in
                        for k in 0..<frames {
                            _ = frontEnd.pushReference(samples: UnsafeBufferPointer(rebasing: reference[(k * n)..<(k * n + n)]))
                            var taken = 0
                            while taken < n {
                                taken += frontEnd.pushMic(samples: UnsafeBufferPointer(rebasing: mic[(k * n + taken)..<(k * n + n)])).accepted
                            }
                        }
                    }
                }
                done.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        done.wait()
        let wall = Double(Clock.now() - wall0) / 1e9
        let cpu = Double(Clock.processCPU() - cpu0) / 1e9
        for frontEnd in frontEnds { try frontEnd.finish() }
        let rss1 = Memory.residentBytes()
        let heap1 = Memory.heapBytes()
        frontEnds.removeAll()
        let audio = input.seconds
        let perSession = cpu / (Double(sessions) * audio)
        let c = try runC(sessions: sessions, configuration: configuration, input: input)
        return ScalingResult(sessions: sessions, wallRealTimeFactor: wall / audio, cpuRealTimeFactorPerSession: perSession,
                             pushThreadRealTimeFactorPerSession: Double(pushCPU.load(ordering: .relaxed)) / 1e9
                                 / (Double(sessions) * audio),
                             sessionsPerCore: 1 / perSession, sessionsByWallTime: Double(sessions) * audio / wall,
                             residentPerSessionMiB: Double(rss1 - rss0) / Double(sessions) / 1_048_576,
                             heapPerSessionMiB: Double(heap1 - heap0) / Double(sessions) / 1_048_576,
                             cSessionsPerCore: c.perCore, cMemoryPerSessionMiB: c.memoryMiB)
    }

    /// N bare C pipelines, one thread each: sessions per core from CPU time, and resident growth per session.
    private static func runC(sessions: Int, configuration: FrontEndConfiguration, input: BenchmarkInput) throws
        -> (perCore: Double, memoryMiB: Double) {
        Memory.trim()
        let rss0 = Memory.residentBytes()
        let config = try ReferenceConfiguration.c(matching: configuration)
        let pipelines = try (0..<sessions).map { _ in try CPipeline(config) }
        let n = input.frameLength
        let frames = input.frameCount
        let mic = input.mic, reference = input.reference
        let done = DispatchGroup()
        let cpu0 = Clock.processCPU()
        for pipeline in pipelines {
            nonisolated(unsafe) let pipeline = pipeline
            done.enter()
            let thread = Thread {
                mic.withUnsafeBufferPointer { mic in
                    reference.withUnsafeBufferPointer { reference in
                        for k in 0..<frames { _ = pipeline.process(mic, reference, frame: k, length: n, times: nil) }
                    }
                }
                done.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        done.wait()
        let cpu = Double(Clock.processCPU() - cpu0) / 1e9
        let rss1 = Memory.residentBytes()
        withExtendedLifetime(pipelines) {}
        return (Double(sessions) * input.seconds / cpu, Double(rss1 - rss0) / Double(sessions) / 1_048_576)
    }

    private static let sharedCounter = EventCounter()
}
