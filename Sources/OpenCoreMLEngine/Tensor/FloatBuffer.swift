/// Owned float storage, 64-byte aligned, that grows on demand and never shrinks.
///
/// The engine sizes every buffer for the largest batch seen so far, so a steady stream of
/// batches allocates nothing.
public final class FloatBuffer: @unchecked Sendable {
    public private(set) var pointer: UnsafeMutablePointer<Float>
    public private(set) var capacity: Int

    public init(capacity: Int = 0) {
        self.capacity = max(capacity, 0)
        pointer = Self.allocate(self.capacity)
        pointer.initialize(repeating: 0, count: self.capacity)
    }

    /// A buffer holding a copy of `values`.
    public convenience init(_ values: [Float]) {
        self.init(capacity: values.count)
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: values.count) }
    }

    deinit { pointer.deallocate() }

    /// Makes room for at least `count` floats. Growing discards the contents (filled with zeros).
    public func reserve(_ count: Int) {
        guard count > capacity else { return }
        pointer.deallocate()
        pointer = Self.allocate(count)
        pointer.initialize(repeating: 0, count: count)
        capacity = count
    }

    /// Sets the first `count` floats to zero.
    public func zero(_ count: Int) {
        pointer.update(repeating: 0, count: min(count, capacity))
    }

    /// The first `count` floats, copied out.
    public func array(_ count: Int) -> [Float] {
        Array(UnsafeBufferPointer(start: pointer, count: min(count, capacity)))
    }

    private static func allocate(_ count: Int) -> UnsafeMutablePointer<Float> {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
        return raw.bindMemory(to: Float.self, capacity: max(count, 1))
    }
}
