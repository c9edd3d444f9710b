import CWebSockets
import Foundation
import Synchronization
import Threads

/// What the transport reports, always on its service thread. `package`: the speech-synthesis client
/// (module SpeechSynthesis) runs over the same transport.
package protocol WebSocketTransportDelegate: AnyObject {
    /// ``WebSocketTransport/wake()`` was called (audio or commands are waiting).
    func transportWoke()
    func transportTimerFired()
    /// The pacing timer (``WebSocketTransport/schedulePacingTimer(after:)``) fired.
    func transportPacingTimerFired()
    func transportDidOpen()
    /// The connection failed before it opened: lws's reason and the HTTP status of the upgrade, if any.
    func transportDidFail(reason: String, httpStatus: Int)
    /// A frame arrived (text, binary or pong): the server is alive.
    func transportDidReceiveFrame()
    /// A whole text message arrived, or (`oversized`) one longer than the limit (or whose frame header claims
    /// more) is being dropped, or a binary frame arrived (its claimed length).
    func transportDidReceiveText(_ text: String)
    func transportDidReceiveOversizedMessage(bytes: Int)
    func transportDidReceiveBinary(bytes: Int)
    /// A whole binary message arrived (only with ``WebSocketTransport/deliversBinary``); valid during the call.
    func transportDidReceiveBinaryMessage(_ bytes: UnsafeRawBufferPointer)
    /// The close frames of every connection being closed have been written (or those connections are gone).
    func transportDidSendClose()
    /// An open connection closed; `code` is the peer's close code when it sent one.
    func transportDidClose(code: Int?, reason: String)
    /// The socket can take a frame: the next one to send, or nil.
    func transportNextOutgoing() -> OutgoingFrame?
}

extension WebSocketTransportDelegate {
    package func transportDidReceiveBinaryMessage(_ bytes: UnsafeRawBufferPointer) {}
}

/// Where the service thread is on the audio path (``WebSocketTransport/audioPathProbe``).
package enum AudioPathPoint: Sendable {
    case enter, wrote, leave
}

package enum OutgoingFrame {
    case text(String)
    case binary([UInt8])
    /// A binary frame the delegate built in place: `LWS_PRE` bytes of headroom precede it, and it stays valid
    /// until the delegate's next ``WebSocketTransportDelegate/transportNextOutgoing()``. Written with `lws_write`
    /// straight from there (no copy, no allocation): the streaming client's audio.
    case binaryInPlace(UnsafeRawBufferPointer)
    case ping
}

/// One WebSocket client connection at a time over libwebsockets, on a private service thread.
///
/// Owns the lws context (one per session), the service thread that runs `lws_service`, a timer on the
/// service loop, and the current connection. Every lws callback, and so every delegate call, runs on the
/// service thread. Other threads may only call ``wake()`` (real-time safe), ``shutdown()`` and deinit.
///
/// Invariant behind `@unchecked Sendable`: all mutable state except the atomics is touched only on the
/// service thread, or before it starts / after it has been joined.
///
/// lws's own logging is off; the environment variable `AFE_WS_LOG_LEVEL` (an lws `LLL_*` bit mask, e.g.
/// 15 for errors, warnings, notices and info) turns it on, to stderr, for debugging.
package final class WebSocketTransport: @unchecked Sendable {
    package weak var delegate: (any WebSocketTransportDelegate)?
    let maxMessageBytes: Int
    /// Whether binary messages are collected (up to ``maxMessageBytes``, like text) and reported whole through
    /// ``WebSocketTransportDelegate/transportDidReceiveBinaryMessage(_:)``; otherwise (ASR, the default) only
    /// their length is reported, at their first bytes. Set before the service thread starts.
    package var deliversBinary = false
    /// Called on the service thread around the audio path's callbacks (the wake-up and the write callback:
    /// ``AudioPathPoint/enter`` and ``AudioPathPoint/leave``) and right after each
    /// ``OutgoingFrame/binaryInPlace(_:)`` frame's `lws_write` (``AudioPathPoint/wrote``): tests count allocations
    /// and locks on the audio path apart from the receive path. Set before the first task.
    package var audioPathProbe: ((AudioPathPoint) -> Void)?

    private let context: OpaquePointer
    /// The client TLS context, ours (see `afe_ws_client_tls_context`), for wss:// only: freed after the lws context.
    private let tlsContext: OpaquePointer?
    private let box: CallbackBox
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let timer: UnsafeMutablePointer<afe_ws_timer>
    private let pacingTimer: UnsafeMutablePointer<afe_ws_timer>
    private let running = Atomic<Bool>(false)
    private var thread: JoinableThread?

    // Service thread only (also read by the callbacks in WebSocketTransport+Callbacks.swift).
    /// The connection in use; callbacks from any other wsi (closing ones) are not reported.
    var connection: OpaquePointer?
    var connectionOpen = false
    /// Connections whose close frame is still to be written.
    package var closing: Set<OpaquePointer> = []
    var headers: [(name: String, value: String)] = []
    private var connectStrings: [UnsafeMutablePointer<CChar>] = []
    var receiveBuffer: [UInt8] = []
    var receiveOverflowBytes = 0
    var receivingBinary = false
    var peerClose: (code: Int, reason: String)?
    var sendBuffer: UnsafeMutableRawPointer
    var sendCapacity = 0
    let pre = afe_ws_pre()
    /// While lws_client_connect_via_info runs: lws writes the new wsi here (pwsi) before any callback.
    var isConnecting = false
    let connectSlot = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 1)
    var failureReportedDuringConnect = false

    /// Creates the lws context.
    ///
    /// - Parameter caFilePath: extra trusted CA certificates (PEM); the system store is always loaded: Debian's
    ///   lws is built with `LWS_SSL_CLIENT_USE_OS_CA_CERTS`, so every client TLS context gets OpenSSL's default
    ///   verify paths (`SSL_CTX_set_default_verify_paths`: /etc/ssl/certs, or `SSL_CERT_FILE`/`SSL_CERT_DIR`)
    ///   unless `LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS` is set, which this never does; and no `LCCSCF_ALLOW_*`
    ///   flag is ever passed, so verification (host name included) is always on.
    /// - Throws: ``SpeechStreamingError/Code/connectionFailed`` when lws cannot create its context.
    /// The corresponding C function is `lws_create_context`.
    /// - Parameter usesTLS: whether the session's endpoint is wss://. A ws:// session makes no TLS context: loading
    ///   the system's CA bundle cost 10-50 ms and ~0.8 MB per session, for nothing.
    package init(usesTLS: Bool, caFilePath: String?, connectTimeout: Duration, maxMessageBytes: Int) throws {
        self.maxMessageBytes = maxMessageBytes
        lws_set_log_level(Int32(ProcessInfo.processInfo.environment["AFE_WS_LOG_LEVEL"] ?? "") ?? 0, nil)
        box = CallbackBox()
        protocolName = strdup("afe-speech-streaming")
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = webSocketCallback
        protocols[0].rx_buffer_size = 0
        timer = .allocate(capacity: 1)
        timer.initialize(to: afe_ws_timer())
        pacingTimer = .allocate(capacity: 1)
        pacingTimer.initialize(to: afe_ws_timer())
        sendCapacity = 64 * 1024
        sendBuffer = .allocate(byteCount: pre + sendCapacity, alignment: 16)

        var info = lws_context_creation_info()
        info.port = afe_ws_port_no_listen()
        info.protocols = UnsafePointer(protocols)
        info.options = usesTLS ? afe_ws_option_ssl_global_init() : 0
        info.gid = -1
        info.uid = -1
        info.connect_timeout_secs = UInt32(max(1, connectTimeout.components.seconds + 1))
        info.user = Unmanaged.passUnretained(box).toOpaque()
        let tls = usesTLS ? afe_ws_client_tls_context(caFilePath) : nil
        info.provided_client_ssl_ctx = tls
        guard tls != nil || !usesTLS, let context = lws_create_context(&info) else {
            if let tls { SSL_CTX_free(tls) }
            free(protocolName)
            protocols.deallocate()
            timer.deallocate()
            pacingTimer.deallocate()
            sendBuffer.deallocate()
            throw SpeechStreamingError(.connectionFailed, usesTLS && tls == nil
                ? "the TLS trust store could not be loaded\(caFilePath.map { " (CA file \($0))" } ?? "")"
                : "libwebsockets could not create its context")
        }
        self.context = context
        tlsContext = tls
        box.transport = self
        timer.pointee.user = Unmanaged.passUnretained(box).toOpaque()
        timer.pointee.fire = { user in
            guard let user else { return }
            Unmanaged<CallbackBox>.fromOpaque(user).takeUnretainedValue().transport?.delegate?.transportTimerFired()
        }
        pacingTimer.pointee.user = Unmanaged.passUnretained(box).toOpaque()
        pacingTimer.pointee.fire = { user in
            guard let user else { return }
            Unmanaged<CallbackBox>.fromOpaque(user).takeUnretainedValue().transport?.delegate?.transportPacingTimerFired()
        }
    }

    deinit {
        shutdown()
        box.transport = nil
        lws_context_destroy(context)
        if let tlsContext { SSL_CTX_free(tlsContext) }
        free(protocolName)
        protocols.deallocate()
        timer.deallocate()
        pacingTimer.deallocate()
        sendBuffer.deallocate()
        connectSlot.deallocate()
        connectStrings.forEach { free($0) }
    }

    // MARK: Service thread

    /// Starts the service thread. Call once.
    /// - Throws: ``SpeechStreamingError/Code/connectionFailed`` when the system refuses a thread.
    package func startServiceThread() throws {
        running.store(true, ordering: .sequentiallyConsistent)
        thread = JoinableThread(name: "SpeechStreaming.network") { [self] in
            while running.load(ordering: .sequentiallyConsistent) {
                lws_service(context, 0)
            }
        }
        guard thread != nil else {
            running.store(false, ordering: .sequentiallyConsistent)
            throw SpeechStreamingError(.connectionFailed, "the network thread could not be started")
        }
    }

    /// Stops the service thread and waits until it has returned: nothing it held (this transport) outlives the
    /// call on a thread of its own, so the transport ends on the caller's thread and a program may exit right
    /// after (a detached `Foundation.Thread` once ended this transport's deinit on the service thread while the
    /// program exited, and LeakSanitizer saw the weak reference's side table as a leak). Any thread but the service
    /// thread; idempotent.
    package func shutdown() {
        guard running.exchange(false, ordering: .sequentiallyConsistent) else { return }
        lws_cancel_service(context)
        thread?.join()
        thread = nil
    }

    /// Wakes the service loop, which then calls ``WebSocketTransportDelegate/transportWoke()``.
    ///
    /// Any thread. Real-time safe: one non-blocking eventfd write, no allocation, no lock.
    /// The corresponding C function is `lws_cancel_service`.
    package func wake() { lws_cancel_service(context) }

    /// Fires the delegate's timer callback after `delay` (replacing any earlier schedule), or never (nil).
    /// Service thread. The corresponding C functions are `lws_sul_schedule` and `lws_sul_cancel`.
    package func scheduleTimer(after delay: Duration?) { schedule(timer, after: delay) }

    /// Fires the delegate's pacing callback after `delay` (replacing any earlier schedule), or never (nil).
    /// Service thread.
    func schedulePacingTimer(after delay: Duration?) { schedule(pacingTimer, after: delay) }

    private func schedule(_ timer: UnsafeMutablePointer<afe_ws_timer>, after delay: Duration?) {
        guard let delay else { afe_ws_timer_cancel(timer); return }
        let (seconds, attoseconds) = delay.components
        let microseconds = max(1, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        afe_ws_timer_schedule(context, timer, microseconds)
    }

    // MARK: Connection (service thread)

    /// Opens a connection, dropping any current one.
    ///
    /// Failure is reported through ``WebSocketTransportDelegate/transportDidFail(reason:httpStatus:)``,
    /// possibly before this returns. The corresponding C function is `lws_client_connect_via_info`.
    package func connect(to endpoint: Endpoint, headers: [(name: String, value: String)]) {
        abort()
        self.headers = headers
        connectStrings.forEach { free($0) }
        let host = strdup(endpoint.host)!, path = strdup(endpoint.pathAndQuery)!, alpn = strdup("http/1.1")!
        let hostHeader = strdup(endpoint.port == (endpoint.usesTLS ? 443 : 80) ? endpoint.host
                                : "\(endpoint.host):\(endpoint.port)")!
        connectStrings = [host, path, alpn, hostHeader]
        var info = lws_client_connect_info()
        info.context = context
        info.address = UnsafePointer(host)
        info.port = Int32(endpoint.port)
        info.ssl_connection = endpoint.usesTLS ? Int32(LCCSCF_USE_SSL.rawValue) : 0
        info.path = UnsafePointer(path)
        info.host = UnsafePointer(hostHeader)
        info.origin = UnsafePointer(hostHeader)
        info.alpn = UnsafePointer(alpn)
        info.local_protocol_name = UnsafePointer(protocolName)
        info.ietf_version_or_minus_one = -1
        connectionOpen = false
        receiveBuffer.removeAll(keepingCapacity: true)
        peerClose = nil
        connection = nil
        connectSlot.pointee = nil
        info.pwsi = connectSlot
        failureReportedDuringConnect = false
        isConnecting = true
        let created = lws_client_connect_via_info(&info)
        isConnecting = false
        if failureReportedDuringConnect { return }
        guard let created else {
            // lws 4.1 fails a name that does not resolve before the wsi has a protocol, so no callback
            // says why: ask the resolver.
            connection = nil
            let reason = Self.resolves(endpoint.host) ? "lws refused the connection request"
                : "getaddrinfo found no address for the host"
            delegate?.transportDidFail(reason: reason, httpStatus: 0)
            return
        }
        connection = created
    }

    /// Whether `host` resolves. The corresponding C function is `getaddrinfo`.
    private static func resolves(_ host: String) -> Bool {
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, nil, &result) == 0 else { return false }
        freeaddrinfo(result)
        return true
    }

    /// Asks for a write callback on the current connection.
    /// The corresponding C function is `lws_callback_on_writable`.
    package func requestWrite() {
        if let connection, connectionOpen { lws_callback_on_writable(connection) }
    }

    /// Closes the current connection with a normal close frame; nothing more is reported for it.
    package func close() {
        guard let wsi = connection else { return }
        connection = nil
        if connectionOpen {
            closing.insert(wsi)
            lws_callback_on_writable(wsi)
        } else {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
        connectionOpen = false
    }

    /// Drops the current connection at once, without a close handshake; nothing more is reported for it.
    /// The corresponding C function is `lws_set_timeout` with `LWS_TO_KILL_ASYNC`.
    package func abort() {
        guard let wsi = connection else { return }
        connection = nil
        connectionOpen = false
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
    }
}

/// The context's user pointer. lws may call back while the context is destroyed in the transport's deinit;
/// the weak reference is nil by then, so those callbacks do nothing.
private final class CallbackBox: @unchecked Sendable { // service thread only, or before/after it runs
    weak var transport: WebSocketTransport?
}

/// The protocol callback of every connection: finds the transport through the context's user pointer.
private func webSocketCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                               _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let user = lws_context_user(context) else { return 0 }
    guard let transport = Unmanaged<CallbackBox>.fromOpaque(user).takeUnretainedValue().transport else { return 0 }
    return transport.handle(wsi, reason, input, length)
}
