import Foundation
@testable import NuiSDK
@testable import VoiceRecognition
import XCTest

/// One thread for the front end's events and the app's callbacks (issue 13 part 3): an `EVENT_AEC_DATA` callback
/// stalled for seconds while the app keeps pushing costs the app its audio and level callbacks of that time
/// (counted in ``NeoNui/callbackDrops``), never a push nor a sample to the service, and the dialog's summary and
/// completion are as without the stall.
final class CallbackStallTests: NuiServerTestCase {
    func testAStalledAECDataCallbackRefusesNoPushAndTheServerGetsEverySample() throws {
        let nui = harness.nui
        let stalls = LockedValue(0)
        // The first chunk's callback stalls until all 6 s of audio have been pushed (at 2x real time): how much
        // of it the front end must drop depends on its rings, not on how fast this machine pushes (a fixed 3 s
        // stall ended before the push did under ThreadSanitizer on a slow run, and fewer chunks were dropped).
        let pushed = DispatchSemaphore(value: 0)
        harness.recorder.onAssist = {
            if stalls.get() == 0 {
                stalls.set(1)
                _ = pushed.wait(timeout: .now() + 30)
            }
        }
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        let drainThreads = Self.threads(named: "AudioFrontEnd.drain") // other tests' front ends may still be going
        XCTAssertEqual(harness.start(), .SUCCESS)
        let engine = try XCTUnwrap(nui.lock.withLock { nui.engine })
        XCTAssertTrue(engine.frontEnd.hasHostedDrain, "no drain thread: the callback thread drains the front end")
        XCTAssertEqual(Self.threads(named: "AudioFrontEnd.drain"), drainThreads, "the dialog's front end started no drain thread")
        let audio = TestAudio.pcm(bursts: [(0.5, 2.0), (3.0, 4.5)], seconds: 6)
        let started = Date()
        harness.push(audio, speed: 2) // asserts that every push returned SUCCESS
        let pushTime = Date().timeIntervalSince(started)
        pushed.signal()
        XCTAssertEqual(nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_COMPLETE, count: 1, timeout: 30))
        let summary = try XCTUnwrap(nui.nui_get_dialog_summary())
        let totals = try XCTUnwrap(summary.dialogAudio)
        let drops = nui.callbackDrops
        let chunks = harness.recorder.aecCallbackCount
        let sentBytes = server.log().filter { $0["kind"] as? String == "task-summary" }.compactMap { $0["bytes"] as? Int }
        print("stalled AEC callback: pushed \(audio.count) bytes in \(String(format: "%.1f", pushTime)) s; "
              + "server got \(sentBytes) bytes; dialog output \(totals.outputSamples) samples; "
              + "\(chunks) AEC chunks delivered, drops \(drops); front end dropped \(engine.frontEnd.appEventsDropped) app events")

        XCTAssertEqual(stalls.get(), 1)
        XCTAssertEqual(totals.micSamples, audio.count / 2, "every mic sample was taken")
        XCTAssertEqual(sentBytes, [2 * totals.outputSamples], "the server got every sample the dialog took")
        XCTAssertEqual(Double(totals.outputSamples), Double(audio.count / 2), accuracy: 320,
                       "the dialog's output is its mic audio (less the stages' 20 ms hold-back)")
        XCTAssertGreaterThan(drops.aecData, 100, "the chunks of the stall were dropped, and counted")
        XCTAssertEqual(drops.rms, drops.aecData, "a frame's level goes with its audio")
        XCTAssertGreaterThan(engine.frontEnd.appEventsDropped, 0, "the front end dropped them, not the queue")
        XCTAssertEqual(Double(chunks + drops.aecData), Double(totals.outputSamples) / 160, accuracy: 2,
                       "every chunk delivered or counted")
        XCTAssertFalse(summary.completionGaveUpOnAudio,
                       "the completion does not wait for audio events that will not come (it would give up after 1 s)")
        XCTAssertLessThan(try XCTUnwrap(summary.timeToComplete), .seconds(10), "generous: the finish timeout")
    }

    /// Threads of this process whose name (Linux: its first 15 bytes) starts as `name`'s; -1 without /proc.
    static func threads(named name: String) -> Int {
        let prefix = String(name.prefix(15))
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return -1 }
        return tasks.filter { task in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .whitespacesAndNewlines) == prefix
        }.count
    }
}
