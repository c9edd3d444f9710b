import AllocationCounter
import Foundation

/// Process figures a soak samples: resident memory, threads, open files, and how deep the calling thread's
/// stack is. Linux (/proc); any thread.
enum Probe {
    /// Resident set size in bytes (/proc/self/statm, second field × page size).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Threads of this process (/proc/self/task) but libdispatch's workers (named `…qos…`), whose number the
    /// system varies with load: ours (main, drain, event, network, callback threads) must stay flat exactly.
    static func threadCount() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return !name.contains("qos")
        }.count
    }

    /// Open file descriptors (/proc/self/fd, less the one used to list it).
    static func openFileCount() -> Int { max(0, entries("/proc/self/fd") - 1) }

    private static func entries(_ path: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? 0
    }

    /// The address of a local of this call on the calling thread's stack: two calls from the same frame of the
    /// same thread give the same address; a deeper stack gives a lower one (stacks grow down on every platform
    /// this runs on). `pthread_getattr_np` would give the stack's top, but Swift's Glibc module hides GNU
    /// extensions.
    @inline(never)
    static func stackAddress() -> Int {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
    }
}

/// A figure sampled over a run: its value when the first minute of audio was done (the baseline), and the
/// largest value after it.
struct GrowthSeries {
    private(set) var first: Int?
    private(set) var baseline: Int?
    private(set) var peak = 0
    private(set) var samples = 0

    mutating func record(_ value: Int, afterFirstMinute: Bool) {
        samples += 1
        if first == nil { first = value }
        guard afterFirstMinute else { return } // the first minute's values (warm-up) are not growth
        if baseline == nil { baseline = value }
        peak = max(peak, value)
    }

    /// Largest value after the baseline minus the baseline (0 before the first minute ended).
    var growth: Int { baseline.map { peak - $0 } ?? 0 }
}

/// Figures sampled after each of a run's dialogs or answers: resident memory, heap in use, our threads and open
/// files. The baseline is the 10th sample (the first runs fill caches: TLS store, allocator arenas, thread pools);
/// it and the last wait half a second first, for the run's background clean-up.
struct RunFigures {
    private(set) var resident: [Int] = [], heap: [Int] = [], threads: [Int] = [], files: [Int] = []
    private var base = 0

    mutating func sample(_ index: Int, of count: Int) {
        let isBase = index == min(9, count - 1)
        if isBase || index == count - 1 { Thread.sleep(forTimeInterval: 0.5) }
        if isBase { base = resident.count }
        resident.append(Probe.residentBytes())
        heap.append(Int(afe_heap_usage_now().in_use))
        threads.append(Probe.threadCount())
        files.append(Probe.openFileCount())
        if ProcessInfo.processInfo.environment["AFE_SOAK_TRACE"] != nil, (index + 1) % 20 == 0 {
            FileHandle.standardError.write(Data("\(index + 1): rss \(resident.last!) heap \(heap.last!) threads \(threads.last!) fds \(files.last!)\n".utf8))
        }
    }

    /// Growth from the baseline to the end beyond the limits, and any thread or file more (`what`: "answer", ...).
    func failures(rssLimit: Int, heapLimit: Int, what: String) -> [String] {
        guard let last = resident.last else { return ["no \(what) ran"] }
        var failures: [String] = []
        if last - resident[base] > rssLimit { failures.append("RSS grew \(last - resident[base]) bytes from \(what) \(base + 1) to the end") }
        if afe_heap_usage_available() != 0, heap.last! - heap[base] > heapLimit {
            failures.append("heap in use grew \(heap.last! - heap[base]) bytes from \(what) \(base + 1) to the end")
        }
        if threads.last! > threads[base] { failures.append("threads \(threads[base]) → \(threads.last!)") }
        if files.last! > files[base] { failures.append("open files \(files[base]) → \(files.last!)") }
        return failures
    }

    var fields: [String: Any] {
        guard let last = resident.last else { return [:] }
        return ["rss_baseline_bytes": resident[base], "rss_last_bytes": last, "rss_growth_bytes": last - resident[base],
                "rss_peak_bytes": resident.max()!, "heap_in_use_baseline_bytes": heap[base],
                "heap_in_use_growth_bytes": heap.last! - heap[base], "threads_baseline": threads[base],
                "threads_last": threads.last!, "fds_baseline": files[base], "fds_last": files.last!]
    }
}
