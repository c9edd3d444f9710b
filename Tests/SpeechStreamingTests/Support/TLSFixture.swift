import Foundation

/// A throw-away certificate authority and a server certificate it signed (EC P-256, valid one day,
/// subjectAltName by default localhost and 127.0.0.1), made with openssl in a temporary directory.
struct TLSFixture {
    let directory: URL
    var caPath: String { directory.appendingPathComponent("ca.pem").path }
    var certificatePath: String { directory.appendingPathComponent("server.pem").path }
    var keyPath: String { directory.appendingPathComponent("server.key").path }

    init(subjectAltName: String = "DNS:localhost,IP:127.0.0.1") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = """
            set -e
            cd '\(directory.path)'
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem \
              -days 1 -subj '/CN=AudioFrontEnd Test CA' 2>/dev/null
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr \
              -subj '/CN=localhost' 2>/dev/null
            printf 'subjectAltName=\(subjectAltName)\\nbasicConstraints=CA:FALSE\\n' > ext.cnf
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 1 \
              -extfile ext.cnf 2>/dev/null
            """
        try TestAudio.run("/bin/bash", ["-c", script])
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
