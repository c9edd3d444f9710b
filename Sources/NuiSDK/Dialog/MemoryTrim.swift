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
enum MemoryTrim {
    static func afterDialog() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = trim { _ = unsafeBitCast(symbol, to: Trim.self)(0) }
        #endif
    }

    #if canImport(Glibc)
    nonisolated(unsafe) private static let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
    #endif
}
