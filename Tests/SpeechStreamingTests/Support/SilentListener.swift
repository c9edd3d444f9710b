import Foundation

/// A loopback TCP socket that listens but never accepts or answers: connections complete in the kernel
/// and the WebSocket upgrade waits forever. Closing it frees the port, which then refuses connections.
final class SilentListener {
    let port: Int
    private var descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(descriptor, raw, length) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else { throw NSError(domain: "SilentListener", code: Int(errno)) }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }

    /// A loopback port nothing listens on (bound once, then released).
    static func unusedPort() throws -> Int {
        let listener = try SilentListener()
        listener.close()
        return listener.port
    }
}
