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
