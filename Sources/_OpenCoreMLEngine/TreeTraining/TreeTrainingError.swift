/// A problem found while preparing data for, or training, decision trees: where (a feature, a
/// row, a parameter) and what is wrong — the engine's one error type under the name tree training
/// callers catch. OpenCreateML turns it into a `CreateMLError`.
package typealias TreeTrainingError = EngineError

/// `a · b`, or an error naming `what` when the product does not fit an `Int`: every large
/// buffer of tree training is sized through this.
func checkedProduct(_ a: Int, _ b: Int, _ what: String) throws -> Int {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    guard !overflow, product >= 0 else {
        throw TreeTrainingError(what, "\(a) × \(b) elements is more than this machine can address")
    }
    return product
}
