/// How neighbours' votes are weighted (Core ML's weighting schemes).
package enum NeighborWeighting: Sendable, Equatable {
    /// Every neighbour counts once.
    case uniform
    /// A neighbour counts 1 / its distance (the index's squared Euclidean distance). Neighbours at
    /// distance 0 outvote all others: when there are any, only they count, once each.
    case inverseDistance
}

/// The outcome of k neighbours voting for classes.
package struct NeighborVote: Sendable, Equatable {
    /// The winning class: the largest total weight; a tie goes to the class with the nearest neighbour.
    package var winner: Int
    /// Each class's share of the total weight (zeros for classes without votes); sums to 1.
    package var shares: [Double]

    /// Tallies the votes of `neighbors` (nearest first), whose classes are `labels[index]`.
    /// Returns nil when there are no neighbours.
    package init?(neighbors: NeighborList, labels: [Int32], classCount: Int, weighting: NeighborWeighting) {
        guard neighbors.count > 0 else { return nil }
        var weights = [Double](repeating: 0, count: classCount)
        var firstRank = [Int](repeating: .max, count: classCount)
        let exact = weighting == .inverseDistance && neighbors.distances.contains(0)
        for (rank, sample) in neighbors.indices.enumerated() {
            let label = Int(labels[Int(sample)])
            let distance = Double(neighbors.distances[rank])
            let weight: Double
            switch weighting {
            case .uniform: weight = 1
            case .inverseDistance: weight = exact ? (distance == 0 ? 1 : 0) : 1 / distance
            }
            guard weight > 0 else { continue }
            weights[label] += weight
            firstRank[label] = min(firstRank[label], rank)
        }
        var winner = 0
        for label in 1..<max(classCount, 1) {
            if weights[label] > weights[winner] || (weights[label] == weights[winner] && firstRank[label] < firstRank[winner]) {
                winner = label
            }
        }
        let total = weights.reduce(0, +)
        self.winner = winner
        shares = weights.map { $0 / total }
    }
}
