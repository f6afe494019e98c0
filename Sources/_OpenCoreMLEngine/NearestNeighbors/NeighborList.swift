/// The nearest samples found for one query, nearest first (ties: lower sample index first).
package struct NeighborList: Sendable, Equatable {
    /// Sample indices into the index's samples.
    package var indices: [Int32]
    /// Squared Euclidean distances, ascending.
    package var distances: [Float]

    package init(indices: [Int32] = [], distances: [Float] = []) {
        self.indices = indices
        self.distances = distances
    }

    package var count: Int { indices.count }
}
