import AudioFrontEnd
import Foundation
import Synchronization

/// N sessions at once, each on its own push thread (plus its own drain thread), each pushing the whole input as
/// fast as it goes, against N bare C pipelines (one thread each) in rounds: ours and C back to back, the order
/// alternating round by round so that a drift in the machine's speed (other jobs, frequency, caches) falls on
/// both. Capacity is counted from CPU time (real-time audio seconds per CPU second), which other processes on a
/// shared machine disturb far less than wall time; the wall-time figure is reported beside it. Every figure is
/// the median over the rounds; memory is the largest round's.
struct ScalingResult: Codable {
    var sessions: Int
    /// Rounds of ours + C run back to back.
    var rounds: Int
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
    /// The same N sessions of the bare C pipeline, one thread each, in the same rounds: the control.
    var cSessionsPerCore: Double
    var cMemoryPerSessionMiB: Double
    /// Our sessions per core / C's, each round's pair: the median, the lowest and the highest round.
    var ratioToC: Double
    var ratioToCLowest: Double
    var ratioToCHighest: Double
}

enum Scaling {
    static func run(sessions: Int, rounds: Int, configuration: FrontEndConfiguration, input: BenchmarkInput) throws
        -> ScalingResult {
        var ours = [OursRound](), c = [CRound]()
        for round in 0..<rounds {
            if round % 2 == 0 {
                ours.append(try runOurs(sessions: sessions, configuration: configuration, input: input))
                c.append(try runC(sessions: sessions, configuration: configuration, input: input))
            } else {
                c.append(try runC(sessions: sessions, configuration: configuration, input: input))
                ours.append(try runOurs(sessions: sessions, configuration: configuration, input: input))
            }
        }
        let audio = input.seconds, n = Double(sessions)
        let perSession = median(ours.map { $0.cpu / (n * audio) })
        let ratios = zip(ours, c).map { (n * audio / $0.cpu) / $1.perCore }
        return ScalingResult(sessions: sessions, rounds: rounds, wallRealTimeFactor: median(ours.map { $0.wall / audio }),
                             cpuRealTimeFactorPerSession: perSession,
                             pushThreadRealTimeFactorPerSession: median(ours.map { $0.pushCPU / (n * audio) }),
                             sessionsPerCore: 1 / perSession, sessionsByWallTime: median(ours.map { n * audio / $0.wall }),
                             residentPerSessionMiB: ours.map(\.residentMiB).max() ?? .nan,
                             heapPerSessionMiB: ours.map(\.heapMiB).max() ?? .nan,
                             cSessionsPerCore: median(c.map(\.perCore)), cMemoryPerSessionMiB: c.map(\.memoryMiB).max() ?? .nan,
                             ratioToC: median(ratios), ratioToCLowest: ratios.min() ?? .nan, ratioToCHighest: ratios.max() ?? .nan)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// One round of ours: seconds of process CPU, of the push threads' CPU and of wall time; memory per session.
    private struct OursRound {
        var cpu: Double, pushCPU: Double, wall: Double, residentMiB: Double, heapMiB: Double
    }

    private struct CRound {
        var perCore: Double, memoryMiB: Double
    }

    private static func runOurs(sessions: Int, configuration: FrontEndConfiguration, input: BenchmarkInput) throws
        -> OursRound {
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
                // Before leaving: a `defer` ran after `leave`, so the waiting thread could read the sum first.
                pushCPU.add(Clock.threadCPU(), ordering: .relaxed)
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
        let mib = Double(sessions) * 1_048_576
        return OursRound(cpu: cpu, pushCPU: Double(pushCPU.load(ordering: .relaxed)) / 1e9, wall: wall,
                         residentMiB: Double(rss1 - rss0) / mib, heapMiB: Double(heap1 - heap0) / mib)
    }

    /// N bare C pipelines, one thread each: sessions per core from CPU time, and resident growth per session.
    private static func runC(sessions: Int, configuration: FrontEndConfiguration, input: BenchmarkInput) throws
        -> CRound {
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
        return CRound(perCore: Double(sessions) * input.seconds / cpu, memoryMiB: Double(rss1 - rss0) / Double(sessions) / 1_048_576)
    }

    private static let sharedCounter = EventCounter()
}
