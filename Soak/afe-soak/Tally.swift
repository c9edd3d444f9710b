import AllocationCounter
import Foundation
import SpeechStreaming
import Synchronization

/// What a soak saw, written by the thread that delivers events and read by the main thread at the end.
final class Tally: @unchecked Sendable { // every field behind `lock`
    private let lock = NSLock()
    private let sampleRate: Int
    private var processed = 0
    private var nextSample = 0
    private var finals: [(sentence: Int, begin: Int)] = []
    private var partials = 0
    private var outOfOrder = 0
    private var resident = GrowthSeries()
    /// Bytes in malloc'd blocks (glibc's mallinfo2): flat while RSS grows means the allocator's growth, not ours.
    private var heap = GrowthSeries()
    /// AFE_SOAK_TRACE set: one line per minute of audio on stderr (RSS, heap in use, arena bytes, threads).
    private let trace = ProcessInfo.processInfo.environment["AFE_SOAK_TRACE"] != nil
    /// Stack in use below the first sample's frame, on the thread of the first sample.
    private var stack = GrowthSeries()
    private var stackThread: pthread_t?
    private var stackTop = 0
    /// Processed audio samples so far (also read by the pushing thread to pace itself).
    let processedSamples = Atomic<Int>(0)

    init(sampleRate: Int) { self.sampleRate = sampleRate }

    /// Processed audio arrived; about once a second of it, samples RSS and the stack depth of this thread.
    func audio(samples: Int) {
        let total = processedSamples.add(samples, ordering: .relaxed).newValue
        lock.withLock {
            processed = total
            guard processed >= nextSample else { return }
            nextSample += sampleRate
            let afterFirstMinute = processed >= 60 * sampleRate
            let rss = Probe.residentBytes(), usage = afe_heap_usage_now()
            resident.record(rss, afterFirstMinute: afterFirstMinute)
            heap.record(Int(usage.in_use), afterFirstMinute: afterFirstMinute)
            if trace, processed % (60 * sampleRate) < sampleRate {
                let line = "minute \(processed / (60 * sampleRate)): rss \(rss) heap_in_use \(usage.in_use) arena \(usage.arena_bytes) "
                    + "free \(usage.free_bytes) mmapped \(usage.mmapped) threads \(Probe.threadCount()) partials \(partials) finals \(finals.count)\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
            let address = Probe.stackAddress()
            if stackThread == nil { stackThread = pthread_self(); stackTop = address }
            if pthread_equal(stackThread!, pthread_self()) != 0 {
                stack.record(stackTop - address, afterFirstMinute: afterFirstMinute)
            }
        }
    }

    func partial() { lock.withLock { partials += 1 } }

    /// A final result: sentence ids must rise and begin times must not go back.
    func final(sentence: Int, beginMilliseconds: Int) {
        lock.withLock {
            if let last = finals.last, sentence <= last.sentence || beginMilliseconds < last.begin { outOfOrder += 1 }
            finals.append((sentence, beginMilliseconds))
        }
    }

    var finalCount: Int { lock.withLock { finals.count } }

    /// The figures as JSON fields, and the checks that failed.
    func report(limitBytes: Int, heapLimitBytes: Int, seconds: Double) -> (fields: [String: Any], failures: [String]) {
        lock.withLock {
            var failures: [String] = []
            if outOfOrder > 0 { failures.append("\(outOfOrder) final results out of order") }
            if finals.isEmpty { failures.append("no final result") }
            if partials == 0 { failures.append("no partial result") }
            if seconds > 90, resident.growth > limitBytes {
                failures.append("RSS grew \(resident.growth) bytes after the first minute (limit \(limitBytes))")
            }
            if seconds > 90, afe_heap_usage_available() != 0, heap.growth > heapLimitBytes {
                failures.append("heap in use grew \(heap.growth) bytes after the first minute (limit \(heapLimitBytes))")
            }
            // Stack in use at the event callback, relative to the first one: constant unless per-event cost grows
            // (before HandlerBox it reached 3 MB after 20 s of audio and overflowed at ~40 s).
            if stack.peak > 65536 {
                failures.append("the event thread's stack at the callback grew by up to \(stack.peak) bytes")
            }
            let fields: [String: Any] = [
                "finals": finals.count, "partials": partials, "processed_samples": processed,
                "rss_first_bytes": resident.first ?? 0, "rss_baseline_bytes": resident.baseline ?? 0,
                "rss_peak_bytes": resident.peak, "rss_growth_bytes": resident.growth,
                "heap_in_use_baseline_bytes": heap.baseline ?? 0, "heap_in_use_peak_bytes": heap.peak,
                "heap_in_use_growth_bytes": heap.growth, "stack_depth_peak_bytes": stack.peak,
                "stack_depth_growth_bytes": stack.growth, "samples_taken": resident.samples,
            ]
            return (fields, failures)
        }
    }
}
