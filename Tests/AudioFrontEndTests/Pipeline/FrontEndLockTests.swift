import AllocationCounter
@testable import AudioFrontEnd
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// The push path (push → 10 ms frame → stages → encoder → event ring) takes no lock after warm-up, counted on
/// the push thread by interposing pthread_mutex_lock / trylock, the rwlocks and sem_wait (`Tests/AllocationCounter`).
///
/// webrtc-audio-processing 0.3 locks an uncontended `rtc::CriticalSection` (a pthread mutex) inside its own
/// calls, which the front end cannot avoid while it uses that library: `ProcessStream` (capture) and
/// `ProcessReverseStream` / `AnalyzeReverseStream` (render) each lock once, and so do the settings and metrics
/// calls of the echo canceller's sub-module. The counts per frame are stated exactly below, per WebRTC stage.
final class FrontEndLockTests: XCTestCase {
    /// What one run counted on the push thread over the measured frames.
    struct Counts {
        var locks: afe_lock_counts
        var allocations: Int64
        var frames: Int
        var mutexPerFrame: Double { Double(locks.mutex_locks) / Double(frames) }
        var others: Int64 { locks.mutex_trylocks + locks.rwlocks + locks.semaphore_waits }
    }

    /// Pushes 3 s of echo at 48 kHz (mic and reference, 10 ms each) as warm-up, then counts 8 s (800 frames).
    static func count(_ change: (inout FrontEndConfiguration) -> Void) throws -> Counts {
        var configuration = FrontEndConfiguration()
        configuration.mic = .init(sampleRate: 48000)
        configuration.reference = .init(sampleRate: 48000)
        change(&configuration)
        let frontEnd = try FrontEnd(configuration: configuration)
        let collector = FrontEndCollector()
        frontEnd.delegate = collector
        try frontEnd.start()
        let mic = try TestVectors.int16("echo_d40ms_48k.wav").samples
        let reference = try TestVectors.int16("farend_48k.wav").samples
        func push(_ range: Range<Int>) { FrontEndHarness.push(frontEnd, mic: mic, reference: reference, range, chunk: 480) }
        push(0..<(48000 * 3))
        usleep(200_000)
        let drainFrames = frontEnd.framesProcessedByDrain.load(ordering: .relaxed)
        afe_allocation_counter_start()
        afe_lock_counter_start()
        push((48000 * 3)..<(48000 * 11))
        let locks = afe_lock_counter_stop()
        let allocations = afe_allocation_counter_stop()
        try frontEnd.finish()
        // Frames the push left behind (the drain fell more than 200 frames behind: a loaded machine) and the drain
        // thread processed are not the push thread's: its counts cover the frames it processed itself.
        let byDrain = frontEnd.framesProcessedByDrain.load(ordering: .relaxed) - drainFrames
        return Counts(locks: locks, allocations: allocations, frames: 800 - byDrain)
    }

    /// Every stage but WebRTC's: speex MDF with its residual suppressor, speex NS, the energy VAD and segmenter,
    /// resampling 48 → 16 kHz, Opus with Ogg pages; and the bare path (no stage, no encoder). 0 locks, 0
    /// allocations.
    func testPushPathTakesNoLockWithoutWebRTC() throws {
        try XCTSkipUnless(afe_lock_counter_available() == 1 && afe_allocation_counter_available() == 1,
                          "lock and allocation counting are off under sanitizers")
        var speex = SpeexEchoCanceller.Configuration()
        speex.residualEchoSuppression = true
        let configurations: [(String, (inout FrontEndConfiguration) -> Void)] = [
            ("speex MDF + speex NS + energy VAD + Opus in Ogg", {
                $0.echoCancellation = .speex(speex)
                $0.noiseSuppression = .speex(SpeexNoiseSuppressor.Configuration())
                $0.encoding = FrontEndConfiguration.Encoding()
            }),
            ("speex MDF, fixed alignment, raw Opus packets", {
                $0.echoCancellation = .speex(speex)
                $0.alignment = .fixed(milliseconds: 40)
                var encoding = FrontEndConfiguration.Encoding()
                encoding.ogg = nil
                $0.encoding = encoding
            }),
            ("no stage, no encoder", {
                $0.echoCancellation = .off
                $0.voiceDetection = nil
            }),
        ]
        for (label, change) in configurations {
            let counts = try Self.count(change)
            print("MEASURED locks on the push thread, \(label): \(counts.locks) over \(counts.frames) frames, \(counts.allocations) allocations")
            XCTAssertEqual(counts.locks.mutex_locks, 0, "\(label): pthread_mutex_lock calls")
            XCTAssertEqual(counts.others, 0, "\(label): trylock, rwlock and semaphore waits: \(counts.locks)")
            XCTAssertEqual(counts.allocations, 0, "\(label): allocations")
        }
    }

    /// The counter counts: a pthread mutex locked 3 times and tried twice, an rwlock read-locked once, on this
    /// thread only.
    func testTheCounterCountsThisThreadsLocks() throws {
        try XCTSkipUnless(afe_lock_counter_available() == 1, "lock counting is off under sanitizers")
        nonisolated(unsafe) let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let rwlock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_rwlock_init(rwlock, nil)
        defer {
            pthread_mutex_destroy(mutex); pthread_rwlock_destroy(rwlock)
            mutex.deallocate(); rwlock.deallocate()
        }
        afe_lock_counter_start()
        for _ in 0..<3 { pthread_mutex_lock(mutex); pthread_mutex_unlock(mutex) }
        for _ in 0..<2 { if pthread_mutex_trylock(mutex) == 0 { pthread_mutex_unlock(mutex) } }
        pthread_rwlock_rdlock(rwlock)
        pthread_rwlock_unlock(rwlock)
        let other = Thread { for _ in 0..<5 { pthread_mutex_lock(mutex); pthread_mutex_unlock(mutex) } }
        other.start()
        while !other.isFinished { usleep(1000) }
        let counts = afe_lock_counter_stop()
        XCTAssertEqual(counts.mutex_locks, 3)
        XCTAssertEqual(counts.mutex_trylocks, 2)
        XCTAssertEqual(counts.rwlocks, 1)
        XCTAssertEqual(counts.semaphore_waits, 0)
    }

    /// Where WebRTC's own mutex remains: each WebRTC stage locks the uncontended `rtc::CriticalSection` of the
    /// `webrtc::AudioProcessing` it owns, a fixed number of times per 10 ms frame, all on the push thread:
    /// - AEC2 (`WebRTCEchoCanceller`, also the second stage of the default chain): 3, one each in
    ///   `ProcessReverseStream` (the reference), `set_stream_delay_ms` and `ProcessStream` (the capture);
    /// - WebRTC NS (`WebRTCNoiseSuppressor`): 1, in `ProcessStream`;
    /// - the WebRTC VAD (`WebRTCVoiceActivityDetector`): 1, in `ProcessStream` (`stream_has_voice` locks nothing).
    /// When the canceller, NS and the VAD are all WebRTC's they share the canceller's instance (issue 13, part 6):
    /// AEC2 + NS + VAD lock 3 times per frame, as AEC2 alone (5 with three instances).
    /// Attributed per call with the same counter around each `afe_apm_*` call of the shim. Nothing else locks:
    /// no trylock, rwlock or semaphore wait, no allocation.
    func testWebRTCStagesLockTheirAudioProcessingAFixedNumberOfTimesPerFrame() throws {
        try XCTSkipUnless(afe_lock_counter_available() == 1 && afe_allocation_counter_available() == 1,
                          "lock and allocation counting are off under sanitizers")
        let configurations: [(String, Int64, (inout FrontEndConfiguration) -> Void)] = [
            ("AEC2", 3, { $0.echoCancellation = .webRTC(WebRTCEchoCanceller.Configuration()); $0.voiceDetection = nil }),
            ("WebRTC NS", 1, { $0.echoCancellation = .off; $0.voiceDetection = nil
                               $0.noiseSuppression = .webRTC(WebRTCNoiseSuppressor.Configuration()) }),
            ("WebRTC VAD", 1, { $0.echoCancellation = .off
                                $0.voiceDetection = .init(detector: .webRTC(WebRTCVoiceActivityDetector.Configuration())) }),
            ("AEC2 + WebRTC NS + WebRTC VAD + Opus (the benchmark's reference pipeline, one AudioProcessing)", 3, {
                $0.echoCancellation = .webRTC(WebRTCEchoCanceller.Configuration())
                $0.noiseSuppression = .webRTC(WebRTCNoiseSuppressor.Configuration())
                $0.voiceDetection = .init(detector: .webRTC(WebRTCVoiceActivityDetector.Configuration()))
                $0.encoding = FrontEndConfiguration.Encoding()
            }),
            ("default chain (speex MDF, AEC2 low, energy VAD)", 3, { _ in }),
        ]
        for (label, perFrame, change) in configurations {
            let counts = try Self.count(change)
            print("MEASURED locks on the push thread, \(label): \(counts.locks) over \(counts.frames) frames (\(counts.mutexPerFrame) mutex locks per frame), \(counts.allocations) allocations")
            XCTAssertEqual(counts.locks.mutex_locks, perFrame * Int64(counts.frames), "\(label): WebRTC's mutex locks")
            XCTAssertEqual(counts.others, 0, "\(label): trylock, rwlock and semaphore waits: \(counts.locks)")
            XCTAssertEqual(counts.allocations, 0, "\(label): allocations")
        }
    }
}
