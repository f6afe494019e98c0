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
    ///
    /// `limits` bound what a message may take in: a tree of more nodes than
    /// ``ObjectLimits/objects`` is refused before anything is fetched, and objects are taken only
    /// while their bodies fit in ``ObjectLimits/bytes`` together. Every node's children must be the
    /// ones its object's head names (Flower makes the tree from the heads), so a tree that loops
    /// back on itself or lists other objects is refused.
    /// - Throws: ``FlowerClientError/protocolViolation(_:)`` for fetched bytes that are not the
    ///   object the id names (or a malformed object), a tree over a limit or not the heads' tree;
    ///   whatever `fetch` throws (an object the SuperLink does not have).
    func objects(of tree: Flower_Fleet_ObjectTree, limits: ObjectLimits = .none,
                 fetch: (String) throws -> Data) throws -> (objects: [String: FlowerObject], fetched: Int) {
        let nodes = Self.nodeCount(tree)
        guard nodes <= limits.objects else {
            throw FlowerClientError.protocolViolation("message \(tree.objectID): its object tree names \(nodes) objects; the client takes at most \(limits.objects) in one message (its limit, maximumObjects)")
        }
        var budget = ByteBudget(limits.bytes)
        var objects: [String: FlowerObject] = [:]
        var fetched = 0
        func visit(_ tree: Flower_Fleet_ObjectTree) throws {
            for child in tree.children { try visit(child) }
            let id = tree.objectID
            let object: FlowerObject
            if let known = objects[id] {
                object = known
            } else {
                if let held = held[id] {
                    object = held
                } else {
                    object = try FlowerObject(content: try fetch(id), expectedID: id)
                    fetched += 1
                }
                try budget.spend(object.body.count, on: "\(object.type) \(id)", total: limits.bytes)
                objects[id] = object
            }
            try Self.check(tree, against: object)
        }
        try visit(tree)
        return (objects, fetched)
    }

    /// The nodes of `tree`, repeats counted.
    static func nodeCount(_ tree: Flower_Fleet_ObjectTree) -> Int {
        tree.children.reduce(1) { $0 + nodeCount($1) }
    }

    /// Refuses a tree node whose children are not the ones its object's head names.
    private static func check(_ tree: Flower_Fleet_ObjectTree, against object: FlowerObject) throws {
        let listed = tree.children.map(\.objectID)
        guard listed.count == object.children.count, Set(listed) == Set(object.children) else {
            throw FlowerClientError.protocolViolation("\(object.type) \(tree.objectID): the object tree lists \(listed.count) children under it, its head names \(object.children.count) (a tree that loops back or names other objects)")
        }
    }

    /// Keeps exactly `objects` (those of the message just received) from now on.
    mutating func keep(_ objects: [String: FlowerObject]) { held = objects }

    /// Keeps the objects of `node`'s subtree (a reply just pushed) too.
    mutating func add(_ node: ObjectNode) {
        held[node.id] = node.object
        for child in node.children { add(child) }
    }
}
