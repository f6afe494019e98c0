/// Collects validation failures while walking a model, remembering where the walk is.
struct ValidationContext {
    private(set) var issues: [ModelValidationError] = []
    private var trail: [String] = []

    /// Records a failure at the current location, optionally inside `part`.
    mutating func fail(_ message: String, at part: String? = nil) {
        let location = (trail + (part.map { [$0] } ?? [])).joined(separator: " › ")
        issues.append(ModelValidationError(location: location, message: message))
    }

    /// Runs `body` with `part` appended to the location.
    mutating func within(_ part: String, _ body: (inout ValidationContext) -> Void) {
        trail.append(part)
        body(&self)
        trail.removeLast()
    }
}
