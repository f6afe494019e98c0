/// A one-vs-one support vector classifier in LIBSVM's layout.
///
/// The support vectors are grouped by class (`starts`); the coefficients are `classCount − 1`
/// rows with one value per support vector. For the pair (i, j), i < j, taken in the order
/// (0,1), (0,2), …, (0,k−1), (1,2), …, the decision value is
///
///     Σ_{v in class i} coef[j − 1][v]·K(x, v) + Σ_{v in class j} coef[i][v]·K(x, v) − ρ_pair
///
/// and a positive value is a vote for class i, any other for class j.
package struct SupportVectorClassification: Sendable {
    package let classCount: Int
    /// classCount + 1 offsets into the support vectors: class c owns starts[c]..<starts[c + 1].
    package let starts: [Int]
    /// (classCount − 1) rows × support-vector count, row-major.
    package let coefficients: [Double]
    /// One per class pair.
    package let rho: [Double]
    /// Platt's sigmoid parameters, one per class pair; empty when the model has none.
    package let probA: [Double]
    package let probB: [Double]

    package var pairCount: Int { classCount * (classCount - 1) / 2 }
    package var hasProbabilities: Bool { !probA.isEmpty }

    /// Refuses counts that do not fit together.
    package init(vectorsPerClass: [Int], coefficients: [[Double]], rho: [Double], probA: [Double], probB: [Double]) throws(EngineError) {
        let classCount = vectorsPerClass.count
        guard classCount >= 2 else { throw EngineError("", "a support vector classifier needs at least two classes; it has \(classCount)") }
        var starts = [0]
        for count in vectorsPerClass {
            guard count >= 0 else { throw EngineError("", "a class has a negative number of support vectors (\(count))") }
            let (next, overflow) = starts[starts.count - 1].addingReportingOverflow(count)
            guard !overflow else { throw EngineError("", "the support vector counts overflow") }
            starts.append(next)
        }
        let total = starts[classCount]
        guard coefficients.count == classCount - 1 else {
            throw EngineError("", "there are \(coefficients.count) coefficient rows for \(classCount) classes; there must be \(classCount - 1)")
        }
        if let bad = coefficients.firstIndex(where: { $0.count != total }) {
            throw EngineError("", "coefficient row \(bad) has \(coefficients[bad].count) values for \(total) support vectors")
        }
        let pairs = classCount * (classCount - 1) / 2
        guard rho.count == pairs else { throw EngineError("", "there are \(rho.count) rho values for \(pairs) class pairs") }
        guard probA.count == probB.count, probA.isEmpty || probA.count == pairs else {
            throw EngineError("", "probA and probB have \(probA.count) and \(probB.count) values; each needs one per class pair (\(pairs)) or none")
        }
        self.classCount = classCount
        self.starts = starts
        self.coefficients = coefficients.flatMap { $0 }
        self.rho = rho
        self.probA = probA
        self.probB = probB
    }

    /// The number of support vectors.
    package var vectorCount: Int { starts[classCount] }

    /// One decision value per class pair from one example's kernel values (one per support vector).
    package func decisionValues(kernelRow k: UnsafeBufferPointer<Double>) -> [Double] {
        precondition(k.count >= vectorCount, "one kernel value per support vector")
        let total = vectorCount
        var values: [Double] = []
        values.reserveCapacity(pairCount)
        var pair = 0
        for i in 0..<classCount {
            for j in (i + 1)..<classCount {
                var sum = 0.0
                let rowForI = (j - 1) * total
                for v in starts[i]..<starts[i + 1] { sum += coefficients[rowForI + v] * k[v] }
                let rowForJ = i * total
                for v in starts[j]..<starts[j + 1] { sum += coefficients[rowForJ + v] * k[v] }
                values.append(sum - rho[pair])
                pair += 1
            }
        }
        return values
    }

    /// Each class's one-vs-one votes.
    package func votes(decisionValues: [Double]) -> [Int] {
        var votes = [Int](repeating: 0, count: classCount)
        var pair = 0
        for i in 0..<classCount {
            for j in (i + 1)..<classCount {
                if decisionValues[pair] > 0 { votes[i] += 1 } else { votes[j] += 1 }
                pair += 1
            }
        }
        return votes
    }

    /// The class with the most votes; ties go to the lower class index (as LIBSVM).
    package func votedClass(decisionValues: [Double]) -> Int {
        votedClass(votes: votes(decisionValues: decisionValues))
    }

    /// The class with the most of `votes` (as ``votes(decisionValues:)`` counts them); ties go to
    /// the lower class index.
    package func votedClass(votes: [Int]) -> Int {
        var best = 0
        for index in votes.indices where votes[index] > votes[best] { best = index }
        return best
    }

    /// The class probabilities (nil without probA/probB): Platt's sigmoid per pair, bounded to
    /// [1e-7, 1 − 1e-7], coupled by ``ProbabilityCoupling/couple(pairwise:classCount:)``.
    package func probabilities(decisionValues: [Double]) -> [Double]? {
        guard hasProbabilities else { return nil }
        let k = classCount
        var pairwise = [Double](repeating: 0, count: k * k)
        var pair = 0
        let bound = ProbabilityCoupling.minimumProbability
        for i in 0..<k {
            for j in (i + 1)..<k {
                let p = ProbabilityCoupling.plattSigmoid(decisionValues[pair], a: probA[pair], b: probB[pair])
                let bounded = min(max(p, bound), 1 - bound)
                pairwise[i * k + j] = bounded
                pairwise[j * k + i] = 1 - bounded
                pair += 1
            }
        }
        return ProbabilityCoupling.couple(pairwise: pairwise, classCount: k)
    }
}
