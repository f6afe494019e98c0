#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owned float storage, 64-byte aligned, that grows on demand and never shrinks.
///
/// The engine sizes every buffer for the largest batch seen so far, so a steady stream of
/// batches allocates nothing. Large buffers are pages mapped from the system and unmapped on
/// release, so they go back to it at once whatever the allocator keeps (a model trained again
/// and again in one process does not grow), and pages never written take no memory.
package final class FloatBuffer: @unchecked Sendable {
    package private(set) var pointer: UnsafeMutablePointer<Float>
    package private(set) var capacity: Int
    /// Whether `pointer` is a mapping (else it came from the allocator).
    private var isMapped: Bool

    package init(capacity: Int = 0) {
        self.capacity = max(capacity, 0)
        (pointer, isMapped) = Self.allocateZeroed(self.capacity)
    }

    /// A buffer holding a copy of `values`.
    package convenience init(_ values: [Float]) {
        self.init(capacity: values.count)
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: values.count) }
    }

    deinit { Self.release(pointer, capacity, isMapped) }

    /// Makes room for at least `count` floats. Growing discards the contents (filled with zeros).
    package func reserve(_ count: Int) {
        guard count > capacity else { return }
        Self.release(pointer, capacity, isMapped)
        (pointer, isMapped) = Self.allocateZeroed(count)
        capacity = count
    }

    /// Sets the first `count` floats to zero.
    package func zero(_ count: Int) {
        pointer.update(repeating: 0, count: min(count, capacity))
    }

    /// The first `count` floats, copied out.
    package func array(_ count: Int) -> [Float] {
        Array(UnsafeBufferPointer(start: pointer, count: min(count, capacity)))
    }

    /// Buffers of at least this many bytes are mapped pages.
    private static let mappedBytes = 256 << 10

    private static func allocateZeroed(_ count: Int) -> (UnsafeMutablePointer<Float>, mapped: Bool) {
        let bytes = max(count, 1) * MemoryLayout<Float>.stride
        #if canImport(Glibc) || canImport(Darwin)
        if bytes >= mappedBytes {
            // Anonymous mappings are page-aligned and read as zeros.
            if let raw = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED {
                return (raw.bindMemory(to: Float.self, capacity: max(count, 1)), true)
            }
        }
        #endif
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        let pointer = raw.bindMemory(to: Float.self, capacity: max(count, 1))
        pointer.initialize(repeating: 0, count: max(count, 1))
        return (pointer, false)
    }

    private static func release(_ pointer: UnsafeMutablePointer<Float>, _ count: Int, _ mapped: Bool) {
        #if canImport(Glibc) || canImport(Darwin)
        if mapped {
            munmap(UnsafeMutableRawPointer(pointer), max(count, 1) * MemoryLayout<Float>.stride)
            return
        }
        #endif
        pointer.deallocate()
    }
}
