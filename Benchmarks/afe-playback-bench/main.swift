// afe-playback-bench: what playing synthesized speech costs per format, and the release check of the playback
// loop. Build with `swift build -c release --product afe-playback-bench`; Benchmarks/playback.sh makes the inputs
// (espeak-ng, sox, lame, opusenc) and runs it. Speed is measured here, never in tests.
//
//   afe-playback-bench cost --inputs DIR [--seconds S]      decode + resample, render + reference push, per format
//   afe-playback-bench loop --inputs DIR [--minutes M] [--check]   the whole player for M minutes of audio per
//                                                                  format: memory, allocations, reference = rendered
import AllocationCounter
import AudioFrontEnd
import AudioPlayback
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Failure: Error, CustomStringConvertible { let description: String }

func threadCPU() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// One input: a format, its file's bytes cut into the pieces the TTS server sends (Ogg pages for opus;
/// 4 KiB frames otherwise), and the task's sample_rate.
struct Input {
    let format: SynthesisAudioFormat
    let sampleRate: Int
    let chunks: [[UInt8]]

    init(directory: String, format: SynthesisAudioFormat) throws {
        self.format = format
        let name = ["pcm": "speech.pcm", "wav": "speech.wav", "mp3": "speech.mp3", "opus": "speech.opus"][format.rawValue]!
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            throw Failure(description: "afe: cannot read \(directory)/\(name) (run Benchmarks/playback.sh)")
        }
        let bytes = [UInt8](data)
        sampleRate = format == .opus ? 24000 : 22050
        if format == .opus {
            var pages: [[UInt8]] = []
            var offset = 0
            while offset + 27 <= bytes.count {
                let segments = Int(bytes[offset + 26])
                let body = (0..<segments).reduce(0) { $0 + Int(bytes[offset + 27 + $1]) }
                let end = min(bytes.count, offset + 27 + segments + body)
                pages.append(Array(bytes[offset..<end]))
                offset = end
            }
            chunks = pages
        } else {
            chunks = stride(from: 0, to: bytes.count, by: 4096).map { Array(bytes[$0..<min($0 + 4096, bytes.count)]) }
        }
    }
}

struct Options {
    var command = "cost"
    var inputs = ""
    var seconds = 60.0
    var minutes = 3.0
    var check = false
    var rates = [16000, 48000]

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") { command = String(first); rest = rest.dropFirst() }
        while let a = rest.popFirst() {
            switch a {
            case "--inputs": inputs = rest.popFirst() ?? ""
            case "--seconds": seconds = Double(rest.popFirst() ?? "") ?? 0
            case "--minutes": minutes = Double(rest.popFirst() ?? "") ?? 0
            case "--check": check = true
            default: throw Failure(description: "afe: unknown option \(a)")
            }
        }
        guard ["cost", "loop"].contains(command), !inputs.isEmpty, seconds > 0, minutes > 0 else {
            throw Failure(description: "afe: usage: afe-playback-bench cost|loop --inputs DIR [--seconds S] [--minutes M] [--check]")
        }
    }
}

/// A running front end whose reference the player feeds (the reference window drops its oldest samples, counted,
/// since no mic is pushed: the cost of the push is what is measured).
func frontEnd(rate: Int) throws -> FrontEnd {
    var configuration = FrontEndConfiguration()
    configuration.reference = .init(sampleRate: rate)
    configuration.mic = .init(sampleRate: 16000)
    let frontEnd = try FrontEnd(configuration: configuration)
    try frontEnd.start()
    return frontEnd
}

/// Decode + resample of every chunk, repeated to `seconds` of audio, on this thread: CPU per chunk and per
/// 10 ms of output, and allocations after the first pass.
func decodeCost(_ input: Input, outputRate: Int, seconds: Double) throws -> (perChunk: Double, per10ms: Double, allocations: Int64, setUpAllocations: Int64, chunks: Int) {
    var produced = 0, chunks = 0, cpu: Int64 = 0, allocations: Int64 = 0, setUp: Int64 = 0, pass = 0
    while Double(produced) < seconds * Double(outputRate) || pass < 2 {
        // Pass 0 is warm-up; after it, allocations are counted apart for creating the decoder (once per
        // utterance, on the worker thread) and for decoding its chunks.
        if pass >= 1 { afe_allocation_counter_start() }
        let decoder = try PlaybackDecoder(format: input.format, sampleRate: input.sampleRate, outputRate: outputRate)
        if pass >= 1 { setUp += afe_allocation_counter_stop(); afe_allocation_counter_start() }
        let start = threadCPU()
        for (index, chunk) in input.chunks.enumerated() {
            // The first two chunks carry the header (the codec and resampler are created then): set-up too.
            if pass >= 1 && index == 2 { setUp += afe_allocation_counter_stop(); afe_allocation_counter_start() }
            try chunk.withUnsafeBytes { bytes in try decoder.decode(bytes) { produced += $0.count } }
        }
        try decoder.finish { produced += $0.count }
        cpu += threadCPU() - start
        if pass >= 1 { allocations += afe_allocation_counter_stop() }
        chunks += input.chunks.count
        pass += 1
    }
    let tenMs = Double(produced) / Double(outputRate / 100)
    return (Double(cpu) / 1000 / Double(chunks), Double(cpu) / 1000 / tenMs, allocations / Int64(pass - 1),
            setUp / Int64(pass - 1), chunks)
}

/// The whole player over `seconds` of audio as utterances of the input, rendered in 10 ms buffers on this thread
/// as fast as the worker decodes. Returns render + reference-push CPU per buffer, allocations on the render
/// thread after the first utterance, the resident-memory growth after the warm-up, and checks.
///
/// The rings' pages are touched as their free-running indices first pass over them, so resident memory grows
/// until each ring has wrapped once (up to its capacity, then no more). The loop uses a 1 MiB input ring (an
/// utterance of pcm here is about 420 kB) and measures from the end of the `warmUpUtterances`-th utterance, by
/// which time both rings have wrapped: what grows after that is a leak.
struct LoopResult {
    var renderMicroseconds = 0.0
    var renderAllocations: Int64 = 0
    var residentGrowthBytes = 0
    var audioSeconds = 0.0
    var utterances = 0
    var problems: [String] = []
}

let warmUpUtterances = 4

func playbackLoop(_ input: Input, rate: Int, seconds: Double) throws -> LoopResult {
    let frames = rate / 100
    let front = try frontEnd(rate: rate)
    let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate, inputCapacityBytes: 1 << 20),
                                     reference: front)
    defer { player.close() }
    final class Flags: @unchecked Sendable {
        let lock = NSLock()
        var inputEnded = 0, drained = 0, decodedSamples = 0, failures: [String] = []
    }
    let flags = Flags()
    player.setEventHandler { event in
        flags.lock.lock()
        switch event {
        case .inputEnded(_, let samples):
            flags.inputEnded += 1
            flags.decodedSamples += samples
        case .drained: flags.drained += 1
        case .decodeFailed(_, let error): flags.failures.append("\(error)")
        default: break
        }
        flags.lock.unlock()
    }
    func read(_ body: (Flags) -> Int) -> Int { flags.lock.lock(); defer { flags.lock.unlock() }; return body(flags) }
    let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frames)
    defer { buffer.deallocate() }
    var result = LoopResult()
    var rendered = 0, cpu: Int64 = 0, buffers = 0, residentAfterFirst = 0
    while Double(rendered) < seconds * Double(rate) || result.utterances < warmUpUtterances + 1 {
        let utterance = result.utterances + 1
        try player.begin(format: input.format, sampleRate: input.sampleRate)
        for chunk in input.chunks { chunk.withUnsafeBytes { _ = player.enqueue($0) } }
        player.endInput()
        if result.utterances == 1 { afe_allocation_counter_start() }
        while read({ $0.drained }) < utterance {
            // Render only what is decoded (or the end): the worker, not the device, is the pace here.
            guard player.bufferedFrames >= frames || read({ $0.inputEnded }) >= utterance else {
                usleep(100)
                continue
            }
            let start = threadCPU()
            player.render(into: buffer)
            if result.utterances >= 1 { cpu += threadCPU() - start; buffers += 1 }
            rendered += frames
            if read({ $0.inputEnded }) >= utterance && player.bufferedFrames == 0 { usleep(100) }
        }
        if result.utterances >= 1 { result.renderAllocations += afe_allocation_counter_stop() }
        result.utterances += 1
        if result.utterances == warmUpUtterances { residentAfterFirst = residentBytes() }
    }
    result.residentGrowthBytes = residentBytes() - residentAfterFirst
    result.renderMicroseconds = Double(cpu) / 1000 / Double(max(1, buffers))
    result.audioSeconds = Double(rendered) / Double(rate)
    let counts = player.counts
    let summary = try front.finish()
    if counts.underrunFrames > 0 { result.problems.append("\(counts.underrunFrames) underrun frames") }
    if counts.refusedReferenceSamples > 0 { result.problems.append("\(counts.refusedReferenceSamples) reference samples refused") }
    if counts.refusedInputBytes > 0 { result.problems.append("\(counts.refusedInputBytes) input bytes refused") }
    // The front end took every sample the player pushed, and that is every rendered sample (the silence around
    // the utterances included: it keeps the reference aligned with the mic), which holds every decoded one.
    let decoded = read { $0.decodedSamples }
    if summary.referenceSamplesPushed != counts.referenceSamplesPushed || counts.referenceSamplesPushed != rendered
        || rendered < decoded {
        result.problems.append("reference: front end took \(summary.referenceSamplesPushed), player pushed "
                               + "\(counts.referenceSamplesPushed), rendered \(rendered), decoded \(decoded)")
    }
    if flags.failures.count > 0 { result.problems.append("decode failures: \(flags.failures.prefix(3))") }
    if result.renderAllocations > 0 { result.problems.append("\(result.renderAllocations) allocations on the render thread") }
    if result.residentGrowthBytes > 4 << 20 { result.problems.append("resident memory grew \(result.residentGrowthBytes >> 10) KiB") }
    return result
}

func run() throws {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let inputs = try SynthesisAudioFormat.allCases.map { try Input(directory: options.inputs, format: $0) }
    var failed = false
    switch options.command {
    case "cost":
        print("| format | playback Hz | chunk | decode + resample µs/chunk | µs per 10 ms of audio | allocations per utterance: set-up (creation + first 2 chunks) / the rest | render + reference push µs per 10 ms buffer |")
        print("|---|---|---|---|---|---|---|")
        for rate in options.rates {
            for input in inputs {
                let decode = try decodeCost(input, outputRate: rate, seconds: options.seconds)
                let render = try playbackLoop(input, rate: rate, seconds: min(20, options.seconds))
                let chunk = input.format == .opus ? "Ogg page (\(input.chunks.count) per pass)" : "4 KiB"
                print("| \(input.format) | \(rate) | \(chunk) | \(String(format: "%.1f", decode.perChunk)) | "
                      + "\(String(format: "%.2f", decode.per10ms)) | \(decode.setUpAllocations) / \(decode.allocations) | "
                      + "\(String(format: "%.2f", render.renderMicroseconds)) |")
            }
        }
    default:
        for input in inputs {
            let result = try playbackLoop(input, rate: 16000, seconds: options.minutes * 60)
            let line = "\(input.format): \(String(format: "%.0f", result.audioSeconds)) s of audio in \(result.utterances) utterances, "
                + "render + reference push \(String(format: "%.2f", result.renderMicroseconds)) µs per 10 ms, "
                + "\(result.renderAllocations) allocations on the render thread after the first utterance, resident memory "
                + "\(result.residentGrowthBytes >= 0 ? "+" : "")\(result.residentGrowthBytes >> 10) KiB after the \(warmUpUtterances)th"
            print(line + (result.problems.isEmpty ? "" : " — FAILED: " + result.problems.joined(separator: "; ")))
            failed = failed || !result.problems.isEmpty
        }
    }
    if options.check && failed { throw Failure(description: "afe: the playback loop check failed") }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
