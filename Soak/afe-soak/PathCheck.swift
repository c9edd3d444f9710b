import AllocationCounter
import Foundation
import VoiceRecognition

/// `afe-soak path`: the release build's proof of the real-time path from push to socket (issue 13): one dialog on a
/// RecognitionEngine and one standalone core through ``PushToSocketProbe`` with the allocation and lock counters;
/// a failure when either thread allocates or locks after warm-up, or the service heard nothing.
enum PathCheck {
    static func run(_ options: SoakOptions) throws -> [String: Any] {
        guard afe_allocation_counter_available() == 1, afe_lock_counter_available() == 1 else {
            throw SoakFailure("allocation and lock counting are off in this build")
        }
        let counter = PushToSocketProbe.Counter(start: { afe_thread_counters_start() }, stop: {
            var locks: Int64 = 0
            return (afe_thread_counters_stop(&locks), locks)
        })
        let audio = try SoakAudio(mic: options.mic, reference: options.reference, seconds: 8)
        guard audio.sampleRate == 16000 else { throw SoakFailure("path takes 16 kHz audio, not \(audio.sampleRate) Hz") }
        let mic = audio.mic[...], reference = audio.reference[...]
        var figures: [String: Any] = [:]
        var failures: [String] = []
        for shared in [true, false] {
            let configuration = RecognitionConfiguration(frontEnd: PushToSocketProbe.frontEnd(), service: try options.service(),
                                                         audioFormat: options.audioFormat, queueFullPolicy: .wait)
            let result = try PushToSocketProbe.run(configuration, shared: shared, mic: mic, reference: reference, counter: counter)
            let name = shared ? "engine" : "core"
            figures[name] = result.description
            if !result.isClean { failures.append("\(name): \(result)") }
        }
        figures["failures"] = failures
        return figures
    }
}
