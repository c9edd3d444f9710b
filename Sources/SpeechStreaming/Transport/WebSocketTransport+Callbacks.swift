import CWebSockets

/// The lws callbacks: dispatch, receiving whole messages, writing frames (service thread).
extension WebSocketTransport {
    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?,
                            _ length: Int) -> Int32 {
        // During lws_client_connect_via_info, callbacks can run before it returns: lws has already stored
        // the new wsi through pwsi.
        if isConnecting, connection == nil, !failureReportedDuringConnect, connectSlot.pointee == wsi { connection = wsi }
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            audioPathProbe?(.enter)
            delegate?.transportWoke()
            audioPathProbe?(.leave)
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            if closing.remove(wsi) != nil, closing.isEmpty { delegate?.transportDidSendClose() }
            if wsi == connection { connection = nil; connectionOpen = false }
            return 0
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            guard wsi == connection, let input else { return 0 }
            for header in headers where afe_ws_append_header(wsi, input, length, header.name + ":", header.value) != 0 {
                return -1
            }
            return 0
        default:
            break
        }
        if closing.contains(wsi) {
            if reason == LWS_CALLBACK_CLIENT_WRITEABLE {
                // lws writes the close frame (1000) when this returns -1, before it services anything else.
                lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, nil, 0)
                closing.remove(wsi)
                if closing.isEmpty { delegate?.transportDidSendClose() }
                return -1
            }
            return 0
        }
        guard wsi == connection else { return 0 }
        switch reason {
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let text = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
            let status = Int(lws_http_client_http_response(wsi))
            connection = nil
            failureReportedDuringConnect = true
            delegate?.transportDidFail(reason: text, httpStatus: status)
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            connectionOpen = true
            delegate?.transportDidOpen()
        case LWS_CALLBACK_CLIENT_RECEIVE:
            receive(wsi, input, length)
        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            delegate?.transportDidReceiveFrame()
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let input, length >= 2 {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                let code = Int(bytes[0]) << 8 | Int(bytes[1])
                let reason = String(decoding: UnsafeBufferPointer(start: bytes + 2, count: length - 2), as: UTF8.self)
                peerClose = (code, reason)
            }
        case LWS_CALLBACK_CLIENT_CLOSED:
            connection = nil
            connectionOpen = false
            delegate?.transportDidClose(code: peerClose?.code, reason: peerClose?.reason ?? "")
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            audioPathProbe?(.enter)
            defer { audioPathProbe?(.leave) }
            return write(wsi)
        default:
            break
        }
        return 0
    }

    /// Collects a text message's fragments. The frame header's length claim is checked before anything is
    /// kept: a message that is or claims to be over ``maxMessageBytes`` is reported as soon as that is known
    /// (a frame claiming 2^62 bytes, at its first bytes) and nothing more of it is buffered. A binary frame is
    /// reported once, at its first bytes (ASR servers send only text), unless ``deliversBinary`` is set: then it
    /// is collected and checked like text.
    private func receive(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) {
        delegate?.transportDidReceiveFrame()
        let remaining = Int(clamping: UInt(lws_remaining_packet_payload(wsi)))
        if lws_is_first_fragment(wsi) != 0 {
            receiveBuffer.removeAll(keepingCapacity: true)
            receiveOverflowBytes = 0
            receivingBinary = lws_frame_is_binary(wsi) != 0
            if receivingBinary && !deliversBinary {
                delegate?.transportDidReceiveBinary(bytes: length.addingReportingOverflow(remaining).partialValue)
            }
        }
        if receivingBinary && !deliversBinary { return }
        if receiveOverflowBytes > 0 { return } // already reported; the rest of the message is skipped
        let claimed = receiveBuffer.count.addingReportingOverflow(length).partialValue
            .addingReportingOverflow(remaining)
        if claimed.overflow || claimed.partialValue > maxMessageBytes {
            receiveOverflowBytes = claimed.overflow ? Int.max : claimed.partialValue
            receiveBuffer.removeAll(keepingCapacity: false)
            delegate?.transportDidReceiveOversizedMessage(bytes: receiveOverflowBytes)
            return
        }
        if let input, length > 0 {
            receiveBuffer.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        guard lws_is_final_fragment(wsi) != 0, remaining == 0 else { return }
        if receivingBinary {
            receiveBuffer.withUnsafeBytes { delegate?.transportDidReceiveBinaryMessage($0) }
            receiveBuffer.removeAll(keepingCapacity: true)
            return
        }
        let text = String(decoding: receiveBuffer, as: UTF8.self)
        receiveBuffer.removeAll(keepingCapacity: true)
        delegate?.transportDidReceiveText(text)
    }

    /// Writes one frame; asks for another callback when one was written. The corresponding C function is
    /// `lws_write`.
    private func write(_ wsi: OpaquePointer) -> Int32 {
        guard let frame = delegate?.transportNextOutgoing() else { return 0 }
        let written: Int32
        switch frame {
        case .text(let text):
            written = send(Array(text.utf8), LWS_WRITE_TEXT, wsi)
        case .binary(let bytes):
            written = send(bytes, LWS_WRITE_BINARY, wsi)
        case .binaryInPlace(let bytes):
            let payload = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
            written = payload.map { lws_write(wsi, $0, bytes.count, LWS_WRITE_BINARY) } ?? 0
            audioPathProbe?(.wrote)
        case .ping:
            written = send([], LWS_WRITE_PING, wsi)
        }
        if written < 0 { return -1 }
        if wsi == connection { lws_callback_on_writable(wsi) }
        return 0
    }

    private func send(_ bytes: [UInt8], _ kind: lws_write_protocol, _ wsi: OpaquePointer) -> Int32 {
        if bytes.count > sendCapacity {
            sendBuffer.deallocate()
            sendCapacity = bytes.count
            sendBuffer = .allocate(byteCount: pre + sendCapacity, alignment: 16)
        }
        let payload = sendBuffer + pre
        bytes.withUnsafeBytes { if let base = $0.baseAddress { payload.copyMemory(from: base, byteCount: $0.count) } }
        return lws_write(wsi, payload.assumingMemoryBound(to: UInt8.self), bytes.count, kind)
    }
}
