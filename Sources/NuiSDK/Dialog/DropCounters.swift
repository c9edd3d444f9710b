import Synchronization

/// The counts behind ``NeoNui/callbackDrops``: one atomic per droppable kind. Any thread.
final class DropCounters: Sendable {
    enum Kind { case aecData, rms, results, logLines }

    private let aecData = Atomic<Int>(0)
    private let rms = Atomic<Int>(0)
    private let results = Atomic<Int>(0)
    private let logLines = Atomic<Int>(0)

    func count(_ kind: Kind, _ number: Int = 1) {
        switch kind {
        case .aecData: aecData.add(number, ordering: .relaxed)
        case .rms: rms.add(number, ordering: .relaxed)
        case .results: results.add(number, ordering: .relaxed)
        case .logLines: logLines.add(number, ordering: .relaxed)
        }
    }

    var snapshot: NuiCallbackDrops {
        var drops = NuiCallbackDrops()
        drops.aecData = aecData.load(ordering: .relaxed)
        drops.rms = rms.load(ordering: .relaxed)
        drops.results = results.load(ordering: .relaxed)
        drops.logLines = logLines.load(ordering: .relaxed)
        return drops
    }
}
