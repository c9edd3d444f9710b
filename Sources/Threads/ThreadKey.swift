#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A number naming the calling thread (its `pthread_t`), for "is this the drain / delivery thread" checks that
/// must not lock: `pthread_t` is an integer on Linux and a pointer on Darwin. Any thread; real-time safe.
@inline(__always)
package func currentThreadKey() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}
