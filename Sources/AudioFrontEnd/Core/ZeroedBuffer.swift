extension UnsafeMutableBufferPointer where Element: ExpressibleByIntegerLiteral {
    /// A new buffer of `capacity` elements, all zero: the scratch and state every stage sizes at creation.
    /// Allocates; set-up only. The owner deallocates it.
    static func zeroed(capacity: Int) -> Self {
        let buffer = Self.allocate(capacity: capacity)
        buffer.initialize(repeating: 0)
        return buffer
    }
}
