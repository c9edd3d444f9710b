/// The lifecycle of a streaming session as a pure state machine: inputs (calls, connection and server
/// events, the clock) in, actions out.
///
/// It owns every time-dependent decision (connect, start and finish timeouts, pings, the response
/// timeout, reconnection back-off) and is driven with explicit times, so tests run it on an injected
/// clock. The session engine feeds it on the network thread and carries out its actions.
///
/// Task lifecycle: idle → (connect) → starting → streaming → draining (after stop: the rest of the audio
/// goes out) → finishing (finish sent) → idle. Any failure ends the task with one `.failed` report and
/// no further sends. With reconnection on, a connection lost after the task started goes to
/// waitingToReconnect and back to starting on a new connection; the replay flag of `beginAudio` then asks
/// for the audio since the last sentence end to be sent first. Attempts count from zero again only when a
/// sentence ends, so a connection that drops before any progress cannot loop forever.
struct SessionMachine {
    struct Timing: Equatable {
        var connect: Duration
        var start: Duration
        var finish: Duration
        var ping: Duration
        var response: Duration
        /// A kept connection idle this long is replaced at the next start (the server closes it soon anyway).
        var keptIdle: Duration

        init(connect: Duration, start: Duration, finish: Duration, ping: Duration, response: Duration,
             keptIdle: Duration = .seconds(50)) {
            self.connect = connect
            self.start = start
            self.finish = finish
            self.ping = ping
            self.response = response
            self.keptIdle = keptIdle
        }

        init(_ options: ConnectionOptions) {
            self.init(connect: options.connectTimeout, start: options.startTimeout, finish: options.finishTimeout,
                      ping: options.pingInterval, response: options.responseTimeout,
                      keptIdle: options.keptConnectionIdleLimit)
        }
    }

    enum Link: Equatable {
        case down
        case connecting(deadline: Duration)
        case up
    }

    enum Phase: Equatable {
        case idle
        case awaitingConnection
        case waitingToReconnect(at: Duration)
        case starting(deadline: Duration)
        case streaming
        case draining
        case finishing(deadline: Duration)
    }

    enum Input: Equatable {
        case start, stop, cancel
        case connected
        case connectFailed(SpeechStreamingError)
        case connectionLost(SpeechStreamingError)
        /// Any frame arrived (liveness).
        case received
        case taskStarted, taskCompleted
        /// The server failed the task, or sent something unreadable.
        case failure(SpeechStreamingError)
        /// Draining: all audio of the task has gone out.
        case audioDrained
        /// A sentence ended: the task makes progress, so reconnection attempts count from zero again.
        case sentenceEnded
        case tick
    }

    enum Action: Equatable {
        case connect
        /// Drop a connection that is not (or no longer) answering, without a close handshake.
        case abortConnection
        case closeConnection
        case sendStart, sendFinish, sendPing
        /// Audio may flow; with `replay`, re-send the kept audio first.
        case beginAudio(replay: Bool)
        /// The task is over: stop accepting audio, drop what is queued.
        case endTask
        case report(Report)
    }

    enum Report: Equatable {
        case started, completed
        case failed(SpeechStreamingError)
        case reconnecting(Reconnection)
    }

    let timing: Timing
    let reconnection: ReconnectionPolicy
    let reusesConnection: Bool

    private(set) var link: Link = .down
    private(set) var phase: Phase = .idle
    private var stopRequested = false
    private var taskHasStarted = false
    private var attempt = 0
    private var lastReceived: Duration = .zero
    private var pingSent = false
    /// When the kept connection's last task ended.
    private var idleSince: Duration = .zero
    /// The running task was started on a kept connection and the server has not confirmed it yet: if that
    /// connection turns out closed (the server's idle close crossing our start), connect again once.
    private var startedOnKeptLink = false

    init(timing: Timing, reconnection: ReconnectionPolicy, reusesConnection: Bool) {
        self.timing = timing
        self.reconnection = reconnection
        self.reusesConnection = reusesConnection
    }

    var audioMayFlow: Bool { phase == .streaming || phase == .draining }
    var isDraining: Bool { phase == .draining }

    /// Whether the connection is expected to answer (a task is on the wire).
    private var expectsTraffic: Bool {
        guard link == .up else { return false }
        switch phase {
        case .starting, .streaming, .draining, .finishing: return true
        default: return false
        }
    }

    /// The earliest time `tick` has something to do, if any.
    var nextDeadline: Duration? {
        var deadlines: [Duration] = []
        if case .connecting(let d) = link { deadlines.append(d) }
        switch phase {
        case .starting(let d), .finishing(let d), .waitingToReconnect(let d): deadlines.append(d)
        default: break
        }
        if expectsTraffic { deadlines.append(lastReceived + (pingSent ? timing.response : timing.ping)) }
        return deadlines.min()
    }

    mutating func handle(_ input: Input, at now: Duration) -> [Action] {
        switch input {
        case .start: return start(now)
        case .stop: return stop(now)
        case .cancel: return cancel()
        case .connected: return connected(now)
        case .connectFailed(let error): return connectFailed(error, now)
        case .connectionLost(let error): return connectionLost(error, now)
        case .received:
            lastReceived = now
            pingSent = false
            return []
        case .taskStarted: return taskStarted(now)
        case .taskCompleted: return taskCompleted(now)
        case .failure(let error): return phase == .idle ? [] : fail(error)
        case .audioDrained:
            guard phase == .draining else { return [] }
            phase = .finishing(deadline: now + timing.finish)
            return [.sendFinish]
        case .sentenceEnded:
            attempt = 0
            return []
        case .tick: return tick(now)
        }
    }

    private mutating func start(_ now: Duration) -> [Action] {
        guard phase == .idle else { return [] }
        stopRequested = false
        taskHasStarted = false
        attempt = 0
        startedOnKeptLink = false
        var actions: [Action] = []
        if link == .up && now - idleSince >= timing.keptIdle {
            link = .down // idle for long: the server is about to close it (DashScope: 60 s)
            actions.append(.closeConnection)
        }
        if link == .up {
            startedOnKeptLink = true
            phase = .starting(deadline: now + timing.start)
            lastReceived = now
            pingSent = false
            return [.sendStart]
        }
        phase = .awaitingConnection
        link = .connecting(deadline: now + timing.connect)
        return actions + [.connect]
    }

    /// Remembers the stop for the whole task, so a task restarted after a reconnection (even one lost while
    /// draining or finishing) drains and finishes again instead of streaming forever.
    private mutating func stop(_ now: Duration) -> [Action] {
        guard phase != .idle else { return [] }
        stopRequested = true
        if phase == .streaming { phase = .draining }
        return []
    }

    private mutating func cancel() -> [Action] {
        var actions: [Action] = []
        if link != .down { actions.append(.closeConnection) }
        link = .down
        if phase != .idle { actions.append(.endTask) }
        phase = .idle
        return actions
    }

    private mutating func connected(_ now: Duration) -> [Action] {
        guard case .connecting = link else { return [] }
        link = .up
        idleSince = now
        lastReceived = now
        pingSent = false
        guard phase == .awaitingConnection else { return [] }
        phase = .starting(deadline: now + timing.start)
        return [.sendStart]
    }

    private mutating func connectFailed(_ error: SpeechStreamingError, _ now: Duration) -> [Action] {
        guard case .connecting = link else { return [] }
        link = .down
        return attempt > 0 ? scheduleReconnect(error, now) : fail(error)
    }

    private mutating func connectionLost(_ error: SpeechStreamingError, _ now: Duration) -> [Action] {
        guard link == .up else { return [] }
        link = .down
        switch phase {
        case .idle: return []
        case .starting where startedOnKeptLink && !taskHasStarted:
            startedOnKeptLink = false // the kept connection was gone: a fresh one, once, without an error
            phase = .awaitingConnection
            link = .connecting(deadline: now + timing.connect)
            return [.connect]
        case .starting, .streaming, .draining, .finishing:
            return taskHasStarted && reconnection.isEnabled ? scheduleReconnect(error, now) : fail(error)
        case .awaitingConnection, .waitingToReconnect:
            return fail(error)
        }
    }

    private mutating func taskStarted(_ now: Duration) -> [Action] {
        guard case .starting = phase else { return [] }
        startedOnKeptLink = false
        let isRestart = taskHasStarted
        taskHasStarted = true
        phase = stopRequested ? .draining : .streaming
        return isRestart ? [.beginAudio(replay: true)] : [.beginAudio(replay: false), .report(.started)]
    }

    private mutating func taskCompleted(_ now: Duration) -> [Action] {
        guard phase != .idle else { return [] }
        phase = .idle
        idleSince = now
        var actions: [Action] = []
        if !reusesConnection && link != .down {
            link = .down
            actions.append(.closeConnection)
        }
        return actions + [.endTask, .report(.completed)]
    }

    private mutating func tick(_ now: Duration) -> [Action] {
        if case .connecting(let deadline) = link, now >= deadline {
            link = .down
            let error = SpeechStreamingError(.connectTimeout, "no WebSocket connection within \(timing.connect)")
            return [.abortConnection] + (attempt > 0 ? scheduleReconnect(error, now) : fail(error))
        }
        switch phase {
        case .starting(let deadline) where now >= deadline:
            return fail(SpeechStreamingError(.startTimeout, "the server did not start the task within \(timing.start)"))
        case .finishing(let deadline) where now >= deadline:
            return fail(SpeechStreamingError(.finishTimeout, "the server did not finish the task within \(timing.finish) after the stop"))
        case .waitingToReconnect(let at) where now >= at:
            phase = .awaitingConnection
            link = .connecting(deadline: now + timing.connect)
            return [.connect]
        default:
            break
        }
        guard expectsTraffic else { return [] }
        if now - lastReceived >= timing.response {
            link = .down
            let error = SpeechStreamingError(.serverNotResponding,
                                             "nothing received from the server for \(timing.response)")
            return [.abortConnection] + (taskHasStarted && reconnection.isEnabled ? scheduleReconnect(error, now) : fail(error))
        }
        if !pingSent && now - lastReceived >= timing.ping {
            pingSent = true
            return [.sendPing]
        }
        return []
    }

    /// Errors the server or the configuration decided; reconnecting would not help.
    private static func isPermanent(_ error: SpeechStreamingError) -> Bool {
        [.unauthorized, .forbidden, .tlsFailure, .handshakeFailed, .invalidConfiguration, .taskFailed]
            .contains(error.code)
    }

    private mutating func scheduleReconnect(_ cause: SpeechStreamingError, _ now: Duration) -> [Action] {
        attempt += 1
        guard reconnection.isEnabled, attempt <= reconnection.maxAttempts, !Self.isPermanent(cause) else {
            var error = cause
            if attempt > 1 { error.message += " (gave up after \(attempt - 1) reconnection attempts)" }
            return fail(error)
        }
        let delay = reconnection.delay(beforeAttempt: attempt)
        phase = .waitingToReconnect(at: now + delay)
        return [.report(.reconnecting(Reconnection(attempt: attempt, delay: delay, cause: cause)))]
    }

    private mutating func fail(_ error: SpeechStreamingError) -> [Action] {
        var actions: [Action] = []
        if link != .down { actions.append(.closeConnection) }
        link = .down
        phase = .idle
        return actions + [.endTask, .report(.failed(error))]
    }
}
