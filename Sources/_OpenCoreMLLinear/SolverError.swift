/// A bad hyperparameter or bad data given to a solver: what is wrong and where (a parameter, a row).
package struct SolverError: Error, CustomStringConvertible, Sendable {
    package var location: String
    package var message: String

    package init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    package var description: String { location.isEmpty ? message : "\(location): \(message)" }
}
