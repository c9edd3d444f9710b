import AudioFrontEnd
import Foundation
import XCTest

/// The audio files the fuzz target FuzzAudioFile found crashing (Fuzz/regressions/FuzzAudioFile), read as the fuzzer
/// reads them, without libFuzzer.
final class FuzzRegressionTests: XCTestCase {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions/FuzzAudioFile")

    /// A 265-byte FLAC whose header claims about 2^36 frames aborted (256 GB allocated from the claim before
    /// reading): now it reads as the little it holds, or is refused with an error.
    func testHeaderClaimsDoNotSizeTheRead() throws {
        let files = try FileManager.default.contentsOfDirectory(at: Self.regressions, includingPropertiesForKeys: nil)
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as! Int
            do {
                let audio = try AudioFile(contentsOf: file.path)
                XCTAssertLessThanOrEqual(audio.samples.count, 64 * size, file.lastPathComponent)
            } catch let error as AudioFrontEndError {
                XCTAssertEqual(error.code, .fileError, file.lastPathComponent)
            }
        }
    }
}
