import COpenCoreML
import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML
import SwiftProtobuf
import Testing
import _OpenCoreMLTestSupport

/// Training and feature extraction through the C interface (what `opencoreml.turicreate` calls):
/// a table built from C buffers trains the same model as the Swift API on the same table (equal
/// specifications), options
/// are Turi's names and an unknown one is refused, the progress callback sees every iteration and
/// stops training keeping the model so far, and image features equal the Swift extractor's, cached
/// by content.
@Suite("C interface: tables, training, image features")
struct CTrainingTests {
    static let rows = 200

    /// The columns as C buffers: `x` doubles with a NaN (missing) every 13th row, `color` strings,
    /// `v` vectors of 2, `label` int64 from a rule on all three.
    static func columns() -> (x: [Double], color: [String], v: [Double], label: [Int64]) {
        var generator = SplitMix64(seed: 11)
        var x: [Double] = [], color: [String] = [], v: [Double] = [], label: [Int64] = []
        for row in 0..<rows {
            let value = Double.random(in: -1...1, using: &generator)
            let pair = [Double.random(in: -1...1, using: &generator), Double.random(in: -1...1, using: &generator)]
            let name = ["red", "green", "blue"][row % 3]
            x.append(row % 13 == 0 ? .nan : value)
            color.append(name)
            v += pair
            let known: Double = row % 13 == 0 ? 0 : value
            let bonus: Double = name == "red" ? 0.8 : 0
            let score: Double = known + pair[0] - pair[1] + bonus
            label.append(score > 0.2 ? 1 : 0)
        }
        return (x, color, v, label)
    }

    static func cTable() throws -> OpaquePointer {
        let (x, color, v, label) = columns()
        let table = ocm_table_create()!
        var error: OpaquePointer?
        #expect(ocm_table_add_doubles(table, "x", x, nil, x.count, &error) == OCM_OK)
        var offsets: [Int64] = [0]
        var bytes: [UInt8] = []
        for name in color {
            bytes += Array(name.utf8)
            offsets.append(Int64(bytes.count))
        }
        #expect(ocm_table_add_strings(table, "color", offsets, bytes, nil, color.count, &error) == OCM_OK)
        #expect(ocm_table_add_vectors(table, "v", v, 2, nil, rows, &error) == OCM_OK)
        #expect(ocm_table_add_int64s(table, "label", label, nil, label.count, &error) == OCM_OK)
        #expect(error == nil)
        #expect(ocm_table_row_count(table) == rows)
        return table
    }

    static func swiftTable() throws -> MLDataTable {
        let (x, color, v, label) = columns()
        var table = try MLDataTable(dictionary: ["label": label.map { Int($0) }])
        table.addColumn(MLUntypedColumn(x.map { $0.isNaN ? MLDataValue.invalid : .double($0) }), named: "x")
        table.addColumn(MLUntypedColumn(color), named: "color")
        table.addColumn(MLUntypedColumn((0..<rows).map { MLDataValue.multiArray(.init(shape: [2], scalars: Array(v[(2 * $0)..<(2 * $0 + 2)]))!) }), named: "v")
        return table
    }

    /// Counts the progress events and asks to stop after `stopAfter` iterations.
    final class Progress {
        var events: [[String: Any]] = []
        var stopAfter = Int.max
    }

    static let callback: ocm_progress_fn = { context, json in
        let progress = Unmanaged<Progress>.fromOpaque(context!).takeUnretainedValue()
        let event = try! JSONSerialization.jsonObject(with: Data(String(cString: json!).utf8)) as! [String: Any]
        progress.events.append(event)
        let iterations = progress.events.filter { $0["kind"] as? String == "iteration" }.count
        return iterations >= progress.stopAfter ? 1 : 0
    }

    /// The model file at `path` in protobuf's text format: equal for equal models, whatever order
    /// its map entries were serialized in (text format sorts them), NaN fields included (an
    /// imputer's value, which `==` on the messages would call unequal to itself).
    static func specification(_ path: String) throws -> String {
        try CoreML_Specification_Model(serializedBytes: Data(contentsOf: URL(fileURLWithPath: path))).textFormatString()
    }

    static func train(_ toolkit: String, _ table: OpaquePointer, _ options: String, to path: String, progress: Progress? = nil)
        throws -> (report: [String: Any]?, error: (ocm_status, String)?) {
        var error: OpaquePointer?
        let context = progress.map { Unmanaged.passUnretained($0).toOpaque() }
        guard let raw = ocm_train(toolkit, table, nil, options, progress == nil ? nil : callback, context, path, &error) else {
            defer { ocm_error_free(error) }
            return (nil, (ocm_error_code(error), String(cString: ocm_error_message(error))))
        }
        defer { ocm_string_free(raw) }
        return (try JSONSerialization.jsonObject(with: Data(String(cString: raw).utf8)) as? [String: Any], nil)
    }

    @Test func aTableFromCBuffersTrainsTheModelTheSwiftAPITrains() throws {
        let table = try Self.cTable()
        defer { ocm_table_free(table) }
        try withTemporaryDirectory { folder in
            let viaC = folder.appendingPathComponent("c.mlmodel").path
            let options = #"{"target": "label", "features": ["x", "color", "v"], "validation": "none", "max_iterations": 8, "max_depth": 3, "random_seed": 7, "step_size": 0.2}"#
            let (report, failure) = try Self.train("boosted_trees_classifier", table, options, to: viaC)
            #expect(failure == nil, "\(failure.map { $0.1 } ?? "")")
            #expect(report?["model"] as? String == "BoostedTreesClassifier")
            #expect(report?["features"] as? [String] == ["x", "color", "v"])
            #expect((report?["iterations"] as? [Any])?.count == 8)
            let swift = try MLBoostedTreeClassifier(trainingData: Self.swiftTable(), targetColumn: "label", featureColumns: ["x", "color", "v"],
                                                    parameters: BoostedTreeModelParameters(validation: .none, maxDepth: 3, maxIterations: 8,
                                                                                           randomSeed: 7, stepSize: 0.2))
            let viaSwift = folder.appendingPathComponent("swift.mlmodel")
            try swift.write(to: viaSwift)
            // The same model: equal specifications (the bytes may differ in the order of protobuf map
            // entries, a categorical mapping's, which Swift dictionaries do not fix).
            #expect(try Self.specification(viaC) == Self.specification(viaSwift.path))
            #expect(report?["training_accuracy"] as? Double == swift.trainingMetrics.accuracy)

            // A logistic classifier the same way (its iterations have a random-free solver).
            let linear = folder.appendingPathComponent("linear.mlmodel").path
            let (linearReport, linearFailure) = try Self.train("logistic_classifier", table, #"{"target": "label", "validation": "none", "max_iterations": 30}"#, to: linear)
            #expect(linearFailure == nil)
            let swiftLinear = try MLLogisticRegressionClassifier(trainingData: Self.swiftTable(), targetColumn: "label", featureColumns: ["x", "color", "v"],
                                                                 parameters: .init(validation: .none, maxIterations: 30))
            let linearSwift = folder.appendingPathComponent("linear-swift.mlmodel")
            try swiftLinear.write(to: linearSwift)
            #expect(try Self.specification(linear) == Self.specification(linearSwift.path))
            #expect(linearReport?["classes"] as? [String] == ["0", "1"])
        }
    }

    @Test func theProgressCallbackSeesEachIterationAndStopsTrainingKeepingTheModel() throws {
        let table = try Self.cTable()
        defer { ocm_table_free(table) }
        try withTemporaryDirectory { folder in
            let progress = Progress()
            progress.stopAfter = 3
            let path = folder.appendingPathComponent("m.mlmodel").path
            let (report, failure) = try Self.train("random_forest_classifier", table, #"{"target": "label", "validation": "none", "max_iterations": 50}"#,
                                                   to: path, progress: progress)
            #expect(failure == nil)
            #expect(report?["stopped"] as? Bool == true)
            #expect((report?["iterations"] as? [Any])?.count == 3)
            #expect(progress.events.count == 3 && progress.events.allSatisfy { $0["metric"] as? String == "accuracy" })
            // The written model holds the 3 trees trained so far and predicts.
            let model = try MLModel(contentsOf: URL(fileURLWithPath: path))
            let spec = try #require(model.specification.pipelineClassifier.pipeline.models.last)
            #expect(Set(spec.treeEnsembleClassifier.treeEnsemble.nodes.map(\.treeID)).count == 3)
        }
    }

    @Test func badOptionsAndDataNameWhatIsWrong() throws {
        let table = try Self.cTable()
        defer { ocm_table_free(table) }
        try withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("m.mlmodel").path
            let unknown = try Self.train("boosted_trees_classifier", table, #"{"target": "label", "max_itterations": 3}"#, to: path).error
            #expect(unknown?.0 == OCM_ERROR_PARAMETERS && unknown?.1.contains("max_itterations") == true)
            let wrongType = try Self.train("boosted_trees_classifier", table, #"{"target": "label", "max_depth": "deep"}"#, to: path).error
            #expect(wrongType?.0 == OCM_ERROR_PARAMETERS && wrongType?.1.contains("max_depth") == true)
            let toolkit = try Self.train("neural_style", table, #"{"target": "label"}"#, to: path).error
            #expect(toolkit?.0 == OCM_ERROR_ARGUMENT && toolkit?.1.contains("neural_style") == true)
            let column = try Self.train("logistic_classifier", table, #"{"target": "nope"}"#, to: path).error
            #expect(column?.0 == OCM_ERROR_PARAMETERS && column?.1.contains("'nope'") == true)
            let depth = try Self.train("decision_tree_classifier", table, #"{"target": "label", "max_depth": 0}"#, to: path).error
            #expect(depth?.0 == OCM_ERROR_PARAMETERS && depth?.1.contains("maxDepth") == true)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        // Columns of different lengths, and invalid UTF-8.
        let other = ocm_table_create()!
        defer { ocm_table_free(other) }
        var error: OpaquePointer?
        #expect(ocm_table_add_doubles(other, "a", [1, 2, 3], nil, 3, &error) == OCM_OK)
        #expect(ocm_table_add_doubles(other, "b", [1, 2], nil, 2, &error) == OCM_ERROR_ARGUMENT)
        #expect(String(cString: ocm_error_message(error)).contains("'b' has 2 values"))
        ocm_error_free(error)
        error = nil
        #expect(ocm_table_add_strings(other, "s", [0, 1, 2, 3], [0x61, 0xFF, 0x62], nil, 3, &error) == OCM_ERROR_ARGUMENT)
        #expect(String(cString: ocm_error_message(error)).contains("row 1"))
        ocm_error_free(error)
    }

    @Test func imageFeaturesEqualTheSwiftExtractorsAndAreCachedByContent() throws {
        let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/images")
        let files = ["photo.jpg", "rgb.png"].map { images.appendingPathComponent($0) }
        let pictures = try files.map { try Data(contentsOf: $0) }
        let extractor = try ImageFeatureExtractor(.scenePrint(revision: nil))
        try withTemporaryDirectory { cache in
            for pass in 0..<2 {
                let progress = Progress()
                var features: UnsafeMutablePointer<Float>?
                var width = 0
                var error: OpaquePointer?
                let status = pictures.map { Array($0) }.withUnsafeBufferPointers { pointers in
                    ocm_image_features(nil, nil, pointers, pictures.map(\.count), pictures.count, cache.path, Self.callback,
                                       Unmanaged.passUnretained(progress).toOpaque(), &features, &width, &error)
                }
                #expect(status == OCM_OK)
                defer { ocm_bytes_free(UnsafeMutableRawPointer(features)?.assumingMemoryBound(to: UInt8.self)) }
                #expect(width == extractor.featureCount)
                let rows = Array(UnsafeBufferPointer(start: features, count: pictures.count * width))
                for (index, file) in files.enumerated() {
                    let expected = try extractor.features(ofImageAt: file)
                    #expect(Array(rows[(index * width)..<((index + 1) * width)]) == expected, "\(file.lastPathComponent)")
                }
                #expect(progress.events.last?["cached"] as? Int == (pass == 0 ? 0 : 2))
            }
        }
        // A file that is not a picture is an I/O error naming its index.
        var features: UnsafeMutablePointer<Float>?
        var width = 0
        var error: OpaquePointer?
        let garbage: [UInt8] = Array("not a picture".utf8)
        let status = [garbage].withUnsafeBufferPointers { pointers in
            ocm_image_features(nil, nil, pointers, [garbage.count], 1, nil, nil, nil, &features, &width, &error)
        }
        #expect(status == OCM_ERROR_IO)
        #expect(String(cString: ocm_error_message(error)).contains("picture 0"))
        ocm_error_free(error)
    }
}

extension Array where Element == [UInt8] {
    /// The arrays' base addresses, valid during `body`.
    func withUnsafeBufferPointers<Result>(_ body: (UnsafePointer<UnsafePointer<UInt8>?>) -> Result) -> Result {
        let copies = map { bytes -> UnsafeMutablePointer<UInt8> in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: Swift.max(bytes.count, 1))
            copy.initialize(from: bytes, count: bytes.count)
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        let pointers: [UnsafePointer<UInt8>?] = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
