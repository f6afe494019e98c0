/// An OpenCoreML error that says what went wrong and where: every error the libraries throw
/// conforms, so a tool can show any of them as one line (its `description`, `location: message`).
///
/// ```swift
/// do { try model.write(to: url) } catch let error as LocatedError {
///     print("error:", error)   // e.g. "Out.mlmodel: the folder does not exist"
/// }
/// ```
public protocol LocatedError: Error, CustomStringConvertible {
    /// The file, folder, layer, input, parameter or example concerned; empty when the message names it.
    var location: String { get }
    /// What is wrong there, in words.
    var message: String { get }
}
