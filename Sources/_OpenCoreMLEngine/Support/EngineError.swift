/// The engine's one error: a problem found while compiling a model into a classic network or an
/// ML Program plan, or while feeding it data or running it — the place (a layer, blob, feature,
/// loss, or an ML Program's operation and input) and what is wrong. A reservation past the model's
/// memory limit is one too (``memoryLimit(place:requested:inUse:limit:)``).
package struct EngineError: Error, CustomStringConvertible, Sendable {
    /// Where: a layer, blob, feature or loss name; empty when `message` names its own place (the
    /// ML Program's errors begin with the operation they come from).
    package var location: String
    package var message: String
    /// The feature (column) index and row of a table value the error is about, when it is about one
    /// (tree training's infinite value): `location` says "feature f, row r", and a caller that
    /// knows the columns' names can say which.
    package var tableCell: (feature: Int, row: Int)?

    package init(_ location: String, _ message: String, tableCell: (feature: Int, row: Int)? = nil) {
        self.location = location
        self.message = message
        self.tableCell = tableCell
    }

    /// An error whose message names its own place.
    package init(_ description: String) { self.init("", description) }

    /// A reservation of `requested` bytes for `place` that would take a model holding `inUse`
    /// bytes past its memory limit of `limit` bytes.
    package static func memoryLimit(place: String, requested: Int, inUse: Int, limit: Int) -> EngineError {
        EngineError(place, "needs \(formatBytes(requested)) more while the model already holds \(formatBytes(inUse)); "
            + "that passes the memory limit of \(formatBytes(limit))")
    }

    package var description: String { location.isEmpty ? message : "\(location): \(message)" }
}
