import Foundation

/// Objects a client already holds, by id, kept from one exchange to the next so that an object the
/// SuperLink names again is not pulled again.
///
/// An object's id is the SHA-256 of its content (``FlowerObject``), so an object held under an id
/// is the object any message naming that id means. FedAvg sends each round's evaluation the
/// aggregated arrays and the next round's training the same arrays again: with the cache, the
/// second message costs its few small objects (message, record dictionary, config record), not
/// the model. What is kept is the objects of the last message received and of the last reply
/// pushed — a model's worth or two — so that memory does not grow with the rounds.
struct ObjectCache {
    private var held: [String: FlowerObject] = [:]

    /// The number of objects held.
    var count: Int { held.count }

    /// Whether the object `id` is held.
    func contains(_ id: String) -> Bool { held[id] != nil }

    /// Every object of `tree` (children before their parents): each held one from the cache, each
    /// other one from `fetch(id)`, whose bytes must hash to the id. Returns them by id, with how
    /// many were fetched.
    /// - Throws: ``FlowerClientError/protocolViolation(_:)`` for fetched bytes that are not the
    ///   object the id names (or a malformed object); whatever `fetch` throws (an object the
    ///   SuperLink does not have).
    func objects(of tree: Flower_Fleet_ObjectTree, fetch: (String) throws -> Data) throws -> (objects: [String: FlowerObject], fetched: Int) {
        var objects: [String: FlowerObject] = [:]
        var fetched = 0
        func visit(_ tree: Flower_Fleet_ObjectTree) throws {
            for child in tree.children { try visit(child) }
            let id = tree.objectID
            guard objects[id] == nil else { return }
            if let object = held[id] {
                objects[id] = object
            } else {
                objects[id] = try FlowerObject(content: try fetch(id), expectedID: id)
                fetched += 1
            }
        }
        try visit(tree)
        return (objects, fetched)
    }

    /// Keeps exactly `objects` (those of the message just received) from now on.
    mutating func keep(_ objects: [String: FlowerObject]) { held = objects }

    /// Keeps the objects of `node`'s subtree (a reply just pushed) too.
    mutating func add(_ node: ObjectNode) {
        held[node.id] = node.object
        for child in node.children { add(child) }
    }
}
