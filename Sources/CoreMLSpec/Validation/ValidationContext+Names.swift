extension ValidationContext {
    /// Checks the name of the `index`th of a list of `kind`s (features, layers, functions): a name
    /// it must have (else `missing`) and must not share with one in `seen` (else `twice`); adds it
    /// to `seen`. Returns how failures inside it are placed: `kind 'name'`, or `kind #n` unnamed.
    mutating func checkName(_ name: String, of kind: String, index: Int, seen: inout Set<String>, missing: String, twice: String) -> String {
        let part = name.isEmpty ? "\(kind) #\(index + 1)" : "\(kind) '\(name)'"
        if name.isEmpty {
            fail(missing, at: part)
        } else if !seen.insert(name).inserted {
            fail(twice, at: part)
        }
        return part
    }
}
