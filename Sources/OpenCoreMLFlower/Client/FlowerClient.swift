import Foundation
import OpenCoreML

/// A Flower SuperNode that trains an updatable OpenCoreML model on local data: it joins a
/// SuperLink's Fleet API (flwr 1.40 and later, HTTP), and for each instruction of a Flower app —
/// FedAvg's `train` and `evaluate` from the Message API — sets the received arrays into the model,
/// trains with `MLUpdateTask`'s engine or evaluates, and replies with the updated arrays and metrics.
///
/// ```swift
/// let client = try FlowerClient(model: model, trainingData: train.batchProvider(for: model),
///                               testData: test.batchProvider(for: model),   // OpenCreateML's LabeledDataset
///                               configuration: .init(superlink: "127.0.0.1:8000"))
/// try client.run { event in print(event) }   // until stop() or the SuperLink goes away for good
/// ```
///
/// Every weight blob training changes is exchanged — weights and biases of every updatable layer,
/// see ``MLModel/updatableWeightKeys`` — named `<layer>.<blob>`. A `train` instruction's config
/// record may set `local-epochs` (or `epochs`), `learning-rate` (or `lr`) and `batch-size`; the
/// reply holds one ArrayRecord `arrays` and a MetricRecord `metrics` with `num-examples`, `loss`
/// and `accuracy` (the last local epoch's). `evaluate` sets the arrays, does not train, and replies
/// with the test data's `num-examples`, `loss` (mean cross-entropy) and `accuracy`. An instruction
/// the client cannot carry out (arrays that do not fit the model, an unknown type) gets an error
/// reply, as a failing Python ClientApp would, and the client goes on.
///
/// An instruction may also carry the arrays packed into one (``ModelArrays/packedName``, the
/// Flower app's default): the reply then packs them too. Objects are kept by content id from the
/// last message received and the last reply pushed (``ObjectCache``): FedAvg's next train
/// instruction carries the arrays of the evaluation before it, so only its few small objects are
/// pulled, and the model those arrays were set into is used as it is.
///
/// The SuperLink going away is not fatal: the client retries with backoff (1 s doubling to 30 s)
/// and registers again when the SuperLink no longer knows it, until it has been unreachable — or
/// answering what cannot be used (an error status, an answer over
/// ``Configuration/maximumAnswerBytes`` or not Flower's) — for ``Configuration/maximumWait``
/// seconds. An instruction whose objects cannot be taken in (over ``Configuration/maximumObjects``
/// or ``Configuration/maximumMessageBytes``, a tree that loops, malformed objects) gets an error
/// reply like one that cannot be carried out; the model stays as it was.
public final class FlowerClient: @unchecked Sendable {
    /// How to reach the SuperLink and how patient to be.
    public struct Configuration: Sendable {
        /// `HOST:PORT` of the SuperLink's Fleet API (`flower-superlink --host --port`, 127.0.0.1:8000 by default).
        public var superlink: String
        /// HTTP instead of HTTPS (`flower-superlink --insecure`).
        public var insecure: Bool
        /// Seconds between heartbeats the SuperLink is told to expect (Flower's default 30).
        public var heartbeatInterval: Double
        /// Seconds between polls for instructions.
        public var pollInterval: Double
        /// Seconds of the SuperLink not answering after which ``FlowerClient/run(_:)`` gives up.
        public var maximumWait: Double
        /// Seconds without any instruction after which ``FlowerClient/run(_:)`` returns (nil: never).
        public var maximumIdle: Double?
        /// Seconds to wait for any byte of an answer: an answer that stops arriving for this long
        /// is an error naming the SuperLink's address (and is retried).
        public var requestTimeout: Double
        /// The most bytes one answer of the SuperLink may hold (64 MiB by default; Flower's array
        /// chunks are 5 MiB). An answer announcing more is refused at its head, one going on past it
        /// is cut off there.
        public var maximumAnswerBytes: Int
        /// The most bytes an instruction's objects may hold together, and its arrays again once
        /// assembled; nil: 64 MiB plus 16 bytes for each value the model exchanges (its arrays as
        /// float64, twice over). Checked before pulling or assembling more.
        public var maximumMessageBytes: Int?
        /// The most objects an instruction's object tree may name (10 000 by default; FedAvg's
        /// messages name a few per array), and the most entries one record may list.
        public var maximumObjects: Int
        /// A file to append the timestamped phases of every exchange to, one JSON object a line
        /// (pulling, unpacking, training, packing, pushing; see the docc article "Running a
        /// federation"); nil: none.
        public var profilePath: String?

        public init(superlink: String, insecure: Bool = true, heartbeatInterval: Double = 30, pollInterval: Double = 1,
                    maximumWait: Double = 600, maximumIdle: Double? = nil, requestTimeout: Double = 60, profilePath: String? = nil,
                    maximumAnswerBytes: Int = 64 << 20, maximumMessageBytes: Int? = nil, maximumObjects: Int = 10_000) {
            self.profilePath = profilePath
            self.maximumAnswerBytes = maximumAnswerBytes
            self.maximumMessageBytes = maximumMessageBytes
            self.maximumObjects = maximumObjects
            self.superlink = superlink
            self.insecure = insecure
            self.heartbeatInterval = heartbeatInterval
            self.pollInterval = pollInterval
            self.maximumWait = maximumWait
            self.maximumIdle = maximumIdle
            self.requestTimeout = requestTimeout
        }
    }

    /// What the client reports while it runs.
    public enum Event: Sendable, CustomStringConvertible {
        /// Registered and activated as node `node`.
        case joined(node: UInt64)
        /// Local training for an instruction finished and the reply was sent. `round` is the
        /// message's group (FedAvg's round); `trainingSeconds` the local epochs,
        /// `communicationSeconds` pulling, unpacking, packing and pushing.
        case trained(round: String, examples: Int, loss: Double?, accuracy: Double?, trainingSeconds: Double, communicationSeconds: Double)
        /// An evaluation finished and the reply was sent.
        case evaluated(round: String, examples: Int, loss: Double?, accuracy: Double, seconds: Double, communicationSeconds: Double)
        /// An instruction could not be carried out; an error reply was sent.
        case failed(round: String, type: String, reason: String)
        /// The SuperLink did not answer; the next try is in `delay` seconds.
        case retrying(reason: String, delay: Double)
        /// Deactivated and unregistered.
        case left

        public var description: String {
            func percent(_ value: Double?) -> String { value.map { String(format: "%.2f %%", 100 * $0) } ?? "–" }
            func number(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "–" }
            switch self {
            case .joined(let node): return "joined as node \(node)"
            case .trained(let round, let examples, let loss, let accuracy, let training, let communication):
                return "round \(round): trained on \(examples) examples, loss \(number(loss)), accuracy \(percent(accuracy)), "
                    + String(format: "%.2f s training + %.2f s Flower", training, communication)
            case .evaluated(let round, let examples, let loss, let accuracy, let seconds, let communication):
                return "round \(round): evaluated on \(examples) examples, loss \(number(loss)), accuracy \(percent(accuracy)), "
                    + String(format: "%.2f s + %.2f s Flower", seconds, communication)
            case .failed(let round, let type, let reason): return "round \(round): \(type) failed, replied with the error: \(reason)"
            case .retrying(let reason, let delay): return "\(reason); retrying in \(String(format: "%.0f", delay)) s"
            case .left: return "left the federation"
            }
        }
    }

    /// The model as it is now: the latest arrays received or trained.
    public private(set) var model: MLModel
    private let training: MLBatchProvider
    private let testing: MLBatchProvider
    private let trainingCount: Int
    private let configuration: Configuration
    private let transport: FleetTransport
    private let state = NodeState()
    private let profile: ClientProfile?
    /// Objects of the last message received and the last reply pushed, by id.
    private var cache = ObjectCache()
    /// The arrays last set into ``model`` from an instruction (nil once training changed it): an
    /// instruction carrying the same arrays again (FedAvg's next round after its evaluation) uses
    /// the model as it is.
    private var appliedArrays: [(String, FlowerArray)]?
    /// The app's packed layout digest once it was found to be this model's (it never changes in a run).
    private var layoutChecked: String?
    /// The shapes of the exchanged arrays (fixed by the model's layers).
    private let shapes: [[Int]]
    /// How much of one instruction the client takes in.
    private let limits: ObjectLimits

    /// A client for `model` (updatable) that trains on `trainingData` and evaluates on `testData`:
    /// training inputs as `MLUpdateTask` takes them, the model's input and its label feature (the
    /// loss target's class index, or a classifier's label). OpenCreateML's
    /// `LabeledDataset.batchProvider(for:classNames:)` makes them from a data set, and training then
    /// reads its values in place.
    ///
    /// `evaluate` replies with the accuracy of the class with the highest probability (a
    /// classifier's probabilities output, else the network's first output) and the mean
    /// cross-entropy.
    /// - Throws: When the model is not updatable or exchanges no arrays.
    public init(model: MLModel, trainingData: MLBatchProvider, testData: MLBatchProvider, configuration: Configuration) throws {
        guard model.modelDescription.isUpdatable else {
            throw FlowerClientError.badInstruction("the model is not updatable (make it so with `opencoreml make-updatable`)")
        }
        guard !model.updatableWeightKeys.isEmpty else {
            throw FlowerClientError.badInstruction("the model has no updatable layer with weights to exchange")
        }
        self.model = model
        shapes = try ModelArrays.shapes(of: model)
        let values = shapes.reduce(0) { $0 + $1.reduce(1, *) }
        limits = ObjectLimits(objects: configuration.maximumObjects, bytes: configuration.maximumMessageBytes ?? (64 << 20) + 16 * values)
        training = trainingData
        testing = testData
        trainingCount = trainingData.count
        self.configuration = configuration
        transport = try FleetTransport(address: configuration.superlink, secure: !configuration.insecure, identity: NodeIdentity(),
                                       timeout: configuration.requestTimeout, maximumAnswerBytes: configuration.maximumAnswerBytes)
        profile = try configuration.profilePath.map { try ClientProfile(path: $0) }
    }

    /// Asks ``run(_:)`` to leave after the instruction in hand (or at once when there is none).
    public func stop() { state.stopRequested = true }

    /// For tests of a node that dies: after pulling this many instructions, ``run(_:)`` returns at
    /// once — no reply, no more heartbeats, no goodbye — as if the process were killed.
    package var crashAfterInstructions: Int?
    private var instructionsPulled = 0
    /// Whether ``crashAfterInstructions`` has ended ``run(_:)``.
    package var isCrashed: Bool { state.crashed }

    /// Joins the SuperLink and carries out instructions until ``stop()`` is called,
    /// ``Configuration/maximumIdle`` passes without one, or the SuperLink stays away (or answers
    /// what cannot be used) longer than ``Configuration/maximumWait``; then deactivates and
    /// unregisters.
    /// - Throws: ``FlowerClientError/superlinkGone(address:seconds:lastError:)``, or an error the
    ///   SuperLink gives when joining.
    public func run(_ events: @escaping @Sendable (Event) -> Void = { _ in }) throws {
        var lastInstruction = Date()
        // Since when every exchange has failed: only a poll that went through ends the streak
        // (a node that is still joined never joins again, so joining cannot be what ends it).
        var failingSince: Date?
        var delay = 1.0
        defer { if !state.crashed { leave(events) } }
        while !state.stopRequested {
            do {
                if state.node == nil {
                    try join()
                    events(.joined(node: state.node!))
                }
                let instructed = try pollOnce(events)
                failingSince = nil
                delay = 1
                if instructed {
                    lastInstruction = Date()
                } else {
                    if let idle = configuration.maximumIdle, Date().timeIntervalSince(lastInstruction) > idle { return }
                    sleep(configuration.pollInterval)
                }
            } catch let error as FlowerClientError {
                switch error {
                case .rejected(_, 401, _) where state.node != nil:
                    // The SuperLink no longer knows this node (it restarted, or dropped us): join again.
                    events(.retrying(reason: "the SuperLink no longer knows node \(state.node!)", delay: 0))
                    state.node = nil
                case .rejected where state.node == nil:
                    throw error
                default:
                    // Unreachable, timed out, or answering what cannot be used (an error status, an
                    // answer over the size limit or not Flower's): tried again until it has lasted
                    // maximumWait.
                    let since = failingSince ?? Date()
                    failingSince = since
                    let waited = Date().timeIntervalSince(since)
                    if waited >= configuration.maximumWait {
                        let last: String
                        if case .unreachable(_, let reason) = error { last = reason } else { last = error.description }
                        throw FlowerClientError.superlinkGone(address: configuration.superlink, seconds: waited, lastError: last)
                    }
                    events(.retrying(reason: error.description, delay: delay))
                    sleep(delay)
                    delay = min(delay * 2, 30)
                }
            }
        }
    }

    // MARK: Joining and leaving

    private func join() throws {
        let publicKey = transport.identity.publicKeyPEM
        var register = Flower_Fleet_RegisterNodeFleetRequest()
        register.publicKey = publicKey
        do {
            let _: Flower_Fleet_RegisterNodeFleetResponse = try transport.call(.registerNode, register)
        } catch FlowerClientError.rejected(_, 409, _) {
            // Already registered (after a lost answer): activating is what matters.
        }
        var activate = Flower_Fleet_ActivateNodeRequest()
        activate.publicKey = publicKey
        activate.heartbeatInterval = configuration.heartbeatInterval
        let response: Flower_Fleet_ActivateNodeResponse = try transport.call(.activateNode, activate)
        state.node = response.nodeID
        startHeartbeat(node: response.nodeID)
    }

    /// Heartbeats on their own thread while `node` is the current node, so that long local
    /// training does not make the SuperLink think the node is gone.
    private func startHeartbeat(node: UInt64) {
        let interval = configuration.heartbeatInterval
        let thread = Thread { [weak self] in
            while let self, !self.state.stopRequested, !self.state.crashed, self.state.node == node {
                Thread.sleep(forTimeInterval: max(1, interval * 0.8))
                guard self.state.node == node else { return }
                var request = Flower_Fleet_SendNodeHeartbeatRequest()
                request.node.nodeID = node
                request.heartbeatInterval = interval
                _ = try? self.transport.call(.sendNodeHeartbeat, request, as: Flower_Fleet_SendNodeHeartbeatResponse.self, timeout: 5)
            }
        }
        thread.name = "Flower heartbeat"
        thread.start()
    }

    private func leave(_ events: (Event) -> Void) {
        guard let node = state.node else { return }
        state.node = nil
        var deactivate = Flower_Fleet_DeactivateNodeRequest()
        deactivate.nodeID = node
        _ = try? transport.call(.deactivateNode, deactivate, as: Flower_Fleet_DeactivateNodeResponse.self, timeout: min(5, configuration.requestTimeout))
        var unregister = Flower_Fleet_UnregisterNodeFleetRequest()
        unregister.nodeID = node
        _ = try? transport.call(.unregisterNode, unregister, as: Flower_Fleet_UnregisterNodeFleetResponse.self, timeout: min(5, configuration.requestTimeout))
        events(.left)
    }

    // MARK: Instructions

    /// The round an instruction belongs to, for events and the profile: the config record's
    /// `server-round` when it is a whole number a `Int` holds, else the message's group. The value comes
    /// from the server, so NaN, infinities, fractions and out-of-range numbers fall back, never trap.
    static func roundLabel(_ serverRound: Double?, groupID: String) -> String {
        guard let serverRound, let whole = Int(exactly: serverRound) else { return groupID }
        return String(whole)
    }

    /// Pulls one instruction, if there is one, carries it out and pushes the reply; returns whether
    /// there was one.
    private func pollOnce(_ events: (Event) -> Void) throws -> Bool {
        guard let node = state.node else { return false }
        var pull = Flower_Fleet_PullMessagesRequest()
        pull.node.nodeID = node
        let polled = Date()
        let response: Flower_Fleet_PullMessagesResponse = try transport.call(.pullMessages, pull)
        guard let delivered = response.messagesList.first else { return false }
        guard let tree = response.messageObjectTrees.first else {
            throw FlowerClientError.protocolViolation("a message came without its object tree")
        }
        let started = Date()
        let metadata = delivered.metadata
        let profile = self.profile
        let labels: [(String, PythonJSON.Value)] = [("type", .string(metadata.messageType)), ("group", .string(metadata.groupID))]
        let record: @Sendable (String, [(String, PythonJSON.Value)]) -> Void = { event, fields in profile?.record(event, labels + fields) }
        func note(_ event: String, _ fields: [(String, PythonJSON.Value)] = []) { record(event, fields) }
        profile?.record("poll", at: polled, [("type", .string(metadata.messageType)), ("group", .string(metadata.groupID))])
        note("message")
        // An instruction that cannot be taken in (over a limit, malformed, a tree that loops) gets
        // an error reply below; the SuperLink not answering is the run loop's to retry.
        let arrived: Result<FlowerMessage, FlowerClientError>
        // Confirming the receipt runs while the instruction is carried out; its outcome is waited
        // for before the reply is pushed.
        var confirmation: BackgroundCall?
        do {
            let (message, confirming) = try receive(tree: tree, metadata: metadata, node: node, note: record)
            arrived = .success(message)
            confirmation = confirming
        } catch let error as FlowerClientError {
            switch error {
            case .unreachable, .rejected: throw error
            default: arrived = .failure(error)
            }
        }
        var received = Date().timeIntervalSince(started)
        instructionsPulled += 1
        if let crashAfterInstructions, instructionsPulled >= crashAfterInstructions {
            try? confirmation?.wait()
            state.crashed = true
            state.stopRequested = true
            return true
        }

        // FedAvg puts the round in the config record (`server-round`); other apps may use the group.
        let round = Self.roundLabel((try? arrived.get())?.content?.config["server-round"]?.number, groupID: metadata.groupID)
        var reply: FlowerMessage
        var report: Event
        do {
            let message = try arrived.get()
            guard let content = message.content else {
                throw FlowerClientError.badInstruction("the instruction carries an error, not content")
            }
            guard ["train", "evaluate"].contains(metadata.messageType) else {
                throw FlowerClientError.badInstruction("message type '\(metadata.messageType)' is not one this client carries out (train, evaluate)")
            }
            let record = try content.singleArrayRecord()
            if let (_, arrays) = record {
                let applying = Date()
                let layout: String?
                switch content.config[ModelArrays.layoutKey] {
                case nil: layout = nil
                case .string(let value)?: layout = value
                case let other?: throw FlowerClientError.badInstruction("config '\(ModelArrays.layoutKey)' is \(other); expected a string")
                }
                let reused = try apply(arrays, layout: layout)
                received += Date().timeIntervalSince(applying)
                note("applied", [("reused", .integer(reused ? 1 : 0))])
            }
            switch metadata.messageType {
            case "train":
                guard let (recordName, arrays) = record else {
                    throw FlowerClientError.badInstruction("a train instruction must carry the model's arrays (no ArrayRecord in it)")
                }
                let outcome = try train(content, replyingIn: recordName, packed: ModelArrays.isPacked(arrays))
                reply = .reply(to: metadata, content: outcome.content, now: Date().timeIntervalSince1970)
                report = .trained(round: round, examples: trainingCount, loss: outcome.loss, accuracy: outcome.accuracy,
                                  trainingSeconds: outcome.seconds, communicationSeconds: received)
            case "evaluate":
                let outcome = try evaluate(content)
                reply = .reply(to: metadata, content: outcome.content, now: Date().timeIntervalSince1970)
                report = .evaluated(round: round, examples: outcome.examples, loss: outcome.loss, accuracy: outcome.accuracy ?? 0,
                                    seconds: outcome.seconds, communicationSeconds: received)
            default:
                throw FlowerClientError.badInstruction("message type '\(metadata.messageType)' is not one this client carries out (train, evaluate)")
            }
        } catch {
            var failure = Flower_Fleet_Error()
            failure.code = 2  // Flower's CLIENT_APP_RAISED_EXCEPTION
            failure.reason = "OpenCoreML client: \(error)"
            reply = .reply(to: metadata, content: nil, error: failure, now: Date().timeIntervalSince1970)
            report = .failed(round: round, type: metadata.messageType, reason: "\(error)")
        }
        note("done")
        do {
            try confirmation?.wait()
        } catch let error as FlowerClientError {
            switch error {
            case .unreachable, .rejected: throw error
            default:
                // An answer to the confirmation that is not Flower's: the work is not sent.
                var failure = Flower_Fleet_Error()
                failure.code = 2
                failure.reason = "OpenCoreML client: \(error)"
                reply = .reply(to: metadata, content: nil, error: failure, now: Date().timeIntervalSince1970)
                report = .failed(round: round, type: metadata.messageType, reason: "\(error)")
            }
        }
        guard reply.metadata.ttl > 0 else {
            events(.failed(round: round, type: metadata.messageType, reason: "the instruction expired before the reply was ready"))
            return true
        }
        let pushStarted = Date()
        let pushedObjects = try push(reply, node: node) { note("packed") }
        let pushed = Date().timeIntervalSince(pushStarted)
        note("pushed", [("objects", .integer(pushedObjects))])
        switch report {
        case .trained(let round, let examples, let loss, let accuracy, let seconds, let communication):
            report = .trained(round: round, examples: examples, loss: loss, accuracy: accuracy, trainingSeconds: seconds, communicationSeconds: communication + pushed)
        case .evaluated(let round, let examples, let loss, let accuracy, let seconds, let communication):
            report = .evaluated(round: round, examples: examples, loss: loss, accuracy: accuracy, seconds: seconds, communicationSeconds: communication + pushed)
        default: break
        }
        events(report)
        return true
    }

    /// The instruction `metadata` names, rebuilt from the objects of `tree` (those not held are
    /// pulled) within ``limits``, and its receipt being confirmed (on its own thread: nothing the
    /// client does next waits for it, and the SuperLink answers it with nothing).
    private func receive(tree: Flower_Fleet_ObjectTree, metadata: MessageMetadata, node: UInt64,
                         note: @escaping @Sendable (String, [(String, PythonJSON.Value)]) -> Void) throws -> (FlowerMessage, BackgroundCall) {
        var pulled = 0
        let (objects, fetched) = try cache.objects(of: tree, limits: limits) { id in
            // No answer may take the objects past the message's limit (a little over it for the
            // answer's own fields: the object's size is what the cache refuses).
            let left = limits.bytes - pulled
            let content = try pullObject(id, node: node, run: metadata.runID, maximumBytes: left > Int.max - 4096 ? Int.max : left + 4096)
            pulled += content.count
            return content
        }
        note("objects", [("fetched", .integer(fetched)), ("cached", .integer(objects.count - fetched))])
        var confirm = Flower_Fleet_ConfirmMessageReceivedRequest()
        confirm.node.nodeID = node
        confirm.runID = metadata.runID
        confirm.messageObjectID = metadata.messageID
        let transport = self.transport
        let confirmation = BackgroundCall("Flower confirm") { [confirm] in
            let _: Flower_Fleet_ConfirmMessageReceivedResponse = try transport.call(.confirmMessageReceived, confirm)
            note("confirmed", [("background", .integer(1))])
        }
        do {
            let message = try ObjectGraph.inflateMessage(tree: tree, objects: objects, metadata: metadata, limits: limits)
            cache.keep(objects)
            note("inflated", [])
            return (message, confirmation)
        } catch {
            // Not carried out: the error reply follows the confirmation as before.
            try confirmation.wait()
            throw error
        }
    }

    /// The content of object `id` of a message, its answer at most `maximumBytes`; an object the
    /// SuperLink has not received yet (the ServerApp lists a message before it has pushed its
    /// objects) is asked for again after 0.01 s, doubling up to 0.2 s.
    private func pullObject(_ id: String, node: UInt64, run: UInt64, maximumBytes: Int) throws -> Data {
        var request = Flower_Fleet_PullObjectRequest()
        request.node.nodeID = node
        request.runID = run
        request.objectID = id
        var wait = 0.01
        let deadline = Date().addingTimeInterval(configuration.requestTimeout)
        while true {
            let response: Flower_Fleet_PullObjectResponse = try transport.call(.pullObject, request, maximumBytes: maximumBytes)
            guard response.objectFound else {
                throw FlowerClientError.protocolViolation("the SuperLink has no object \(id) of the message it sent")
            }
            if response.objectAvailable { return response.objectContent }
            guard Date() < deadline else {
                throw FlowerClientError.protocolViolation("object \(id) did not become available within \(Int(configuration.requestTimeout)) s")
            }
            sleep(wait)
            wait = min(wait * 2, 0.2)
        }
    }

    /// Sends `reply`: the message (content travels as objects) and its object tree, then every
    /// object the SuperLink asks for (it asks only for those it does not hold), ``transfers`` at a
    /// time; returns how many objects were sent. `packed` is called once the reply is deflated.
    private func push(_ reply: FlowerMessage, node: UInt64, packed: () -> Void) throws -> Int {
        let root = try ObjectGraph.deflate(reply)
        packed()
        var request = Flower_Fleet_PushMessagesRequest()
        request.node.nodeID = node
        request.messagesList = [reply.pushed(id: root.id)]
        request.messageObjectTrees = [root.tree]
        let response: Flower_Fleet_PushMessagesResponse = try transport.call(.pushMessages, request)
        let wanted = Set(response.objectsToPush)
        let objects = root.postOrder.filter { wanted.contains($0.id) }
        let transport = self.transport, run = reply.metadata.runID, session = response.sessionID
        // The SuperLink registered every object with PushMessages, so they may arrive in any order.
        try concurrently(objects, width: Self.transfers) { object in
            var push = Flower_Fleet_PushObjectRequest()
            push.node.nodeID = node
            push.runID = run
            push.objectID = object.id
            push.objectContent = object.content
            push.sessionID = session
            let stored: Flower_Fleet_PushObjectResponse = try transport.call(.pushObject, push)
            guard stored.stored else {
                throw FlowerClientError.protocolViolation("the SuperLink did not store object \(object.id) of the reply")
            }
        }
        cache.add(root)
        return objects.count
    }

    /// Objects pushed at once (flwr's own SuperNode pushes and pulls two at a time,
    /// `FLWR_PRIVATE_MAX_CONCURRENT_OBJ_PUSHES`).
    static let transfers = 2

    // MARK: Training and evaluation

    private struct Outcome {
        var content: RecordDict
        var examples: Int
        var loss: Double?
        var accuracy: Double?
        var seconds: Double
    }

    /// Sets `arrays` into ``model`` unless they are the arrays it already holds; returns whether
    /// the model was used as it was.
    /// `layout`: the app's packed layout digest, checked for packed arrays even when they are reused.
    /// The reuse check holds because training replaces ``model`` (``MLModel/updated(with:parameters:)``
    /// returns a new model, never changes the one it is called on) and clears ``appliedArrays``.
    private func apply(_ arrays: [(String, FlowerArray)], layout: String? = nil) throws -> Bool {
        if ModelArrays.isPacked(arrays), let layout, layoutChecked != layout {
            try ModelArrays.checkLayout(layout, of: model, shapes: shapes)
            layoutChecked = layout
        }
        if let appliedArrays, appliedArrays.map(\.0) == arrays.map(\.0), appliedArrays.map(\.1) == arrays.map(\.1) { return true }
        appliedArrays = nil
        model = ModelArrays.isPacked(arrays) ? try ModelArrays.applying(packed: arrays[0].1, to: model, shapes: shapes) : try ModelArrays.applying(arrays, to: model)
        appliedArrays = arrays
        return false
    }

    /// Trains ``model`` (its arrays already set from `content`'s array record, `recordName`) and
    /// replies with its arrays in that record, packed when they came packed.
    private func train(_ content: RecordDict, replyingIn recordName: String, packed: Bool) throws -> Outcome {
        let config = content.config
        var parameters: [MLParameterKey: Any] = [:]
        // The config keys and values the parameters came from, for an error naming them as the app sent them.
        var asked: [String] = []
        func key(_ keys: [String]) -> String { keys.first { config[$0] != nil } ?? keys[0] }
        if let epochs = try Self.whole(config, ["local-epochs", "epochs"], atLeast: 1) {
            parameters[.epochs] = epochs
            asked.append("\(key(["local-epochs", "epochs"])) \(epochs)")
        }
        if let batch = try Self.whole(config, ["batch-size"], atLeast: 0), batch > 0 {
            parameters[.miniBatchSize] = batch
            asked.append("batch-size \(batch)")
        }
        if let rate = try Self.number(config, ["learning-rate", "lr"]) {
            guard rate > 0, rate.isFinite else { throw FlowerClientError.badInstruction("config \(key(["learning-rate", "lr"])) is \(rate); it must be a positive number") }
            parameters[.learningRate] = rate
            asked.append("\(key(["learning-rate", "lr"])) \(rate)")
        }
        let started = Date()
        let result: MLUpdateResult
        do {
            result = try model.updated(with: training, parameters: parameters)
        } catch {
            throw FlowerClientError.badInstruction("local training with \(asked.isEmpty ? "the model's settings" : "config " + asked.joined(separator: ", ")) failed: \(error)")
        }
        let seconds = Date().timeIntervalSince(started)
        model = result.model
        appliedArrays = nil
        var metrics: [(String, MetricValue)] = [("num-examples", .int(Int64(trainingCount)))]
        if let loss = result.epochs.last?.loss { metrics.append(("loss", .double(loss))) }
        if let accuracy = result.epochs.last?.accuracy { metrics.append(("accuracy", .double(accuracy))) }
        let arrays = packed ? [(ModelArrays.packedName, try ModelArrays.packed(of: model))] : try ModelArrays.arrays(of: model)
        let reply = RecordDict([(recordName, .arrays(arrays)), ("metrics", .metrics(metrics))])
        return Outcome(content: reply, examples: trainingCount, loss: result.epochs.last?.loss, accuracy: result.epochs.last?.accuracy, seconds: seconds)
    }

    /// Evaluates ``model`` (its arrays already set from `content`, when it carries some).
    private func evaluate(_ content: RecordDict) throws -> Outcome {
        let started = Date()
        let metrics = try LocalEvaluation(model: model, on: testing)
        var values: [(String, MetricValue)] = [("num-examples", .int(Int64(metrics.examples))), ("accuracy", .double(metrics.accuracy))]
        if let loss = metrics.loss { values.append(("loss", .double(loss))) }
        return Outcome(content: RecordDict([("metrics", .metrics(values))]), examples: metrics.examples,
                       loss: metrics.loss, accuracy: metrics.accuracy, seconds: Date().timeIntervalSince(started))
    }

    /// The first of `keys` in `config` as a whole number ≥ `minimum`, or nil when none is there.
    private static func whole(_ config: [String: ConfigValue], _ keys: [String], atLeast minimum: Int) throws -> Int? {
        guard let key = keys.first(where: { config[$0] != nil }), let value = config[key] else { return nil }
        guard let number = value.number, number == number.rounded(), number >= Double(minimum), number < 1e9 else {
            throw FlowerClientError.badInstruction("config \(key) is \(value); it must be a whole number ≥ \(minimum)")
        }
        return Int(number)
    }

    private static func number(_ config: [String: ConfigValue], _ keys: [String]) throws -> Double? {
        guard let key = keys.first(where: { config[$0] != nil }), let value = config[key] else { return nil }
        guard let number = value.number else { throw FlowerClientError.badInstruction("config \(key) is \(value); it must be a number") }
        return number
    }

    private func sleep(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !state.stopRequested, Date() < end { Thread.sleep(forTimeInterval: min(0.1, seconds)) }
    }
}

/// What the main loop and the heartbeat thread share.
private final class NodeState: @unchecked Sendable {
    private let lock = NSLock()
    private var _node: UInt64?
    private var _stop = false
    private var _crashed = false

    var crashed: Bool {
        get { lock.withLock { _crashed } }
        set { lock.withLock { _crashed = newValue } }
    }

    var node: UInt64? {
        get { lock.withLock { _node } }
        set { lock.withLock { _node = newValue } }
    }

    var stopRequested: Bool {
        get { lock.withLock { _stop } }
        set { lock.withLock { _stop = newValue } }
    }
}
