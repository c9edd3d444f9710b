import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Gives the memory a finished dialog freed back to the system.
///
/// A dialog's threads (front end drain, event thread, network thread) each allocate from their own glibc malloc
/// arena; what they free stays mapped in those arenas, so without a trim the resident size of a long-running
/// device app creeps up by a few hundred KiB per dozen dialogs though nothing leaks (200 dialogs: +4.7 MiB
/// untrimmed, +1.2 MiB trimmed, measured by `Soak/run.sh`). glibc's `malloc_trim` (looked up at run time: it
/// is a GNU extension) returns the free pages of every arena. Elsewhere it does nothing. Control threads only
/// (it walks every arena: about a millisecond); never on an audio thread.
///
/// A long dialog (an hour of meeting transcription) is trimmed during its run as well, once a minute
/// (``periodic(every:)``): the same creep happens within one dialog as partials and sentences come and go.
enum MemoryTrim {
    /// Trims now. Control threads only.
    static func afterDialog() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = trim { _ = unsafeBitCast(symbol, to: Trim.self)(0) }
        #endif
    }

    /// A timer that trims every `seconds` on a background queue until it is cancelled (the dialog's end).
    static func periodic(every seconds: Int = 60) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + .seconds(seconds), repeating: .seconds(seconds), leeway: .seconds(1))
        timer.setEventHandler { afterDialog() }
        timer.resume()
        return timer
    }

    #if canImport(Glibc)
    nonisolated(unsafe) private static let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
    #endif
}
