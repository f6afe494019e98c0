import CoreMLSpec
import Foundation

/// The reference models in `Tests/Fixtures/models`, built by coremltools (`make_fixtures.py`).
public enum Fixtures {
    /// `Tests/Fixtures/models` in the source tree.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/models")

    /// Every fixture file name, as listed in `fixtures.json`.
    public static var allNames: [String] { facts.map(\.file) }

    public static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    public static func model(_ name: String) throws -> CoreML_Specification_Model {
        try CoreML_Specification_Model(contentsOf: url(name))
    }

    public static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    /// The facts coremltools computed for each fixture, independent of our code.
    public static let facts: [FixtureFacts] = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("fixtures.json"))
        return try! JSONDecoder().decode(FixtureFile.self, from: data).fixtures
    }()

    public static func facts(_ name: String) -> FixtureFacts { facts.first { $0.file == name }! }
}

struct FixtureFile: Decodable { var fixtures: [FixtureFacts] }

/// What `make_fixtures.py` recorded about one model.
public struct FixtureFacts: Decodable, Sendable {
    public struct Feature: Decodable, Sendable {
        public var name: String
        public var type: String
        public var dataType: String?
        public var shape: [Int]?
    }
    public struct Layer: Decodable, Sendable {
        public var name: String
        public var type: String
        public var inputs: [String]
        public var outputs: [String]
        public var isUpdatable: Bool
        public var parameterCount: Int
    }
    public struct NeuralNetwork: Decodable, Sendable {
        public var layerCount: Int
        public var parameterCount: Int
        public var updatableLayers: [String]
        public var layers: [Layer]
    }
    public struct NearestNeighbors: Decodable, Sendable {
        public var numberOfDimensions: Int
        public var sampleCount: Int
        public var labelCount: Int
        public var kDefault: Int
        public var indexType: String
        public var weighting: String
    }

    public var file: String
    public var modelType: String
    public var specificationVersion: Int
    public var isUpdatable: Bool
    public var inputs: [Feature]
    public var outputs: [Feature]
    public var trainingInputs: [Feature]
    public var predictedFeatureName: String
    public var predictedProbabilitiesName: String
    public var classLabels: [String]?
    public var neuralNetwork: NeuralNetwork?
    public var kNearestNeighbors: NearestNeighbors?
    public var subModelTypes: [String]?
}

/// A fresh temporary folder, removed when `body` returns.
public func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("opencoreml-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}
