import Foundation

/// How a linear classifier's weight rows map to classes (Core ML's GLM class encodings).
package enum LinearClassEncoding: Sendable, Equatable {
    /// The first class is the reference: row k scores class k + 1 against it.
    case referenceClass
    /// Row k scores class k against all others (one row for two classes, scoring the second).
    case oneVsRest
}

/// A linear classifier's class probabilities from its scores.
package enum LinearClassifierProbabilities {
    /// The probabilities of `classCount` classes from one example's `scores` (one per weight row):
    ///
    /// - One score (two classes, either encoding): the second class gets link(s), the first 1 − link(s).
    /// - One-vs-rest, more classes: each class gets link(sₖ), then all are divided by their sum
    ///   (as scikit-learn's one-vs-rest logistic regression); when every link is 0, each class gets 1/K.
    /// - Reference class, more classes: the multinomial logit with the first class's score fixed
    ///   at 0, eˢᵏ / (1 + Σⱼ eˢʲ). Core ML's documentation does not spell this case out; it is the
    ///   standard reading of a reference-class GLM, and no converter writes it. The probit link
    ///   is only defined for two classes (validation refuses more).
    package static func probabilities(scores: UnsafeBufferPointer<Double>, classCount: Int, encoding: LinearClassEncoding,
                                      link: LinkFunction) -> [Double] {
        if scores.count == 1 {
            let p = link(scores[0])
            return classCount == 2 ? [1 - p, p] : [p]
        }
        switch encoding {
        case .oneVsRest:
            var probabilities = scores.map { link($0) }
            let sum = probabilities.reduce(0, +)
            if sum == 0 {
                return [Double](repeating: 1 / Double(probabilities.count), count: probabilities.count)
            }
            for index in probabilities.indices { probabilities[index] /= sum }
            return probabilities
        case .referenceClass:
            let largest = scores.reduce(0.0) { Swift.max($0, $1) }
            var exponentials = [exp(-largest)]
            for score in scores { exponentials.append(exp(score - largest)) }
            let sum = exponentials.reduce(0, +)
            return exponentials.map { $0 / sum }
        }
    }
}
