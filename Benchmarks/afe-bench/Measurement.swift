import CReferencePipeline
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Clocks, order statistics and the process's resident memory, for the benchmark (not real-time code).
enum Clock {
    /// Monotonic wall time, ns.
    @inline(__always) static func now() -> Int64 { read(CLOCK_MONOTONIC) }
    /// CPU time of the calling thread, ns.
    static func threadCPU() -> Int64 { read(CLOCK_THREAD_CPUTIME_ID) }
    /// CPU time of the whole process (every thread), ns.
    static func processCPU() -> Int64 { read(CLOCK_PROCESS_CPUTIME_ID) }

    @inline(__always) private static func read(_ clock: clockid_t) -> Int64 {
        var t = timespec()
        clock_gettime(clock, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }

    /// Sleeps until the monotonic time `deadline` (ns).
    static func sleep(until deadline: Int64) {
        var t = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nil) == EINTR {}
    }
}

/// Median, 99th percentile and maximum of a set of durations, in microseconds.
struct Distribution: Codable {
    var median: Double
    var p99: Double
    var max: Double
    var count: Int

    /// From durations in ns.
    init(nanoseconds values: [Int64]) {
        let sorted = values.sorted()
        count = sorted.count
        func at(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let index = min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded(.up)))
            return Double(sorted[index]) / 1000
        }
        median = at(0.5)
        p99 = at(0.99)
        self.max = at(1)
    }

    init(median: Double, p99: Double, max: Double, count: Int) {
        self.median = median
        self.p99 = p99
        self.max = max
        self.count = count
    }
}

enum Memory {
    /// Resident set size of this process, bytes (from /proc/self/statm).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Heap bytes in use by every thread's arenas and the mmapped blocks, whether touched yet or not.
    static func heapBytes() -> Int { Int(afe_bench_heap_bytes()) }

    /// Returns freed heap pages to the system so resident growth reflects live memory.
    static func trim() { afe_bench_trim_heap() }
}
