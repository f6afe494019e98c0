import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML
import Testing
@testable import OpenCoreMLFlower

/// Swift clients against a real Flower SuperLink (flwr 1.41.0) running the Flower app of
/// `Federated/flower-app` with FedAvg. Needs `OPENCOREML_FLOWER_VENV` (CI sets it; without it the
/// suite is skipped).
@Suite("Federated training against a real SuperLink", .serialized, .enabled(if: LocalFederation.venv != nil))
struct FederationTests {
    static let training = LabeledDataset.generatedDigits(2400, seed: 11)
    static let testing = LabeledDataset.generatedDigits(600, seed: 12)

    /// Records what a client reports.
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [FlowerClient.Event] = []
        func append(_ event: FlowerClient.Event) { lock.withLock { list.append(event) } }
        var all: [FlowerClient.Event] { lock.withLock { list } }
        var trainedRounds: [String] { all.compactMap { if case .trained(let round, _, _, _, _, _) = $0 { round } else { nil } } }
        var evaluatedRounds: [String] { all.compactMap { if case .evaluated(let round, _, _, _, _, _) = $0 { round } else { nil } } }
        var joins: Int { all.filter { if case .joined = $0 { true } else { false } }.count }
        var failures: [String] { all.compactMap { if case .failed(_, _, let reason) = $0 { reason } else { nil } } }
    }

    final class Restarted: @unchecked Sendable {
        private let lock = NSLock()
        private var _client: FlowerClient?
        var client: FlowerClient? {
            get { lock.withLock { _client } }
            set { lock.withLock { _client = newValue } }
        }
    }

    /// Client `index` of `count`: its IID share of the training and test digits, on its own thread.
    static func startClient(_ index: Int, of count: Int, port: Int, crashAfter: Int? = nil, events: Events,
                            maximumWait: Double = 120, profilePath: String? = nil) throws -> (FlowerClient, Thread) {
        let model = try SmallNetwork.model()
        let client = try FlowerClient(
            model: model,
            trainingData: training.partition(index, of: count, seed: 1).batchProvider(for: model),
            testData: testing.partition(index, of: count, seed: 1).batchProvider(for: model),
            configuration: .init(superlink: "127.0.0.1:\(port)", heartbeatInterval: 10, pollInterval: 0.3, maximumWait: maximumWait,
                                 profilePath: profilePath))
        client.crashAfterInstructions = crashAfter
        let thread = Thread {
            do { try client.run { events.append($0) } } catch { events.append(.failed(round: "-", type: "run", reason: "\(error)")) }
        }
        thread.start()
        return (client, thread)
    }

    static func initialModel(in federation: LocalFederation) throws -> URL {
        let url = federation.folder.appendingPathComponent("initial.mlmodel")
        try SmallNetwork.specification().write(to: url)
        return url
    }

    static func config(_ federation: LocalFederation, model: URL, rounds: Int, minNodes: Int) -> [String: String] {
        [
            "num-server-rounds": String(rounds), "model": "\"\(model.path)\"", "min-nodes": String(minNodes),
            "local-epochs": "1", "learning-rate": "0.003", "batch-size": "32",
            "history": "\"\(federation.folder.appendingPathComponent("history.json").path)\"",
            "output": "\"\(federation.folder.appendingPathComponent("final.mlmodel").path)\"",
        ]
    }

    @Test func threeSwiftClientsTrainWithFedAvgAndTheFinalModelScoresWhatTheHistorySays() throws {
        let federation = try LocalFederation()
        let model = try Self.initialModel(in: federation)
        let events = (0..<3).map { _ in Events() }
        let profile = federation.folder.appendingPathComponent("client-1-profile.jsonl")
        let clients = try (0..<3).map {
            try Self.startClient($0, of: 3, port: federation.port, events: events[$0], profilePath: $0 == 0 ? profile.path : nil)
        }
        defer { clients.forEach { $0.0.stop() } }

        _ = try federation.runApp(Self.config(federation, model: model, rounds: 3, minNodes: 3))

        for (index, recorded) in events.enumerated() {
            #expect(recorded.trainedRounds == ["1", "2", "3"], "client \(index + 1): \(recorded.all)")
            #expect(recorded.evaluatedRounds == ["1", "2", "3"], "client \(index + 1): \(recorded.all)")
            #expect(recorded.failures.isEmpty)
        }
        // Objects cached by id: round 1's train instruction brings every object (nothing is held
        // yet): the Message, its RecordDict and ConfigRecord, the ArrayRecord and the packed
        // arrays' Array and ArrayChunk (the app's default) — 6; each evaluation brings the new
        // global arrays; the train instructions of rounds 2 and 3 carry the arrays the evaluation
        // before them did, so only their Message, RecordDict and ConfigRecord are pulled, and the
        // model is used as the evaluation left it.
        let lines = try String(contentsOf: profile, encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        func field(_ event: String, _ type: String, _ name: String) -> [Int] {
            records.filter { $0["event"] as? String == event && $0["type"] as? String == type }.map { ($0[name] as! NSNumber).intValue }
        }
        let fetched = field("objects", "train", "fetched")
        #expect(field("objects", "train", "cached").first == 0, "\(lines)")
        #expect(fetched == [6, 3, 3], "\(lines)")
        #expect(field("objects", "evaluate", "fetched").allSatisfy { $0 > 3 }, "\(lines)")
        #expect(field("applied", "train", "reused") == [0, 1, 1])
        #expect(field("applied", "evaluate", "reused") == [0, 0, 0])
        #expect(records.filter { $0["event"] as? String == "pushed" }.count == 6)

        let history = try FederatedHistory(contentsOf: federation.folder.appendingPathComponent("history.json"))
        #expect(history.rounds.map(\.round) == [1, 2, 3])
        #expect(history.rounds.allSatisfy { $0.examples == 600 })
        let accuracy = history.rounds.compactMap(\.accuracy)
        #expect(accuracy.count == 3 && accuracy[2] > 0.5 && accuracy[2] >= accuracy[0], "\(history.rounds)")

        // The app's final model is the global model of the last round: on all the clients' test
        // digits it scores exactly the example-weighted evaluation the history holds.
        let final = try MLModel(contentsOf: federation.folder.appendingPathComponent("final.mlmodel"))
        let metrics = try MLClassifierMetrics(model: final, on: Self.testing.partition(0, of: 1, seed: 1))
        #expect(abs(metrics.accuracy - accuracy[2]) < 1e-9)
        #expect(abs(metrics.meanCrossEntropy! - history.rounds[2].loss!) < 1e-4)
        // coremltools 9.0 reads it too.
        #expect(try federation.python("import sys, coremltools as ct; ct.models.MLModel(sys.argv[1], skip_model_load=True)",
                                      federation.folder.appendingPathComponent("final.mlmodel").path) == 0)
        // It differs from the initial model in every exchanged array.
        let initial = try ModelArrays.arrays(of: MLModel(contentsOf: model))
        let trained = try ModelArrays.arrays(of: final)
        #expect(initial.map(\.0) == trained.map(\.0))
        for (before, after) in zip(initial, trained) { #expect(before.1.data != after.1.data, "\(before.0) did not change") }
    }

    @Test func aClientKilledMidRoundDoesNotStopTheRunAndARestartedOneRejoins() throws {
        let federation = try LocalFederation()
        let model = try Self.initialModel(in: federation)
        let events = (0..<4).map { _ in Events() }
        // Client 3 dies as soon as it holds its first instruction; a new client 3 starts later.
        let profile = federation.folder.appendingPathComponent("client-1-profile.jsonl")
        let clients = try (0..<3).map {
            try Self.startClient($0, of: 3, port: federation.port, crashAfter: $0 == 2 ? 1 : nil, events: events[$0],
                                 profilePath: $0 == 0 ? profile.path : nil)
        }
        let restarted = Restarted()
        defer {
            clients.forEach { $0.0.stop() }
            restarted.client?.stop()
        }
        let crashed = clients[2].0
        let restarter = Thread {
            while !crashed.isCrashed { Thread.sleep(forTimeInterval: 0.2) }
            Thread.sleep(forTimeInterval: 2)
            restarted.client = try? Self.startClient(2, of: 3, port: federation.port, events: events[3]).0
        }
        restarter.start()

        // The arrays named one by one (the app's `packed = false`), as any other Flower app sends them.
        var config = Self.config(federation, model: model, rounds: 3, minNodes: 2)
        config["packed"] = "false"
        _ = try federation.runApp(config)

        #expect(clients[2].0.isCrashed)
        let history = try FederatedHistory(contentsOf: federation.folder.appendingPathComponent("history.json"))
        #expect(history.rounds.map(\.round) == [1, 2, 3], "\(federation.superlinkLog.suffix(2000))")
        #expect(events[0].trainedRounds.count == 3 && events[1].trainedRounds.count == 3)
        #expect(events[3].joins == 1)
        #expect(!events[3].trainedRounds.isEmpty, "the restarted client never trained: \(events[3].all)")

        // The named form travelled: packed, round 1's train instruction is 6 objects (Message,
        // RecordDict, ConfigRecord, ArrayRecord, the one Array and its chunk); named, it holds at
        // least the 4 records plus an Array and a chunk for each of the two randomly initialised
        // dense weight matrices (distinct bytes, so distinct ids): at least 8.
        let lines = try String(contentsOf: profile, encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        let firstTrain = records.first { $0["event"] as? String == "objects" && $0["type"] as? String == "train" }
        let fetched = (firstTrain?["fetched"] as? NSNumber)?.intValue ?? 0
        #expect(fetched >= 8, "\(lines)")
    }

    @Test func aSuperLinkThatGoesAwayAndComesBackIsRejoined() throws {
        let federation = try LocalFederation()
        let events = Events()
        let (client, thread) = try Self.startClient(0, of: 1, port: federation.port, events: events)
        defer { client.stop() }
        let deadline = Date().addingTimeInterval(30)
        while events.joins < 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(events.joins == 1)

        federation.stopSuperLink()
        while !events.all.contains(where: { if case .retrying = $0 { true } else { false } }), Date() < deadline.addingTimeInterval(30) {
            Thread.sleep(forTimeInterval: 0.1)
        }
        try federation.startSuperLink()
        let rejoin = Date().addingTimeInterval(60)
        while events.joins < 2, Date() < rejoin { Thread.sleep(forTimeInterval: 0.2) }
        #expect(events.joins == 2, "\(events.all)")
        let retry = events.all.compactMap { if case .retrying(let reason, _) = $0 { reason } else { nil } }.first ?? ""
        #expect(retry.contains("127.0.0.1:\(federation.port)"), "\(retry)")
        client.stop()
        while thread.isExecuting { Thread.sleep(forTimeInterval: 0.1) }
    }
}

/// Without any SuperLink, a client says so, retries, and gives up after its maximum wait with one
/// clear error (no crash, no hang).
@Suite("A SuperLink that is not there")
struct NoSuperLinkTests {
    @Test func theClientRetriesThenGivesUpNamingTheAddress() throws {
        let port = try LocalFederation.freePort()
        let model = try SmallNetwork.model()
        let client = try FlowerClient(model: model, trainingData: LabeledDataset.generatedDigits(40).batchProvider(for: model),
                                      testData: LabeledDataset.generatedDigits(10, seed: 2).batchProvider(for: model),
                                      configuration: .init(superlink: "127.0.0.1:\(port)", maximumWait: 2.5, requestTimeout: 2))
        let events = FederationTests.Events()
        let started = Date()
        let error = try #require(throws: FlowerClientError.self) { try client.run { events.append($0) } }
        guard case .superlinkGone(let address, let seconds, _) = error else {
            Issue.record("expected superlinkGone, got \(error)")
            return
        }
        #expect(address == "127.0.0.1:\(port)")
        #expect(seconds >= 2.5)
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(error.description.hasPrefix("gave up: the SuperLink at 127.0.0.1:\(port) has not answered for"))
        #expect(events.all.contains { if case .retrying = $0 { true } else { false } })
    }

    @Test func aBadAddressIsAnErrorAtOnce() throws {
        let model = try SmallNetwork.model()
        #expect(throws: FlowerClientError.badAddress("localhost")) {
            try FlowerClient(model: model, trainingData: LabeledDataset.generatedDigits(4).batchProvider(for: model),
                             testData: LabeledDataset.generatedDigits(4, seed: 2).batchProvider(for: model),
                             configuration: .init(superlink: "localhost"))
        }
    }
}
