import AudioFrontEnd
import Foundation
import Synchronization
import Threads

/// With save_wav: the mic audio, the reference audio and the AEC output of a dialog written as 16-bit mono WAV
/// files in debug_path (`mic.wav`, `reference.wav`, `aec_output.wav`), each capped at max_log_file_size with at
/// most two files per stream (see ``CappedFile``).
///
/// The `record…` calls are real-time safe: they copy into a lock-free ring (one producer per stream), and a writer
/// thread empties the rings into the files. Audio that does not fit the ring (the writer fell 2 s behind) is
/// dropped and counted in ``droppedBytes``.
final class DebugWavRecorder: @unchecked Sendable { // rings are SPSC; files touched only by the writer thread
    enum Stream: Int, CaseIterable {
        case mic, reference, aecOutput

        var fileName: String { ["mic.wav", "reference.wav", "aec_output.wav"][rawValue] }
    }

    private let rings: [SPSCRing<UInt8>]
    private let files: [CappedFile]
    private let droppedMic = Atomic<Int>(0)
    private let droppedReference = Atomic<Int>(0)
    private let droppedOutput = Atomic<Int>(0)
    private let stopped = DispatchSemaphore(value: 0)
    private let thread = ThreadSlot()
    private let running = Atomic<Bool>(false)

    /// - Parameters:
    ///   - directory: debug_path.
    ///   - limit: bytes per file.
    ///   - rates: the sample rate of each stream, in ``Stream`` order.
    init(directory: String, limit: Int, rates: [Int]) {
        rings = rates.map { SPSCRing<UInt8>(minimumCapacity: max($0, 8000) * 2 * 2) }
        files = Stream.allCases.map { stream in
            let rate = rates[stream.rawValue]
            return CappedFile(path: (directory as NSString).appendingPathComponent(stream.fileName), limit: limit) {
                Self.header(sampleRate: rate, dataBytes: $0)
            }
        }
    }

    deinit { stop() }

    func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        thread.start(name: "NeoNui.debug-wav") { [self] in run() }
    }

    /// Copies `bytes` (16-bit PCM) for the stream's file. Real-time safe; one producer thread per stream.
    func record(_ stream: Stream, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let written = rings[stream.rawValue].write(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self),
                                                                       count: bytes.count))
        if written < bytes.count {
            let lost = bytes.count - written
            switch stream {
            case .mic: droppedMic.add(lost, ordering: .relaxed)
            case .reference: droppedReference.add(lost, ordering: .relaxed)
            case .aecOutput: droppedOutput.add(lost, ordering: .relaxed)
            }
        }
    }

    /// Bytes dropped per stream because the ring was full.
    var droppedBytes: [Int] {
        [droppedMic.load(ordering: .relaxed), droppedReference.load(ordering: .relaxed),
         droppedOutput.load(ordering: .relaxed)]
    }

    /// Writes what is left and closes the files. Idempotent; any thread but the producers'.
    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        stopped.signal()
        // Joined: the files are written and closed. None: the system refused a thread, nothing was written.
        if !thread.join() { files.forEach { $0.close() } }
    }

    private func run() {
        let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
        defer { scratch.deallocate() }
        var running = true
        while running {
            running = stopped.wait(timeout: .now() + .milliseconds(20)) == .timedOut
            for stream in Stream.allCases {
                while true {
                    let count = rings[stream.rawValue].read(into: scratch)
                    if count == 0 { break }
                    files[stream.rawValue].write(UnsafeRawBufferPointer(start: scratch.baseAddress, count: count), alignment: 2)
                }
            }
        }
        files.forEach { $0.close() }
    }

    /// A 44-byte WAV header for 16-bit mono PCM.
    static func header(sampleRate: Int, dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func text(_ s: String) { bytes += Array(s.utf8) }
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { bytes += $0 } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { bytes += $0 } }
        text("RIFF"); u32(36 + dataBytes); text("WAVE")
        text("fmt "); u32(16); u16(1); u16(1); u32(sampleRate); u32(sampleRate * 2); u16(2); u16(16)
        text("data"); u32(dataBytes)
        return bytes
    }
}
