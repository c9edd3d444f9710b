@testable import SpeechStreaming
import XCTest

/// The session state machine on an injected clock: start, finish, connect and response timeouts, pings,
/// reconnection back-off, giving up, stop before the start, and no action after a failure.
final class SessionMachineTests: XCTestCase {
    typealias Action = SessionMachine.Action
    static let timing = SessionMachine.Timing(connect: .seconds(10), start: .seconds(10), finish: .seconds(5),
                                              ping: .seconds(5), response: .seconds(15))
    static let reconnecting = ReconnectionPolicy(isEnabled: true, maxAttempts: 3, initialDelay: .milliseconds(500),
                                                 multiplier: 2, maxDelay: .seconds(1))

    /// A machine with its own clock.
    struct Driver {
        var machine: SessionMachine
        var now: Duration = .zero

        init(reconnection: ReconnectionPolicy = .disabled, reuses: Bool = true) {
            machine = SessionMachine(timing: SessionMachineTests.timing, reconnection: reconnection, reusesConnection: reuses)
        }

        @discardableResult
        mutating func feed(_ input: SessionMachine.Input) -> [Action] { machine.handle(input, at: now) }

        @discardableResult
        mutating func advance(to time: Duration) -> [Action] {
            now = time
            return machine.handle(.tick, at: now)
        }

        /// start → connected → task-started: streaming.
        mutating func streaming() {
            XCTAssertEqual(feed(.start), [.connect])
            XCTAssertEqual(feed(.connected), [.sendStart])
            XCTAssertEqual(feed(.taskStarted), [.beginAudio(replay: false), .report(.started)])
        }
    }

    func failed(_ actions: [Action]) -> SpeechStreamingError? {
        for case .report(.failed(let error)) in actions { return error }
        return nil
    }

    func testHappyPathAndConnectionReuse() {
        var d = Driver()
        d.streaming()
        XCTAssertTrue(d.machine.audioMayFlow)
        XCTAssertEqual(d.feed(.stop), [])
        XCTAssertTrue(d.machine.isDraining)
        XCTAssertEqual(d.feed(.audioDrained), [.sendFinish])
        XCTAssertEqual(d.feed(.taskCompleted), [.endTask, .report(.completed)])
        XCTAssertEqual(d.machine.link, .up, "DashScope keeps the connection")
        XCTAssertEqual(d.feed(.start), [.sendStart], "the next task reuses it")

        var nls = Driver(reuses: false)
        nls.streaming()
        nls.feed(.stop)
        nls.feed(.audioDrained)
        XCTAssertEqual(nls.feed(.taskCompleted), [.closeConnection, .endTask, .report(.completed)], "NLS closes after completion")
        XCTAssertEqual(nls.feed(.start), [.connect])
    }

    /// A kept connection the server closed just as the next task started (its idle close crossing our
    /// run-task) is replaced once, without an error; one idle longer than the kept limit is replaced up front.
    func testAKeptConnectionLostAtTheNextStartIsReplacedOnce() {
        var d = Driver()
        d.streaming()
        d.feed(.stop)
        d.feed(.audioDrained)
        d.feed(.taskCompleted)
        XCTAssertEqual(d.feed(.start), [.sendStart], "on the kept connection")
        let lost = SpeechStreamingError(.connectionClosed, "closed")
        XCTAssertEqual(d.feed(.connectionLost(lost)), [.connect], "gone before task-started: connect again")
        XCTAssertEqual(d.feed(.connected), [.sendStart])
        XCTAssertEqual(failed(d.feed(.connectionLost(lost)))?.code, .connectionClosed,
                       "a fresh connection lost before the start is an error")

        var idle = Driver()
        idle.streaming()
        idle.feed(.stop)
        idle.feed(.audioDrained)
        idle.feed(.taskCompleted)
        idle.now = SessionMachineTests.timing.keptIdle
        XCTAssertEqual(idle.feed(.start), [.closeConnection, .connect], "idle for the kept limit: a new connection")
    }

    func testStartTimeout() {
        var d = Driver()
        d.feed(.start)
        d.now = .seconds(1)
        d.feed(.connected)
        XCTAssertEqual(d.machine.nextDeadline, .seconds(6), "the first ping is due before the start deadline")
        XCTAssertEqual(d.advance(to: .milliseconds(10_999)), [.sendPing])
        d.feed(.received)
        let actions = d.advance(to: .seconds(11))
        XCTAssertEqual(failed(actions)?.code, .startTimeout, "\(actions)")
        XCTAssertEqual(actions.first, .closeConnection)
        XCTAssertEqual(d.advance(to: .seconds(100)), [], "nothing after the failure")
    }

    func testFinishTimeoutIsMeasuredFromTheFinishMessage() {
        var d = Driver()
        d.streaming()
        d.now = .seconds(30)
        d.feed(.received)
        d.feed(.stop)
        d.now = .seconds(31)
        XCTAssertEqual(d.feed(.audioDrained), [.sendFinish])
        XCTAssertEqual(d.advance(to: .milliseconds(35_999)), [.sendPing], "not yet")
        d.feed(.received)
        XCTAssertEqual(failed(d.advance(to: .seconds(36)))?.code, .finishTimeout)
    }

    func testConnectTimeout() {
        var d = Driver()
        d.feed(.start)
        XCTAssertEqual(d.advance(to: .milliseconds(9_999)), [])
        let actions = d.advance(to: .seconds(10))
        XCTAssertEqual(actions.first, .abortConnection)
        XCTAssertEqual(failed(actions)?.code, .connectTimeout)
    }

    func testPingThenResponseTimeout() {
        var d = Driver()
        d.streaming()
        XCTAssertEqual(d.advance(to: .milliseconds(4_999)), [])
        XCTAssertEqual(d.advance(to: .seconds(5)), [.sendPing])
        XCTAssertEqual(d.advance(to: .seconds(10)), [], "one ping until something arrives")
        d.feed(.received) // the pong
        XCTAssertEqual(d.advance(to: .seconds(15)), [.sendPing], "the next ping 5 s after the pong")
        let actions = d.advance(to: .seconds(25))
        XCTAssertEqual(actions.first, .abortConnection)
        XCTAssertEqual(failed(actions)?.code, .serverNotResponding)
    }

    func testNoLivenessChecksWhileIdle() {
        var d = Driver()
        d.streaming()
        d.feed(.stop)
        d.feed(.audioDrained)
        d.feed(.taskCompleted)
        XCTAssertNil(d.machine.nextDeadline)
        XCTAssertEqual(d.advance(to: .seconds(1000)), [])
    }

    func testStopBeforeTaskStartedDrainsOnceStarted() {
        var d = Driver()
        d.feed(.start)
        XCTAssertEqual(d.feed(.stop), [])
        d.feed(.connected)
        XCTAssertEqual(d.feed(.taskStarted), [.beginAudio(replay: false), .report(.started)])
        XCTAssertTrue(d.machine.isDraining)
    }

    func testFailuresEndTheTaskOnceAndSilenceLaterInputs() {
        var d = Driver()
        d.streaming()
        let error = SpeechStreamingError(.taskFailed, "bad", serverCode: "X")
        XCTAssertEqual(d.feed(.failure(error)), [.closeConnection, .endTask, .report(.failed(error))])
        XCTAssertFalse(d.machine.audioMayFlow)
        for input: SessionMachine.Input in [.taskStarted, .taskCompleted, .audioDrained, .stop, .failure(error),
                                             .connectionLost(error), .connected, .tick] {
            XCTAssertEqual(d.feed(input), [], "\(input) after the failure")
        }
    }

    func testConnectionLostWithoutReconnectionFails() {
        var d = Driver()
        d.streaming()
        let lost = SpeechStreamingError(.connectionClosed, "gone")
        XCTAssertEqual(d.feed(.connectionLost(lost)), [.endTask, .report(.failed(lost))])
    }

    func testConnectionLostWhileIdleIsSilent() {
        var d = Driver()
        d.streaming()
        d.feed(.stop)
        d.feed(.audioDrained)
        d.feed(.taskCompleted)
        XCTAssertEqual(d.feed(.connectionLost(SpeechStreamingError(.connectionClosed, "idle close"))), [])
        XCTAssertEqual(d.feed(.start), [.connect], "the next task reconnects")
    }

    func testReconnectionBackOffReplayAndGivingUp() {
        var d = Driver(reconnection: Self.reconnecting)
        d.streaming()
        let lost = SpeechStreamingError(.connectionClosed, "dropped")
        XCTAssertEqual(d.feed(.connectionLost(lost)),
                       [.report(.reconnecting(Reconnection(attempt: 1, delay: .milliseconds(500), cause: lost)))])
        XCTAssertFalse(d.machine.audioMayFlow, "audio waits in the queue while reconnecting")
        XCTAssertEqual(d.advance(to: .milliseconds(499)), [])
        XCTAssertEqual(d.advance(to: .milliseconds(500)), [.connect])
        let refused = SpeechStreamingError(.connectionRefused, "refused")
        d.now = .milliseconds(600)
        XCTAssertEqual(d.feed(.connectFailed(refused)),
                       [.report(.reconnecting(Reconnection(attempt: 2, delay: .seconds(1), cause: refused)))])
        XCTAssertEqual(d.advance(to: .milliseconds(1_600)), [.connect])
        XCTAssertEqual(d.feed(.connected), [.sendStart])
        XCTAssertEqual(d.feed(.taskStarted), [.beginAudio(replay: true)], "no second .started; replay first")
        // Dropped again without a sentence end: attempts keep counting, up to the limit of 3.
        d.now = .seconds(2)
        XCTAssertEqual(d.feed(.connectionLost(lost)),
                       [.report(.reconnecting(Reconnection(attempt: 3, delay: .seconds(1), cause: lost)))], "capped at maxDelay")
        d.advance(to: .seconds(3))
        let error = failed(d.feed(.connectFailed(refused)))
        XCTAssertEqual(error?.code, .connectionRefused)
        XCTAssertTrue(error?.message.contains("gave up after 3 reconnection attempts") == true, "\(String(describing: error))")
    }

    /// A connection lost after stop (while the rest of the audio drains, or after finish went out) restarts
    /// the task draining: the replay and the queued audio go out, then finish again, and the task completes.
    func testAStopSurvivesAReconnection() {
        let lost = SpeechStreamingError(.serverNotResponding, "silent")
        for lostWhileFinishing in [false, true] {
            var d = Driver(reconnection: Self.reconnecting)
            d.streaming()
            d.feed(.stop)
            if lostWhileFinishing { XCTAssertEqual(d.feed(.audioDrained), [.sendFinish]) }
            XCTAssertEqual(d.feed(.connectionLost(lost)).count, 1, "reconnecting")
            d.advance(to: .seconds(1))
            d.feed(.connected)
            XCTAssertEqual(d.feed(.taskStarted), [.beginAudio(replay: true)])
            XCTAssertTrue(d.machine.isDraining, "finishing \(lostWhileFinishing): the new task drains")
            XCTAssertEqual(d.feed(.audioDrained), [.sendFinish], "finishing \(lostWhileFinishing): finish goes out again")
            XCTAssertEqual(d.feed(.taskCompleted), [.endTask, .report(.completed)])
        }
    }

    func testASentenceEndResetsTheAttemptCount() {
        var d = Driver(reconnection: Self.reconnecting)
        d.streaming()
        let lost = SpeechStreamingError(.connectionClosed, "dropped")
        for round in 1...6 {
            let actions = d.feed(.connectionLost(lost))
            XCTAssertEqual(actions, [.report(.reconnecting(Reconnection(attempt: 1, delay: .milliseconds(500), cause: lost)))],
                           "round \(round)")
            d.advance(to: d.now + .seconds(1))
            d.feed(.connected)
            d.feed(.taskStarted)
            d.feed(.sentenceEnded)
        }
    }

    func testPermanentFailuresAreNotRetried() {
        for code in [SpeechStreamingError.Code.unauthorized, .forbidden, .tlsFailure, .handshakeFailed] {
            var d = Driver(reconnection: Self.reconnecting)
            d.streaming()
            let lost = SpeechStreamingError(.connectionClosed, "dropped")
            d.feed(.connectionLost(lost))
            d.advance(to: .seconds(1))
            XCTAssertEqual(failed(d.feed(.connectFailed(SpeechStreamingError(code, "no"))))?.code, code, "\(code)")
        }
    }

    func testReconnectionOnlyAfterTheTaskStarted() {
        var d = Driver(reconnection: Self.reconnecting)
        d.feed(.start)
        d.feed(.connected)
        let lost = SpeechStreamingError(.connectionClosed, "dropped")
        XCTAssertEqual(failed(d.feed(.connectionLost(lost)))?.code, .connectionClosed, "before task-started: an error")
        var first = Driver(reconnection: Self.reconnecting)
        first.feed(.start)
        XCTAssertEqual(failed(first.feed(.connectFailed(SpeechStreamingError(.connectionRefused, "no"))))?.code, .connectionRefused,
                       "the first connection is not retried")
    }

    func testCancelEndsEverythingSilently() {
        var d = Driver(reconnection: Self.reconnecting)
        d.streaming()
        XCTAssertEqual(d.feed(.cancel), [.closeConnection, .endTask])
        XCTAssertNil(d.machine.nextDeadline)
        XCTAssertEqual(d.feed(.cancel), [])
    }

    func testBackOffSchedule() {
        let policy = ReconnectionPolicy(isEnabled: true, initialDelay: .milliseconds(250), multiplier: 3, maxDelay: .seconds(5))
        XCTAssertEqual((1...5).map { policy.delay(beforeAttempt: $0) },
                       [.milliseconds(250), .milliseconds(750), .milliseconds(2250), .seconds(5), .seconds(5)])
        XCTAssertEqual(ReconnectionPolicy.disabled.isEnabled, false, "off by default")
    }
}
