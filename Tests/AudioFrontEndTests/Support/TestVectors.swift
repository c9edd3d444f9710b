import AudioFrontEnd
import Foundation
import XCTest

/// The committed test vectors (TestVectors/) and their manifest.
///
/// Every load checks the file's SHA-256 against `TestVectors/manifest.json`, so a test never runs on a
/// vector that differs from the one its thresholds were set on. Tests never need the generator's tools.
enum TestVectors {
    /// The TestVectors/ folder of this checkout.
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TestVectors")

    /// One manifest entry: a file and its ground truth (keys as in manifest.json).
    struct Entry: @unchecked Sendable { // immutable after parsing
        let raw: [String: Any]
        var file: String { raw["file"] as! String }
        var sampleRate: Int { raw["sample_rate"] as! Int }
        var sha256: String { raw["sha256"] as! String }
        /// Any ground-truth value by key (e.g. "delay_ms", "ser_db", "snr_db", "reference", "clean_nearend").
        subscript(key: String) -> Any? { raw[key] }
        /// Labelled speech intervals in seconds, [start, end], when the manifest has them.
        var speechIntervals: [(start: Double, end: Double)] {
            ((raw["speech"] as? [[Double]]) ?? []).map { ($0[0], $0[1]) }
        }
    }

    static let manifest: [String: Entry] = {
        let url = directory.appendingPathComponent("manifest.json")
        guard let data = try? Data(contentsOf: url),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let files = json["vectors"] as? [[String: Any]] else { return [:] }
        var entries: [String: Entry] = [:]
        for file in files { let e = Entry(raw: file); entries[e.file] = e }
        return entries
    }()

    static func entry(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Entry {
        guard let entry = manifest[name] else {
            XCTFail("\(name) is not in TestVectors/manifest.json", file: file, line: line)
            throw AudioFrontEndError(.fileError, "no manifest entry for \(name)")
        }
        return entry
    }

    /// The vector's samples as int16, after checking its SHA-256 against the manifest.
    static func int16(_ name: String) throws -> (samples: [Int16], sampleRate: Int) {
        let (audio, _) = try load(name)
        return (audio.int16Samples, audio.sampleRate)
    }

    /// The vector's samples as floats in [-1, 1], after checking its SHA-256 against the manifest.
    static func float(_ name: String) throws -> (samples: [Float], sampleRate: Int) {
        let (audio, _) = try load(name)
        return (audio.samples, audio.sampleRate)
    }

    static func load(_ name: String) throws -> (AudioFile, Entry) {
        let entry = try entry(name)
        let path = directory.appendingPathComponent(name).path
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let digest = SHA256.hex(data)
        guard digest == entry.sha256 else {
            XCTFail("\(name): SHA-256 \(digest) does not match the manifest's \(entry.sha256)")
            throw AudioFrontEndError(.fileError, "hash mismatch for \(name)")
        }
        let audio = try AudioFile(contentsOf: path)
        XCTAssertEqual(audio.sampleRate, entry.sampleRate, "\(name): sample rate differs from the manifest")
        return (audio, entry)
    }
}
