#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AllocationCounter
import AudioFrontEnd
import CReferencePipeline

/// `afe-bench instructions`: runs one pipeline (ours or C) over the input with the measured frames inside
/// `afe_bench_measured`, so `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=afe_bench_measured`
/// counts exactly those frames on the calling thread (Benchmarks/callgrind.sh).
enum Instructions {
    static func run(pipeline: String, input: BenchmarkInput, warmupFrames: Int) throws {
        var configuration = ReferenceConfiguration.ours()
        if pipeline == "ours-automatic" { configuration.alignment = .automatic(maximumDelayMilliseconds: 1000) }
        let n = input.frameLength
        let frames = input.frameCount
        var failures = 0
        switch pipeline {
        case "ours", "ours-automatic":
            let frontEnd = try FrontEnd(configuration: configuration)
            let counter = EventCounter()
            frontEnd.delegate = counter
            try frontEnd.start()
            try input.mic.withUnsafeBufferPointer { mic in
                try input.reference.withUnsafeBufferPointer { reference in
                    func frame(_ i: Int) {
                        // Under callgrind the threads run one at a time and the drain thread may not run for
                        // many frames. Once the event ring is full, a push leaves its frames in the mic ring,
                        // and a later call (finish(), outside the measured function) processes them: that run
                        // counts fewer instructions than frames (0.929 × C instead of 1.014 in one run.sh).
                        // Keep the drain within 50 frames, far from full, so every frame is processed inside
                        // the push that completes it.
                        while i - counter.levels.load(ordering: .relaxed) > 50 { sched_yield() }
                        let r = frontEnd.pushReference(samples: UnsafeBufferPointer(rebasing: reference[(i * n)..<(i * n + n)]))
                        var taken = 0, tries = 0
                        while taken < n && tries < 1000 {
                            let m = frontEnd.pushMic(samples: UnsafeBufferPointer(rebasing: mic[(i * n + taken)..<(i * n + n)]))
                            taken += m.accepted
                            if taken < n { tries += 1; sched_yield() }
                        }
                        if r.accepted != n || taken != n { failures += 1 }
                    }
                    for i in 0..<warmupFrames { frame(i) }
                    try measured { for i in warmupFrames..<frames { frame(i) } }
                }
            }
            // Every frame must have been processed in its push (inside the measured function), not left for
            // finish(): once the drain has delivered everything, one level event per processed frame. The mic
            // resampler holds back its lookahead (under one frame).
            var delivered = -1
            while counter.levels.load(ordering: .relaxed) != delivered {
                delivered = counter.levels.load(ordering: .relaxed)
                usleep(200_000)
            }
            guard frames - delivered <= 1 else {
                throw BenchmarkError("only \(delivered) of \(frames) frames were processed inside the pushes")
            }
            try frontEnd.finish()
        case "c":
            let c = try CPipeline(ReferenceConfiguration.c(matching: configuration))
            try input.mic.withUnsafeBufferPointer { mic in
                try input.reference.withUnsafeBufferPointer { reference in
                    func frame(_ i: Int) {
                        if c.process(mic, reference, frame: i, length: n, times: nil) < 0 { failures += 1 }
                    }
                    for i in 0..<warmupFrames { frame(i) }
                    try measured { for i in warmupFrames..<frames { frame(i) } }
                }
            }
        default:
            throw BenchmarkError("--pipeline must be ours, ours-automatic or c, not \(pipeline)")
        }
        guard failures == 0 else { throw BenchmarkError("\(failures) frames were refused or failed") }
        print("measured_frames \(frames - warmupFrames)")
        print("allocations \(allocations)")
    }

    /// Heap allocations on this thread inside the last ``measured(_:)``.
    nonisolated(unsafe) private static var allocations: Int64 = 0

    /// Runs `body` inside `afe_bench_measured`, counting this thread's heap allocations in `body` only (not the
    /// box and closure context set up around it).
    private static func measured(_ body: () -> Void) throws {
        withoutActuallyEscaping(body) { body in
            final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
            let box = Box(body)
            afe_bench_measured({ context in
                let body = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue().body
                afe_allocation_counter_start()
                body()
                Instructions.allocations = afe_allocation_counter_stop()
            }, Unmanaged.passUnretained(box).toOpaque())
            withExtendedLifetime(box) {}
        }
    }
}
