import AudioFrontEnd
import Foundation
import Synchronization

/// Pushes a soak's audio as a device does: 10 ms chunks, the reference 50 ms ahead of the mic. In real time it
/// sleeps to the clock; at full speed it keeps the mic at most one second ahead of the processed audio and
/// pushes again what a full ring did not take, so nothing is dropped.
struct Pusher {
    let mic: (UnsafeBufferPointer<Int16>) -> PushResult
    let reference: (UnsafeBufferPointer<Int16>) -> PushResult

    func run(_ audio: SoakAudio, realtime: Bool, processed: borrowing Atomic<Int>) {
        let chunk = audio.sampleRate / 100
        let lead = 5 * chunk
        let start = ContinuousClock.now
        let perSample = Double(16000) / Double(audio.sampleRate)
        audio.reference.withUnsafeBufferPointer { reference in
            audio.mic.withUnsafeBufferPointer { mic in
                var referenceAt = 0
                for offset in stride(from: 0, to: mic.count, by: chunk) {
                    let end = min(offset + chunk, mic.count)
                    while referenceAt < min(end + lead, reference.count) {
                        let next = min(referenceAt + chunk, reference.count)
                        _ = self.reference(UnsafeBufferPointer(rebasing: reference[referenceAt..<next]))
                        referenceAt = next
                    }
                    if realtime {
                        let due = start + .microseconds(Int64(Double(end) * 1e6 / Double(audio.sampleRate)))
                        let remaining = due - ContinuousClock.now
                        if remaining > .zero { Thread.sleep(forTimeInterval: remaining.inSeconds) }
                    } else {
                        while Double(offset) * perSample - Double(processed.load(ordering: .relaxed)) > 16000 { usleep(1000) }
                    }
                    var at = offset
                    var waited = 0
                    while at < end {
                        let result = self.mic(UnsafeBufferPointer(rebasing: mic[at..<end]))
                        at += result.accepted
                        if result.status == .notRunning || result.status == .concurrentPush { return }
                        if at < end { usleep(1000); waited += 1 }
                        if waited > 10_000 { return } // 10 s without room: the run reports the shortfall
                    }
                }
            }
        }
    }
}
