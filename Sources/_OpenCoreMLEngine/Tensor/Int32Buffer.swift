/// Owned int32 storage that grows on demand (max-pooling winners).
final class Int32Buffer: @unchecked Sendable {
    private(set) var pointer = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    private(set) var capacity = 0

    func reserve(_ count: Int) {
        guard count > capacity else { return }
        pointer.deallocate()
        pointer = .allocate(capacity: count)
        capacity = count
    }

    deinit { pointer.deallocate() }
}
