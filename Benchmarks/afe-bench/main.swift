// afe-bench: the benchmark program of issue 7. Build with `swift build -c release --product afe-bench`; see
// Benchmarks/README.md. Speed is measured here, never in tests.
import AudioFrontEnd
import Foundation

/// Command-line options.
struct Options {
    var command = "run"
    var vectors = "TestVectors"
    var seconds = 60.0
    var latencySeconds = 20.0
    var scalingSeconds = 12.0
    var sessions = [1, 2, 4, 8, 16, 32]
    var scalingRounds = 5
    var json: String?
    var instructions: String?
    var latencyRealtime: String?
    var pipeline = "ours"
    var warmupSeconds = 1.0
    var alternatives = true
    var swift = "unknown"

    static let usage = """
        usage: afe-bench [run] [--seconds S] [--latency-seconds S] [--scaling-seconds S] [--scaling-rounds R] [--sessions 1,2,4]
                         [--no-alternatives] [--json FILE] [--instructions FILE] [--latency-realtime FILE]
                         [--swift VERSION] [--vectors DIR]
               afe-bench latency [--latency-seconds S] [--json FILE]   (run it under `chrt -f 10` for real-time priority)
               afe-bench instructions --pipeline ours|ours-automatic|c [--seconds S] [--warmup-seconds S] [--vectors DIR]
        """

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            command = first
            rest = rest.dropFirst()
        }
        func value(_ name: String) throws -> String {
            guard let v = rest.popFirst() else { throw BenchmarkError("\(name) needs a value\n\(Self.usage)") }
            return v
        }
        func number(_ name: String) throws -> Double {
            let v = try value(name)
            guard let d = Double(v), d > 0 else { throw BenchmarkError("\(name) needs a positive number, not \(v)") }
            return d
        }
        while let a = rest.popFirst() {
            switch a {
            case "--vectors": vectors = try value(a)
            case "--seconds": seconds = try number(a)
            case "--latency-seconds": latencySeconds = try number(a)
            case "--scaling-seconds": scalingSeconds = try number(a)
            case "--warmup-seconds": warmupSeconds = try number(a)
            case "--scaling-rounds":
                let v = try value(a)
                guard let r = Int(v), r > 0 else { throw BenchmarkError("--scaling-rounds needs a whole number above 0, not \(v)") }
                scalingRounds = r
            case "--sessions":
                let v = try value(a)
                sessions = v.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                guard !sessions.isEmpty else { throw BenchmarkError("--sessions needs counts like 1,2,4, not \(v)") }
            case "--json": json = try value(a)
            case "--instructions": instructions = try value(a)
            case "--latency-realtime": latencyRealtime = try value(a)
            case "--pipeline": pipeline = try value(a)
            case "--swift": swift = try value(a)
            case "--no-alternatives": alternatives = false
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            default: throw BenchmarkError("unknown option \(a)\n\(Self.usage)")
            }
        }
        // The first second of every run is warm-up.
        guard seconds >= 2, latencySeconds >= 2, seconds >= warmupSeconds + 1 else {
            throw BenchmarkError("--seconds and --latency-seconds need at least 2 s (1 s is warm-up)")
        }
        guard ["run", "instructions", "latency"].contains(command) else { throw BenchmarkError("unknown command \(command)\n\(Self.usage)") }
    }
}

func log(_ message: String) { FileHandle.standardError.write(Data((message + "\n").utf8)) }

func runAll(_ options: Options) throws {
    let input = try BenchmarkInput(vectors: options.vectors, seconds: options.seconds)
    let reference = ReferenceConfiguration.ours()
    let cConfig = try ReferenceConfiguration.c(matching: reference)
    log("reference pipeline: C, then ours (\(Int(input.seconds)) s each)")
    let c = try CPipeline.run("bare C pipeline", config: cConfig, input: input)
    let ours = try OurPipeline.run("ours (FrontEnd)", configuration: reference, input: input)
    log("stages")
    let stages = try OurStages.run(input: input, configuration: reference)
    log("latency (\(Int(options.latencySeconds)) s, paced in real time)")
    let latency = try Latency.run(configuration: reference,
                                  input: try BenchmarkInput(vectors: options.vectors, seconds: options.latencySeconds))
    var scaling = [ScalingResult]()
    let scalingInput = try BenchmarkInput(vectors: options.vectors, seconds: options.scalingSeconds)
    for n in options.sessions {
        log("scaling: \(n) sessions, \(options.scalingRounds) rounds of ours and C")
        scaling.append(try Scaling.run(sessions: n, rounds: options.scalingRounds, configuration: reference, input: scalingInput))
    }
    var alternatives: AlternativesResult?
    if options.alternatives {
        log("alternatives")
        alternatives = try Alternatives.run(input: input, input16: try input.resampled(to: 16000).mic, reference: reference)
    }
    var report = BenchmarkReport(
        date: ISO8601DateFormatter().string(from: Date()), machine: .current(swift: options.swift),
        input: "\(BenchmarkInput.micFile) + \(BenchmarkInput.referenceFile), looped", audioSeconds: input.seconds,
        configuration: "48 kHz mic and reference → speex q5 → 16 kHz → WebRTC AEC2 (moderate, extended filter, metrics) "
            + "+ NS (moderate) + VAD (low) → Opus VOIP 24 kb/s VBR complexity 5, 20 ms packets; fixed alignment",
        ours: ours, c: c, ratioMedianTime: ours.frame.median / c.frame.median,
        ratioCPUTime: ours.realTimeFactor / c.realTimeFactor, stages: stages, latency: latency, scaling: scaling,
        alternatives: alternatives)
    if let path = options.latencyRealtime {
        report.latencyRealtimePriority = try JSONDecoder().decode(LatencyResult.self,
                                                                  from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
    if let path = options.instructions {
        report.instructions = try JSONDecoder().decode(BenchmarkReport.InstructionCounts.self,
                                                       from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
    report.evaluateTargets()
    print(report.markdown())
    if let path = options.json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        log("wrote \(path)")
    }
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    switch options.command {
    case "latency":
        let result = try Latency.run(configuration: ReferenceConfiguration.ours(),
                                     input: try BenchmarkInput(vectors: options.vectors, seconds: options.latencySeconds))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = try encoder.encode(result)
        if let path = options.json { try json.write(to: URL(fileURLWithPath: path)) }
        print(String(decoding: json, as: UTF8.self))
    case "instructions":
        let input = try BenchmarkInput(vectors: options.vectors, seconds: options.seconds)
        try Instructions.run(pipeline: options.pipeline, input: input, warmupFrames: Int(options.warmupSeconds * 100))
    default:
        try runAll(options)
    }
} catch {
    log("afe-bench: \(error)")
    exit(1)
}
