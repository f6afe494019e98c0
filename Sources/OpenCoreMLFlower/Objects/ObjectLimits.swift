import Foundation

/// How much of one instruction a client takes in from a SuperLink: the objects its tree may name
/// and the bytes its objects, and its arrays once assembled, may hold. Each is checked before
/// anything over it is pulled or allocated, so that a message claiming more than memory (a tree of
/// millions of objects, an array listing one chunk thousands of times) is an error naming what,
/// not an allocation. ``FlowerClient/Configuration`` sets them.
struct ObjectLimits: Equatable {
    /// The most nodes a message's object tree may have (repeats counted), and the most entries one
    /// record or array body may list.
    var objects: Int
    /// The most bytes a message's objects may hold together, and again its arrays once assembled.
    var bytes: Int

    /// No limit (for tests of the encodings).
    static let none = ObjectLimits(objects: .max, bytes: .max)

    /// Throws when `count` entries of `what` are over ``objects``.
    func checkEntries(_ count: Int, of what: @autoclosure () -> String) throws {
        guard count <= objects else {
            throw FlowerClientError.protocolViolation("\(what()) lists \(count) entries; the client takes at most \(objects) (its limit, maximumObjects)")
        }
    }
}

/// The bytes an instruction still may take while it is assembled (``ObjectLimits/bytes`` less
/// what its objects or arrays already hold).
struct ByteBudget {
    private(set) var left: Int

    init(_ bytes: Int) { left = bytes }

    /// Takes `count` bytes for `what`, or throws naming it when fewer are left.
    mutating func spend(_ count: Int, on what: @autoclosure () -> String, total limit: Int) throws {
        guard count <= left else {
            throw FlowerClientError.protocolViolation("\(what()) would take the instruction past \(limit) bytes; the client takes at most that (its limit, maximumMessageBytes)")
        }
        left -= count
    }
}
