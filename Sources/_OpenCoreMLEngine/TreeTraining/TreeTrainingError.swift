/// A problem found while preparing data for, or training, decision trees: where (a feature, a
/// row, a parameter) and what is wrong. OpenCreateML turns it into a `CreateMLError`.
package struct TreeTrainingError: Error, CustomStringConvertible, Sendable, Equatable {
    package var location: String
    package var message: String

    package init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    package var description: String { location.isEmpty ? message : "\(location): \(message)" }
}

/// `a · b`, or an error naming `what` when the product does not fit an `Int`: every large
/// buffer of tree training is sized through this.
func checkedProduct(_ a: Int, _ b: Int, _ what: String) throws -> Int {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    guard !overflow, product >= 0 else {
        throw TreeTrainingError(what, "\(a) × \(b) elements is more than this machine can address")
    }
    return product
}
