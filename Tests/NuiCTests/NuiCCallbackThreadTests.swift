import AllocationCounter
import CNui
import Foundation
import NuiC
import XCTest

/// The callback thread's side of `EVENT_AEC_DATA` through the C ABI (issue 13 part 3): what the SDK's callback
/// thread does per 10 ms chunk between two `assist_event_callback` calls. Since the host20 branch that thread is
/// also the front end's drain (`FrontEndDrainHost`): per chunk it reads the chunk's and its level's records from
/// the front end's event ring, routes them to the dialog's tap, which posts them into the queue (the chunk copied
/// into a pooled buffer), then hands the listener each entry, takes the next, gives the buffer back, reads the
/// delegate and goes through the C bridge. Counted with the allocation and lock counters on that thread: no
/// allocation, at most 5 pthread mutex locks per chunk with its RMS (the queue's: 2 posts, 2 takes, and now and
/// then one more when a round finds the thread's queue empty). Every callback of the dialog comes on that one
/// thread. In-process, against the reference server, with speech in the
/// mic so results and log lines interleave with the audio as in a real dialog (the intervals holding one of
/// those are counted apart: a result's JSON allocates, as any event does).
final class NuiCCallbackThreadTests: XCTestCase {
    /// Written by the callback thread only; read after `nui_release` returned (it waits for STATE_CLOSE's delivery).
    enum Seen {
        nonisolated(unsafe) static var chunks = 0
        nonisolated(unsafe) static var levels = 0
        nonisolated(unsafe) static var events = 0
        nonisolated(unsafe) static var logLines = 0
        nonisolated(unsafe) static var states = 0
        nonisolated(unsafe) static var threads = Set<UInt>()
        /// Chunks between which the callback thread's allocations and locks are counted.
        nonisolated(unsafe) static var countFrom = 200, countTo = 700
        nonisolated(unsafe) static var counting = false
        /// Whether only `EVENT_AEC_DATA` and RMS ran since the previous chunk.
        nonisolated(unsafe) static var clean = true
        nonisolated(unsafe) static var levelsSinceChunk = 0
        /// Over the clean intervals: how many, their allocations, pthread mutex locks (and trylocks), RMS calls.
        nonisolated(unsafe) static var cleanIntervals = 0
        nonisolated(unsafe) static var cleanAllocations: Int64 = 0
        nonisolated(unsafe) static var cleanLocks: Int64 = 0
        nonisolated(unsafe) static var cleanTrylocks: Int64 = 0
        nonisolated(unsafe) static var cleanLevels = 0
        /// Over the intervals with a result, state or log line too.
        nonisolated(unsafe) static var otherIntervals = 0
        nonisolated(unsafe) static var otherAllocations: Int64 = 0
        nonisolated(unsafe) static var otherLocks: Int64 = 0
        /// Each counted interval: allocations, locks, trylocks, RMS calls, and whether a callback other than
        /// AEC data and RMS ran in it. An interval is clean when neither it nor its neighbours held one: the
        /// drain round that posted a VAD event (and built its JSON) runs on this thread an interval before or
        /// after the callback.
        nonisolated(unsafe) static var intervals: [(allocations: Int64, locks: Int64, trylocks: Int64, levels: Int, other: Bool)] = []

        static func reset() {
            (chunks, levels, events, logLines, states, threads) = (0, 0, 0, 0, 0, [])
            (counting, clean, levelsSinceChunk) = (false, true, 0)
            (cleanIntervals, cleanAllocations, cleanLocks, cleanTrylocks, cleanLevels) = (0, 0, 0, 0, 0)
            (otherIntervals, otherAllocations, otherLocks) = (0, 0, 0)
            intervals = []
            intervals.reserveCapacity(2000)
        }

        /// Sorts the recorded intervals into clean and other ones (after the run).
        static func classify() {
            for (index, interval) in intervals.enumerated() {
                let near = intervals[max(0, index - 1)...min(intervals.count - 1, index + 1)]
                if near.allSatisfy({ !$0.other }) {
                    cleanIntervals += 1
                    cleanAllocations += interval.allocations
                    cleanLocks += interval.locks
                    cleanTrylocks += interval.trylocks
                    cleanLevels += interval.levels
                } else {
                    otherIntervals += 1
                    otherAllocations += interval.allocations
                    otherLocks += interval.locks
                }
            }
        }

        static func note() { threads.insert(UInt(bitPattern: Int(bitPattern: pthread_self()))) }
    }

    func testEachAECDataChunkCostsTheMergedThreadNoAllocationAndAtMostFiveLocks() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1 && afe_lock_counter_available() == 1,
                          "allocation and lock counting are off under sanitizers")
        let server = try ReferenceServer()
        defer { server.stop() }
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("nuicb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let mic = try TestVectors.int16("nearend_16k.wav").samples
        Seen.reset()

        var listener = NuiSdkListener()
        listener.event_callback = { _, _, _, _, _, _, _, _ in
            Seen.note()
            Seen.events += 1
            Seen.clean = false
        }
        listener.audio_state_changed_callback = { _, _ in
            Seen.note()
            Seen.states += 1
            Seen.clean = false
        }
        listener.log_track_callback = { _, _, _ in
            Seen.note()
            Seen.logLines += 1
            Seen.clean = false
        }
        listener.audio_extra_event_callback = { _, _, _ in
            Seen.note()
            Seen.levels += 1
            Seen.levelsSinceChunk += 1
        }
        listener.assist_event_callback = { _, event, _, _, _, _ in
            guard event == EVENT_AEC_DATA else { return }
            if Seen.counting { // the interval since the previous chunk's callback returned
                let allocations = afe_allocation_counter_stop()
                let locks = afe_lock_counter_stop()
                Seen.intervals.append((allocations, locks.mutex_locks, locks.mutex_trylocks, Seen.levelsSinceChunk, !Seen.clean))
            }
            Seen.note()
            Seen.chunks += 1
            Seen.clean = true
            Seen.levelsSinceChunk = 0
            Seen.counting = Seen.chunks >= Seen.countFrom && Seen.chunks < Seen.countTo
            if Seen.counting {
                afe_allocation_counter_start()
                afe_lock_counter_start()
            }
        }
        let parameters = #"{"url":"\#(server.url())","apikey":"k","device_id":"cb","service_mode":"1","#
            + #""audio_update_manually":"true","workspace":"\#(workspace.path)"}"#
        XCTAssertEqual(nui_initialize(parameters, &listener, LOG_LEVEL_INFO, false), 0)
        XCTAssertEqual(nui_set_params(#"{"service_type":4,"nls_config":{"model":"paraformer-realtime-v2","#
                                      + #""sr_format":"pcm","sample_rate":16000}}"#), 0)
        XCTAssertEqual(nui_dialog_start(MODE_P2T, ""), 0)
        // 8 s of speech in 20 ms pushes at 4x real time (the callback thread keeps up: nothing dropped).
        let seconds = min(mic.count, 8 * 16_000)
        mic[..<seconds].withUnsafeBytes { raw in
            let bytes = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            for offset in stride(from: 0, to: raw.count, by: 640) {
                let length = min(640, raw.count - offset)
                XCTAssertEqual(nui_update_audio_data(bytes + offset, Int32(length), offset == 0), 0)
                usleep(5_000)
            }
        }
        XCTAssertEqual(nui_dialog_cancel(false), 0)
        // The dialog's completion, then STATE_CLOSE: nui_release returns once it was delivered.
        for _ in 0..<1000 where Seen.events == 0 || Seen.chunks < Seen.countTo { usleep(10_000) }
        usleep(500_000)
        XCTAssertEqual(nui_release(), 0)
        Seen.classify()

        let perChunk = { (value: Int64) in String(format: "%.2f", Double(value) / Double(max(1, Seen.cleanIntervals))) }
        print("callback thread: \(Seen.chunks) EVENT_AEC_DATA, \(Seen.levels) RMS, \(Seen.events) events, "
              + "\(Seen.logLines) log lines, \(Seen.states) audio states on \(Seen.threads.count) thread(s); chunks "
              + "\(Seen.countFrom)..<\(Seen.countTo): \(Seen.cleanIntervals) intervals with only AEC data and RMS "
              + "(\(Seen.cleanLevels) RMS): \(Seen.cleanAllocations) allocations, \(Seen.cleanLocks) pthread mutex locks "
              + "(\(perChunk(Seen.cleanLocks)) per chunk), \(Seen.cleanTrylocks) trylocks; \(Seen.otherIntervals) intervals "
              + "with a result, state or log line too: \(Seen.otherAllocations) allocations, \(Seen.otherLocks) mutex locks")

        XCTAssertGreaterThanOrEqual(Seen.chunks, Seen.countTo, "the dialog's chunks came")
        XCTAssertEqual(Seen.threads.count, 1, "every callback on one thread")
        XCTAssertFalse(Seen.threads.contains(UInt(bitPattern: Int(bitPattern: pthread_self()))), "not on the pushing thread")
        XCTAssertGreaterThan(Seen.cleanIntervals, (Seen.countTo - Seen.countFrom) / 2, "most intervals hold only audio and levels")
        XCTAssertEqual(Seen.cleanAllocations, 0, "no allocation on the callback thread per EVENT_AEC_DATA chunk after warm-up")
        // The queue's: one per post (the drain round's chunk and level) and one per callback (the thread takes the
        // next entry and gives the chunk's buffer back), and one when a round wakes the thread with its queue
        // empty. Before the merge the callback thread took 2 per chunk and the drain thread 2 more.
        XCTAssertLessThanOrEqual(Seen.cleanLocks, Int64(5 * Seen.cleanIntervals),
                                 "at most 5 pthread mutex locks per EVENT_AEC_DATA with its RMS, drain included")
        XCTAssertGreaterThan(Seen.cleanLocks, 0, "the counter sees the queue's lock")
    }
}
