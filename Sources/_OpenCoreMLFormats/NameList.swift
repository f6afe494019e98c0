/// Names listed in an error message: all of them when there are few, else the first ones and how
/// many more, so that a table of 200,000 columns gives a one-line message, not megabytes.
package func nameList(_ names: some Collection<String>, quoted: Bool = false, limit: Int = 20) -> String {
    let shown = names.prefix(limit).map { quoted ? "\"\($0)\"" : $0 }.joined(separator: ", ")
    return names.count > limit ? shown + ", … (\(names.count) in all)" : shown
}
