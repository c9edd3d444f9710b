import CSpeexDSP

/// Decides when a speex MDF filter's tail is too short for the room: once a second of playback it reads the
/// filter's impulse response (`SPEEX_ECHO_GET_IMPULSE_RESPONSE`) and measures the energy of its last quarter
/// against the whole. A room whose echo path outlasts the tail leaves the adapted response still high at its
/// end; a short room's response has decayed there (the test vectors' room, RT60 0.25 s: about -30 dB).
///
/// Internal to ``SpeexEchoCanceller``. Allocates once at creation; ``observe(_:referenceActive:)`` is
/// real-time safe (no allocation, locks or throwing). One thread at a time.
struct SpeexTailMonitor {
    /// Seconds of playback (frames with a non-silent reference) before the first look: the filter must have
    /// converged. Then one look per second; ``consecutive`` looks in a row above the limit decide.
    static let firstLookFrames = 300
    static let lookEveryFrames = 100
    static let consecutive = 2

    let limitDecibels: Float
    private let response: UnsafeMutableBufferPointer<Int32>
    private var activeFrames = 0
    private var above = 0
    /// The last measured share of the response's energy in its last quarter, dB; nil before the first look.
    private(set) var lastQuarterDecibels: Float?

    /// - Parameter filterLength: at least the filter's length rounded up to whole blocks (speexdsp's size).
    init(filterLength: Int, limitDecibels: Float) {
        self.limitDecibels = limitDecibels
        response = .allocate(capacity: filterLength)
        response.initialize(repeating: 0)
    }

    func deallocate() { response.deallocate() }

    mutating func reset() {
        activeFrames = 0
        above = 0
        lastQuarterDecibels = nil
    }

    /// Counts one frame; on a look, measures `state`'s response. Returns true when the tail should grow.
    mutating func observe(_ state: OpaquePointer, referenceActive: Bool) -> Bool {
        guard referenceActive else { return false }
        activeFrames += 1
        guard activeFrames >= Self.firstLookFrames, activeFrames % Self.lookEveryFrames == 0,
              let taps = response.baseAddress else { return false }
        var size: Int32 = 0
        guard speex_echo_ctl(state, SPEEX_ECHO_GET_IMPULSE_RESPONSE_SIZE, &size) == 0,
              Int(size) <= response.count, size >= 4 else { return false }
        _ = speex_echo_ctl(state, SPEEX_ECHO_GET_IMPULSE_RESPONSE, taps)
        let count = Int(size)
        var total: Double = 0
        var last: Double = 0
        for i in 0..<count {
            let x = Double(taps[i])
            total += x * x
            if i >= count - count / 4 { last += x * x }
        }
        guard total > 0 else { return false }
        let share = LevelMeter.decibels(meanSquare: last / total)
        lastQuarterDecibels = share
        above = share > limitDecibels ? above + 1 : 0
        return above >= Self.consecutive
    }
}
