import Foundation

extension AfeCommand {
    /// A run of `afe` with the child's peak resident memory.
    struct MeasuredResult {
        let status: Int32
        let stdout: String
        let stderr: String
        /// The child's maximum resident set size (`ru_maxrss` from `wait4`), bytes.
        let peakBytes: Int
    }

    /// Runs `afe arguments` with posix_spawn and reaps it with `wait4`, which reports the child's own peak RSS
    /// (Foundation's Process reaps its children itself and keeps the rusage). stdout and stderr go to files.
    func afeMeasured(_ arguments: [String]) throws -> MeasuredResult {
        let out = path("measured-stdout.txt"), err = path("measured-stderr.txt")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([Self.binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "DASHSCOPE_API_KEY" && $0.key != "NLS_TOKEN" }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, Self.binary, &actions, nil, argv, envp) // arguments hold absolute paths
        guard spawned == 0 else { throw NSError(domain: "posix_spawn", code: Int(spawned)) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        return MeasuredResult(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
                              stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                              stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "",
                              peakBytes: usage.ru_maxrss * 1024)
    }
}
