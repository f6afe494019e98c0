/// The Swift identifier of every feature of a model, as the generated classes name its property and
/// parameters: valid, and unique among everything the generated code declares or refers to.
///
/// A name that is already an identifier keeps it (`class` is written `` `class` ``); others are
/// sanitized (`input.1` → `input_1`, `\u{301}x` → `_\u{301}x`, `-` → `feature`). A name that
/// would take a member of the classes, a name the generated code uses (`model`, `provider`,
/// `OpenCoreML`, `<Class>Input`, ...) or another feature's identifier gets `_` appended until it is
/// free. Names that can be used as they are get theirs first, so a sanitized name never takes one
/// from them (`a.b` → `a_b_` next to `a_b`, `model` → `model__` next to `model_`). Image features
/// then get `set<Name>` (a method) and `<name>At` (an argument label), with `_` appended while one
/// is taken, so that they never change a feature's identifier. The same model always gives the
/// same identifiers.
struct FeatureIdentifiers {
    /// One feature's names in the generated code.
    struct Names: Equatable {
        /// The identifier, without backticks.
        let identifier: String
        /// The method that sets an image feature from a file: `set` and the capitalized identifier.
        fileprivate(set) var setter: String
        /// The argument label of an image feature given as a file: the identifier and `At`.
        fileprivate(set) var urlLabel: String
        /// How the property or parameter is written: the identifier, in backticks if a keyword.
        var spelling: String { SwiftIdentifier.spelling(of: identifier) }

        init(identifier: String) {
            self.identifier = identifier
            let capitalized = "set" + identifier.prefix(1).uppercased() + identifier.dropFirst()
            setter = SwiftIdentifier.isIdentifier(capitalized) ? capitalized : "set" + identifier
            urlLabel = identifier + "At"
        }
    }

    /// The feature's names, by feature name.
    private(set) var names: [String: Names] = [:]

    /// Identifiers for `features` (name, what it is for errors, whether it is an image; a name may
    /// repeat, for a feature that is both an input and an output), avoiding `reserved`.
    ///
    /// - Throws: `ModelToolsError` naming the feature when it has no name.
    init(features: [(name: String, kind: String, isImage: Bool)], reserved: Set<String>) throws {
        // Sets and counters throughout, so that a model of many features (or many names that
        // sanitize alike) costs time linear in their number.
        var taken = reserved
        var order: [String] = [], seen: Set<String> = []
        for feature in features {
            guard !feature.name.isEmpty else {
                throw ModelToolsError("\(feature.kind) with an empty name", "a feature needs a name to become a Swift property")
            }
            if seen.insert(feature.name).inserted { order.append(feature.name) }
        }
        // Names usable as they are come first, then the ones that must change, each group in the
        // model's order.
        let usable = Set(order.filter { Self.base(for: $0) == $0 && !taken.contains($0) })
        // Per sanitized name, how many `_` the last identifier made from it took: fewer are taken.
        var underscores: [String: Int] = [:]
        for name in order.filter(usable.contains) + order.filter({ !usable.contains($0) }) {
            let base = Self.base(for: name)
            var count = underscores[base, default: 0]
            var candidate = base + String(repeating: "_", count: count)
            while taken.contains(candidate) || SwiftIdentifier.unusableMemberNames.contains(candidate) {
                candidate += "_"
                count += 1
            }
            underscores[base] = count
            taken.insert(candidate)
            names[name] = Names(identifier: candidate)
        }
        // The images' method and argument label, after every identifier is placed.
        let images = Set(features.lazy.filter(\.isImage).map(\.name))
        for name in order where images.contains(name) {
            var result = names[name]!
            while taken.contains(result.setter) { result.setter += "_" }
            taken.insert(result.setter)
            while taken.contains(result.urlLabel) { result.urlLabel += "_" }
            taken.insert(result.urlLabel)
            names[name] = result
        }
    }

    /// The names of the feature called `name` (one of the features given to `init`).
    subscript(name: String) -> Names {
        names[name]!
    }

    /// The sanitized identifier before any `_` for uniqueness.
    private static func base(for name: String) -> String {
        let identifier = SwiftIdentifier.sanitized(name)
        // Nothing of the name survived (such as "-" or "_"): a word in its place.
        if identifier.isEmpty || identifier == "_" { return "feature" }
        if SwiftIdentifier.unusableMemberNames.contains(identifier) { return identifier + "_" }
        return identifier
    }
}
