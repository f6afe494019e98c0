import ArgumentParser
import Foundation
import OpenCoreML
import OpenCoreMLFlower
import OpenCreateML

/// `opencoreml federated join`: this machine as a Flower SuperNode that trains an updatable model
/// on its share of a data set.
struct Federated: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Federated training with Flower: join a SuperLink as a node that trains an updatable model on local data.",
        discussion: """
            The server side is a Flower app (Federated/flower-app, FedAvg) started with `flwr run`; \
            Federated/run-local.sh starts a SuperLink, the app and N clients on this machine.
            """,
        subcommands: [Join.self, Report.self]
    )

    struct Join: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a Flower SuperLink and train the model on local data for every round it asks.",
            discussion: """
                Runs until interrupted (Ctrl-C leaves the federation cleanly), until --max-idle seconds pass without \
                an instruction, or until the SuperLink has not answered for --max-wait seconds. A line per round.
                """
        )

        @Option(help: ArgumentHelp("The SuperLink's Fleet API.", valueName: "host:port"))
        var superlink: String = "127.0.0.1:8000"

        @Argument(help: "The updatable .mlmodel (its arrays are replaced by the server's every round).")
        var model: String

        @OptionGroup var dataset: DatasetOptions

        @Option(name: .customLong("test-data"), help: "Local test examples for evaluation (default: the test split of an IDX folder, partitioned the same way; for a CSV, 20 % of the local share held out).")
        var testData: String?

        @Option(help: ArgumentHelp("This node's share of the data: part I of N (from 1).", valueName: "I/N"))
        var partition: String = "1/1"

        @Option(help: ArgumentHelp("Deal the examples out non-IID: per class, shares drawn from a Dirichlet distribution with this concentration (0.5 is common). Default: IID.", valueName: "alpha"))
        var dirichlet: Double?

        @Option(help: "Seed for partitioning (every node of a federation must use the same).")
        var seed: UInt64 = 0

        @Flag(help: "Talk plain HTTP (the SuperLink runs with --insecure).")
        var insecure = false

        @Option(name: .customLong("max-idle"), help: "Leave after this many seconds without an instruction.")
        var maxIdle: Double?

        @Option(name: .customLong("max-wait"), help: "Give up after the SuperLink has not answered for this many seconds.")
        var maxWait: Double = 600

        @Option(name: .customLong("poll-interval"), help: "Seconds between asks for instructions.")
        var pollInterval: Double = 1

        @Option(help: ArgumentHelp("Append the timestamped phases of every exchange (pull, unpack, train, pack, push) to this file, one JSON object a line.", valueName: "file"))
        var profile: String?

        func run() throws {
            let (part, parts) = try Self.parsePartition(partition)
            if let maxIdle, !(maxIdle > 0) { throw CLIError.model("--max-idle must be a positive number of seconds, got \(maxIdle)") }
            guard maxWait >= 0 else { throw CLIError.model("--max-wait must be 0 or more seconds, got \(maxWait)") }
            guard pollInterval >= 0.01, pollInterval <= 3600 else { throw CLIError.model("--poll-interval must be 0.01 to 3600 seconds, got \(pollInterval)") }
            let partitioning: LabeledDataset.Partitioning = dirichlet.map { .dirichlet(alpha: $0) } ?? .iid
            let loaded = try loadModel(model)
            let (train, test) = try CLIError.wrapping { () throws -> (LabeledDataset, LabeledDataset) in
                let all = try dataset.load(defaultSplit: .train)
                let local = try all.partition(part - 1, of: parts, by: partitioning, seed: seed)
                if let testData {
                    return (local, try LabeledDataset(contentsOf: URL(fileURLWithPath: testData), split: .test, scale: dataset.scale))
                }
                if dataset.hasTestSplit {
                    let tests = try dataset.load(defaultSplit: .test)
                    return (local, try tests.partition(part - 1, of: parts, by: partitioning, seed: seed))
                }
                return try local.randomSplit(testFraction: 0.2, seed: seed)
            }
            let client = try CLIError.wrapping {
                try FlowerClient(model: loaded, trainingData: train.batchProvider(for: loaded), testData: test.batchProvider(for: loaded),
                                 configuration: .init(superlink: superlink, insecure: insecure, pollInterval: pollInterval, maximumWait: maxWait, maximumIdle: maxIdle,
                                                       profilePath: profile))
            }
            say("\(train.name): \(grouped(train.count)) training and \(grouped(test.count)) test examples; \(loaded.updatableWeightKeys.count) arrays exchanged; SuperLink \(superlink)")
            let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    say("leaving (signal \(number)); finishing the instruction in hand")
                    client.stop()
                }
                source.resume()
                return source
            }
            defer { signals.forEach { $0.cancel() } }
            try client.run { event in say(event.description) }
        }

        /// `I/N` with 1 ≤ I ≤ N.
        static func parsePartition(_ text: String) throws -> (Int, Int) {
            let parts = text.split(separator: "/").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (1...count).contains(index) else {
                throw CLIError.model("--partition must be I/N with 1 ≤ I ≤ N, got '\(text)'")
            }
            return (index, count)
        }
    }
}

extension Federated {
    /// `opencoreml federated report HISTORY.json`: the per-round table (and chart) of a federation.
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the per-round federated evaluation the Flower app wrote (its history file) as a table, and chart it.")

        @Argument(help: "The history JSON file (the app's `history` run-config key).")
        var history: String

        @Option(help: ArgumentHelp("Write loss and accuracy per round as a chart: FILE.svg, FILE.png or FILE.pdf (by the extension).", valueName: "file"),
                transform: ChartFormat.checkedPath)
        var chart: String?

        func run() throws {
            let record = try CLIError.wrapping { try FederatedHistory(contentsOf: URL(fileURLWithPath: history)) }
            guard !record.rounds.isEmpty else { throw CLIError.file(history, "holds no rounds yet") }
            var table = TextTable(["round", "loss", "accuracy", "examples", "seconds"], alignments: [.right, .right, .right, .right, .right])
            for round in record.rounds {
                table.append([String(round.round), round.loss.map { String(format: "%.4f", $0) } ?? "–",
                              round.accuracy.map { String(format: "%.2f %%", 100 * $0) } ?? "–", grouped(round.examples),
                              round.seconds.map { String(format: "%.1f", $0) } ?? "–"])
            }
            print(table.render())
            if let chart {
                let accuracy = record.rounds.compactMap(\.accuracy)
                try writeChart(to: chart) {
                    LossCurveChart.make(loss: record.rounds.map { $0.loss ?? .nan }, accuracy: accuracy.count == record.rounds.count ? accuracy : nil,
                                        title: "Federated evaluation", xLabel: "round", metrics: $0)
                }
                print("Wrote \(chart)")
            }
        }
    }
}

/// A line on standard error with the time, for long-running commands.
private func say(_ text: String) {
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm:ss"
    FileHandle.standardError.write(Data("[\(formatter.string(from: Date()))] \(text)\n".utf8))
}
