/// The nearest samples found for one query, nearest first (ties: lower sample index first).
public struct NeighborList: Sendable, Equatable {
    /// Sample indices into the index's samples.
    public var indices: [Int32]
    /// Squared Euclidean distances, ascending.
    public var distances: [Float]

    public init(indices: [Int32] = [], distances: [Float] = []) {
        self.indices = indices
        self.distances = distances
    }

    public var count: Int { indices.count }
}
