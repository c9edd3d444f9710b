import Foundation

/// Everything one run measured; written as JSON and printed as Markdown tables.
struct BenchmarkReport: Codable {
    struct Machine: Codable {
        var cores: Int
        var memoryGiB: Double
        var os: String
        var swift: String
    }

    /// From Benchmarks/callgrind.sh: instructions per 10 ms frame on the pushing thread.
    struct InstructionCounts: Codable {
        var ours: Double
        var c: Double
        var ratio: Double
        var frames: Int
        /// Ours with automatic alignment (the delay estimator), when counted.
        var oursAutomaticAlignment: Double?
    }

    struct Target: Codable {
        var name: String
        var target: String
        var measured: String
        /// nil when not measured in this run.
        var met: Bool?
    }

    var date: String
    var machine: Machine
    var input: String
    var audioSeconds: Double
    var configuration: String
    var ours: PipelineResult
    var c: CPipelineResult
    /// ours / C: median frame time and CPU time.
    var ratioMedianTime: Double
    var ratioCPUTime: Double
    var stages: [StageResult]
    var latency: LatencyResult
    /// The same latency run with every thread at SCHED_FIFO priority 10 (`chrt -f 10 afe-bench latency`), as audio
    /// threads run on devices; nil when not run.
    var latencyRealtimePriority: LatencyResult?
    var scaling: [ScalingResult]
    var alternatives: AlternativesResult?
    var instructions: InstructionCounts?
    var targets: [Target] = []

    mutating func evaluateTargets() {
        var t = [Target]()
        if let i = instructions {
            t.append(Target(name: "instructions per 10 ms, ours / C", target: "≤ 1.05",
                            measured: String(format: "%.3f (%.0f / %.0f)", i.ratio, i.ours, i.c), met: i.ratio <= 1.05))
        } else {
            t.append(Target(name: "instructions per 10 ms, ours / C", target: "≤ 1.05",
                            measured: "not measured (run Benchmarks/callgrind.sh)", met: nil))
        }
        t.append(Target(name: "heap allocations per frame (push thread, after warm-up)", target: "0",
                        measured: String(format: "%.3f", ours.allocationsPerFrame), met: ours.allocationsPerFrame == 0))
        t.append(Target(name: "push → AEC output event p99, normal priority", target: "≤ 2 ms",
                        measured: String(format: "%.3f ms", latency.pushToEvent.p99 / 1000),
                        met: latency.pushToEvent.p99 <= 2000))
        if let rt = latencyRealtimePriority {
            t.append(Target(name: "push → AEC output event p99, real-time priority (SCHED_FIFO)", target: "≤ 2 ms",
                            measured: String(format: "%.3f ms", rt.pushToEvent.p99 / 1000), met: rt.pushToEvent.p99 <= 2000))
        }
        // At the largest N (many sessions sharing the cores, the regime the target is about); the range over
        // every N and the C control at that N are shown beside it.
        if let last = scaling.last {
            let all = scaling.map(\.sessionsPerCore)
            t.append(Target(name: "sessions in real time per core (CPU time, \(last.sessions) sessions)", target: "≥ 40",
                            measured: String(format: "%.1f (%.1f–%.1f over N; bare C %.1f at N = %d)", last.sessionsPerCore,
                                          all.min() ?? 0, all.max() ?? 0, last.cSessionsPerCore, last.sessions),
                            met: last.sessionsPerCore >= 40))
            t.append(Target(name: "sessions per core, ours / bare C (\(last.sessions) sessions, median of \(last.rounds) rounds back to back)",
                            target: "≥ 1.00",
                            measured: String(format: "%.2f (rounds %.2f–%.2f)", last.ratioToC, last.ratioToCLowest, last.ratioToCHighest),
                            met: last.ratioToC >= 1))
        }
        let memory = scaling.last?.memoryPerSessionMiB ?? .nan
        t.append(Target(name: "memory per session (larger of resident growth and heap in use, \(scaling.last?.sessions ?? 0) sessions)",
                        target: "≤ 1.5 MiB", measured: String(format: "%.2f MiB", memory), met: memory <= 1.5))
        targets = t
    }

    func markdown() -> String {
        var s = "Date: \(date). Machine: \(machine.cores) cores, \(String(format: "%.0f", machine.memoryGiB)) GiB, "
            + "\(machine.os), Swift \(machine.swift). Input: \(input), \(String(format: "%.0f", audioSeconds)) s.\n"
        s += "Reference pipeline: \(configuration)\n\n"
        s += "### Targets\n\n| figure | target | measured | met |\n|---|---|---|---|\n"
        for t in targets { s += "| \(t.name) | \(t.target) | \(t.measured) | \(t.met.map { $0 ? "yes" : "**no**" } ?? "—") |\n" }
        if let i = instructions {
            s += "\n### Instructions per 10 ms frame (callgrind, push thread, \(i.frames) frames)\n\n| pipeline | instructions | × C |\n|---|---|---|\n"
            s += "| bare C pipeline | \(f(i.c, 0)) | 1.000 |\n| ours (FrontEnd) | \(f(i.ours, 0)) | \(f(i.ratio, 3)) |\n"
            if let a = i.oursAutomaticAlignment {
                s += "| ours, automatic alignment (delay estimator) | \(f(a, 0)) | \(f(a / i.c, 3)) |\n"
            }
        }
        s += "\n### Reference pipeline, ours vs the bare C pipeline (wall µs per 10 ms frame)\n\n"
        s += "| pipeline | median | p99 | max | CPU real-time factor | allocations / frame |\n|---|---|---|---|---|---|\n"
        s += row(ours.name, ours.frame, String(format: "%.4f", ours.realTimeFactor), ours.allocationsPerFrame)
        s += row(c.name, c.frame, String(format: "%.4f", c.realTimeFactor), c.allocationsPerFrame)
        s += String(format: "| ours / C | %.2f | | | %.2f | |\n", ratioMedianTime, ratioCPUTime)
        s += "\nOpus output, a check that both encode alike: ours \(f(ours.opusKilobitsPerSecond)) kb/s, C \(f(c.opusKilobitsPerSecond)) kb/s.\n"
        s += String(format: "\nWhole process (push + drain thread) real-time factor, ours: %.4f; allocations per frame in the whole process (drain thread's Swift event values): %.1f.\n",
                    ours.processRealTimeFactor, ours.processAllocationsPerFrame)
        s += "\n### Stages (wall µs per call)\n\n| stage | unit | median | p99 | max | CPU real-time factor |\n|---|---|---|---|---|---|\n"
        for st in stages { s += stageRow(st) }
        for (name, d) in c.stages.sorted(by: { $0.key < $1.key }) {
            s += "| C: \(name) | \(name == "Opus packet" ? "20 ms packet" : "10 ms frame") | \(f(d.median)) | \(f(d.p99)) | \(f(d.max)) | |\n"
        }
        s += String(format: "\nAllocations per frame, our stages together: %.3f.\n", stages.first?.allocationsPerFrame ?? .nan)
        s += "\n### Push cost and latency (paced in real time: mic, reference and consumer on separate threads)\n\n"
        s += "| figure | median µs | p99 µs | max µs |\n|---|---|---|---|\n"
        s += row3("pushMic, 10 ms at 48 kHz (processes the frame inline)", latency.pushMic)
        s += row3("pushReference, 10 ms at 48 kHz", latency.pushReference)
        s += row3("push → AEC output event (drain thread delegate)", latency.pushToEvent)
        if let rt = latencyRealtimePriority {
            s += row3("pushMic, real-time priority", rt.pushMic)
            s += row3("pushReference, real-time priority", rt.pushReference)
            s += row3("push → AEC output event, real-time priority", rt.pushToEvent)
        }
        s += "\n\(latency.frames) frames, \(latency.missingEvents) missing (normal priority).\n"
        s += "\n### Scaling (each session on its own push thread, pushing as fast as it goes)\n\n"
        s += "Medians over \(scaling.first?.rounds ?? 0) rounds, ours and the bare C pipeline back to back in each, the order alternating; memory: the largest round.\n\n"
        s += "| sessions | wall RTF of one session | CPU RTF per session | push thread CPU RTF | sessions per core (CPU) | sessions by wall time | resident MiB per session | heap MiB per session | C: sessions per core | C: resident MiB per session | ours / C (rounds) |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
        for r in scaling {
            s += String(format: "| %d | %.4f | %.4f | %.4f | %.1f | %.1f | %.2f | %.2f | %.1f | %.2f | %.2f (%.2f–%.2f) |\n", r.sessions, r.wallRealTimeFactor,
                        r.cpuRealTimeFactorPerSession, r.pushThreadRealTimeFactorPerSession, r.sessionsPerCore, r.sessionsByWallTime, r.residentPerSessionMiB,
                        r.heapPerSessionMiB, r.cSessionsPerCore, r.cMemoryPerSessionMiB, r.ratioToC, r.ratioToCLowest, r.ratioToCHighest)
        }
        if let a = alternatives {
            s += "\n### Alternatives: whole pipeline (wall µs per 10 ms frame)\n\n"
            s += "| variant | median | p99 | max | CPU real-time factor | allocations / frame |\n|---|---|---|---|---|---|\n"
            for p in a.pipelines { s += row(p.name, p.frame, String(format: "%.4f", p.realTimeFactor), p.allocationsPerFrame) }
            s += "\n### Alternatives: resamplers 48 → 16 kHz, one stream, and Opus\n\n"
            s += "| stage | unit | median | p99 | max | CPU real-time factor |\n|---|---|---|---|---|---|\n"
            for st in a.resamplers + a.opus { s += stageRow(st) }
        }
        return s
    }

    private func f(_ x: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", x) }

    private func row(_ name: String, _ d: Distribution, _ rtf: String, _ allocations: Double) -> String {
        "| \(name) | \(f(d.median)) | \(f(d.p99)) | \(f(d.max)) | \(rtf) | \(f(allocations, 3)) |\n"
    }

    private func row3(_ name: String, _ d: Distribution) -> String {
        "| \(name) | \(f(d.median)) | \(f(d.p99)) | \(f(d.max)) |\n"
    }

    private func stageRow(_ st: StageResult) -> String {
        "| \(st.name) | \(st.unit) | \(f(st.time.median)) | \(f(st.time.p99)) | \(f(st.time.max)) | \(f(st.realTimeFactor, 4)) |\n"
    }
}

extension BenchmarkReport.Machine {
    static func current(swift: String) -> Self {
        var memory = 0.0
        if let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
           let kib = Double(line.split(separator: " ").dropFirst().first ?? "") {
            memory = kib / 1_048_576
        }
        var os = "Linux"
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") }) {
            os = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return Self(cores: ProcessInfo.processInfo.activeProcessorCount, memoryGiB: memory, os: os, swift: swift)
    }
}
