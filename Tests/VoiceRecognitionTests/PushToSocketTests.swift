import AllocationCounter
import AudioFrontEnd
import SpeechStreaming
@testable import VoiceRecognition
import XCTest

/// One path from push to socket (issue 13): the mic push thread processes each frame and writes what the service
/// gets (PCM, or Opus packets with their durations) straight into the streaming client's lock-free ring; the
/// network thread frames it in place (muxing Ogg with libogg for Opus), keeps it for replay and `lws_write`s it.
/// After warm-up neither thread allocates or takes a lock per frame (``PushToSocketProbe``: the push thread over the
/// pushes, the network thread over 40 audio frames), against the reference server on 127.0.0.1, for PCM and Opus,
/// DashScope and NLS, a dialog on a ``RecognitionEngine`` (the NUI path) and a standalone core. The release build
/// runs the same probe (`afe-soak path`, from Soak/run.sh).
///
/// The chain is speex MDF + the energy VAD: webrtc-audio-processing 0.3 locks its own uncontended mutex inside
/// `ProcessStream` and `ProcessReverseStream` (3 a frame for AEC2, 1 each for NS and the VAD; FrontEndLockTests
/// counts them); every other lock is ours to avoid, and none is taken.
final class PushToSocketTests: XCTestCase {
    static let counter = PushToSocketProbe.Counter(start: { afe_thread_counters_start() }, stop: {
        var locks: Int64 = 0
        return (afe_thread_counters_stop(&locks), locks)
    })

    func testNoAllocationNoLockFromPushToSocket() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1 && afe_lock_counter_available() == 1,
                          "allocation and lock counting are off under sanitizers")
        let server = try ReferenceServer()
        let (mic, reference) = try RecognitionLifecycleTests.audio(seconds: 8)
        for wire in [Wire.dashScope, .nls] {
            for format in [AudioFormat.pcm, .opus] {
                for shared in [true, false] {
                    let label = "\(wire) \(format) \(shared ? "dialog on an engine" : "core")"
                    let configuration = RecognitionConfiguration(frontEnd: PushToSocketProbe.frontEnd(),
                                                                 service: wire.service(server), audioFormat: format,
                                                                 queueFullPolicy: .wait)
                    let figures = try PushToSocketProbe.run(configuration, shared: shared, mic: mic, reference: reference,
                                                            counter: Self.counter)
                    print("push to socket, \(label): \(figures)")
                    XCTAssertGreaterThan(figures.pushes, 500, "\(label): \(figures)")
                    XCTAssertEqual(figures.pushAllocations, 0, "\(label): \(figures)")
                    XCTAssertEqual(figures.pushLocks, 0, "\(label): \(figures)")
                    XCTAssertEqual(figures.networkFrames, 40, "\(label): \(figures)")
                    XCTAssertEqual(figures.networkAllocations, 0, "\(label): \(figures)")
                    XCTAssertEqual(figures.networkLocks, 0, "\(label): \(figures)")
                    XCTAssertGreaterThan(figures.sentences, 0, "\(label): the service heard the audio: \(figures)")
                }
            }
        }
    }
}
