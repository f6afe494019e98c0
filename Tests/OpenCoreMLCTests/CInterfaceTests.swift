import COpenCoreML
import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// The C interface, called through its header as a C program would (the Python package's path):
/// predictions against numpy's (the ML Program fixtures' committed references), batches, strided
/// caller memory, classifiers' labels and scores, the description, errors and threads.
@Suite("C interface")
struct CInterfaceTests {
    static let programs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")

    /// `Dense.mlpackage`'s reference input (shape [1, 32]) and numpy's output for it.
    static func denseReference() throws -> (x: [Float], y: [Double]) {
        let all = try JSONSerialization.jsonObject(with: Data(contentsOf: programs.appendingPathComponent("facts.json"))) as! [String: Any]
        let reference = (all["Dense.mlpackage"] as! [String: Any])["reference"] as! [String: Any]
        return ((reference["x"] as! [Double]).map { Float($0) }, reference["y"] as! [Double])
    }

    /// Loads `path`, failing the test with the library's message.
    static func load(_ path: String) throws -> OpaquePointer {
        var error: OpaquePointer?
        guard let model = ocm_model_load(path, nil, 0, &error) else {
            defer { ocm_error_free(error) }
            throw LoadFailure(message: String(cString: ocm_error_message(error)))
        }
        return model
    }

    struct LoadFailure: Error { var message: String }

    /// `values` copied into memory the test owns: the interface borrows an array's memory, so it
    /// must stay valid from the call that sets it until the features are freed (free it with
    /// `deallocate()` after that).
    static func owned<Element>(_ values: [Element]) -> UnsafeMutableBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: values.count)
        _ = buffer.initialize(from: values)
        return buffer
    }

    /// The floats of output `name`, read through its shape and strides.
    static func floats(_ outputs: OpaquePointer, _ name: String) throws -> (shape: [Int64], values: [Float]) {
        var dtype = OCM_DTYPE_FLOAT32
        var rank = 0
        var shape: UnsafePointer<Int64>?
        var strides: UnsafePointer<Int64>?
        var data: UnsafeRawPointer?
        #expect(ocm_features_get_array(outputs, name, &dtype, &rank, &shape, &strides, &data, nil) == OCM_OK)
        #expect(dtype == OCM_DTYPE_FLOAT32)
        let dimensions = Array(UnsafeBufferPointer(start: try #require(shape), count: rank))
        let steps = Array(UnsafeBufferPointer(start: try #require(strides), count: rank))
        let count = Int(dimensions.reduce(1, *))
        let pointer = try #require(data).assumingMemoryBound(to: Float.self)
        let values = (0..<count).map { linear -> Float in
            var remainder = linear
            var offset = 0
            for axis in stride(from: rank - 1, through: 0, by: -1) {
                offset += (remainder % Int(dimensions[axis])) * Int(steps[axis])
                remainder /= Int(dimensions[axis])
            }
            return pointer[offset]
        }
        return (dimensions, values)
    }

    @Test func predictsWhatNumpyComputesFromCallerMemory() throws {
        let (x, y) = try Self.denseReference()
        let model = try Self.load(Self.programs.appendingPathComponent("Dense.mlpackage").path)
        defer { ocm_model_free(model) }
        let input = Self.owned(x)
        defer { input.deallocate() }
        let inputs = ocm_features_create()
        defer { ocm_features_free(inputs) }
        let shape: [Int64] = [1, 32]
        #expect(ocm_features_set_array(inputs, "x", OCM_DTYPE_FLOAT32, 2, shape, nil, input.baseAddress, nil) == OCM_OK)
        var error: OpaquePointer?
        let outputs = try #require(ocm_model_predict(model, inputs, nil, &error))
        defer { ocm_features_free(outputs) }
        #expect(ocm_features_count(outputs) == 1)
        let name = String(cString: try #require(ocm_features_name(outputs, 0)))
        #expect(ocm_features_type(outputs, name) == OCM_FEATURE_MULTIARRAY)
        let result = try Self.floats(outputs, name)
        #expect(result.values.count == y.count)
        for (got, expected) in zip(result.values, y) { #expect(abs(Double(got) - expected) <= 1e-4) }
    }

    @Test func stridedInputGivesWhatItsContiguousCopyGives() throws {
        let (x, y) = try Self.denseReference()
        let model = try Self.load(Self.programs.appendingPathComponent("Dense.mlpackage").path)
        defer { ocm_model_free(model) }
        // Every other element of a buffer twice as long: strides [64, 2].
        let spread = Self.owned([Float](repeating: .nan, count: 64))
        defer { spread.deallocate() }
        for (index, value) in x.enumerated() { spread[2 * index] = value }
        let inputs = ocm_features_create()
        defer { ocm_features_free(inputs) }
        let shape: [Int64] = [1, 32], strides: [Int64] = [64, 2]
        #expect(ocm_features_set_array(inputs, "x", OCM_DTYPE_FLOAT32, 2, shape, strides, spread.baseAddress, nil) == OCM_OK)
        let outputs = try #require(ocm_model_predict(model, inputs, nil, nil))
        defer { ocm_features_free(outputs) }
        let values = try Self.floats(outputs, String(cString: ocm_features_name(outputs, 0))).values
        for (got, expected) in zip(values, y) { #expect(abs(Double(got) - expected) <= 1e-4) }
    }

    @Test func aBatchGivesWhatOnePredictionAtATimeGives() throws {
        let model = try Self.load(Self.programs.appendingPathComponent("Dense.mlpackage").path)
        defer { ocm_model_free(model) }
        var generator = TestRandom(seed: 7)
        let buffers = (0..<3).map { _ in Self.owned(generator.floats(32)) }
        defer { buffers.forEach { $0.deallocate() } }
        let shape: [Int64] = [1, 32]
        let examples: [OpaquePointer?] = (0..<3).map { index in
            let features = ocm_features_create()
            _ = ocm_features_set_array(features, "x", OCM_DTYPE_FLOAT32, 2, shape, nil, buffers[index].baseAddress, nil)
            return features
        }
        defer { examples.forEach(ocm_features_free) }
        var outputs = [OpaquePointer?](repeating: nil, count: 3)
        #expect(ocm_model_predict_batch(model, examples, 3, &outputs, nil) == OCM_OK)
        defer { outputs.forEach(ocm_features_free) }
        for index in 0..<3 {
            let single = try #require(ocm_model_predict(model, examples[index], nil, nil))
            defer { ocm_features_free(single) }
            let name = String(cString: ocm_features_name(single, 0))
            #expect(try Self.floats(single, name).values == Self.floats(try #require(outputs[index]), name).values)
        }
    }

    @Test func aClassifierGivesItsLabelAndScores() throws {
        let model = try Self.load(Fixtures.url("classifier_sgd.mlmodel").path)
        defer { ocm_model_free(model) }
        let features = Self.owned([5.1, 3.5, 1.4, 0.2] as [Double])
        defer { features.deallocate() }
        let inputs = ocm_features_create()
        defer { ocm_features_free(inputs) }
        let shape: [Int64] = [4]
        #expect(ocm_features_set_array(inputs, "features", OCM_DTYPE_FLOAT64, 1, shape, nil, features.baseAddress, nil) == OCM_OK)
        let outputs = try #require(ocm_model_predict(model, inputs, nil, nil))
        defer { ocm_features_free(outputs) }
        var label: UnsafePointer<CChar>?
        #expect(ocm_features_get_string(outputs, "classLabel", &label, nil) == OCM_OK)
        var count = 0
        var keyType = OCM_FEATURE_INVALID
        var keys: UnsafePointer<UnsafePointer<CChar>?>?
        var values: UnsafePointer<Double>?
        #expect(ocm_features_get_dictionary(outputs, "classProbability", &count, &keyType, &keys, nil, &values, nil) == OCM_OK)
        #expect(count == 3)
        #expect(keyType == OCM_FEATURE_STRING)
        let scores = Dictionary(uniqueKeysWithValues: (0..<count).map { (String(cString: keys![$0]!), values![$0]) })
        #expect(Set(scores.keys) == ["setosa", "versicolor", "virginica"])
        #expect(abs(scores.values.reduce(0, +) - 1) < 1e-5)
        // The label is the class with the highest score.
        #expect(String(cString: try #require(label)) == scores.max { $0.value < $1.value }!.key)
    }

    @Test func theDescriptionIsJSONWithTheModelsNamesEscaped() throws {
        let hostile = "x\"\n\\\u{2028}</script>"
        try withTemporaryDirectory { folder in
            var specification = try Fixtures.model("classifier_sgd.mlmodel")
            specification.description_p.metadata.author = hostile
            specification.description_p.metadata.userDefined = [hostile: hostile]
            let url = folder.appendingPathComponent("m.mlmodel")
            try specification.write(to: url)
            let model = try Self.load(url.path)
            defer { ocm_model_free(model) }
            let text = try #require(ocm_model_description_json(model, nil))
            defer { ocm_string_free(text) }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(String(cString: text).utf8)) as? [String: Any])
            #expect(object["modelType"] as? String == "pipelineClassifier" || object["modelType"] as? String == "glmClassifier"
                || object["modelType"] as? String == "neuralNetworkClassifier")
            #expect(object["predictedFeatureName"] as? String == "classLabel")
            #expect(object["classLabels"] as? [String] == ["setosa", "versicolor", "virginica"])
            let inputs = try #require(object["inputs"] as? [[String: Any]])
            #expect(inputs.first?["name"] as? String == "features")
            #expect(inputs.first?["dataType"] as? String == "float32")
            #expect(inputs.first?["shape"] as? [Int] == [4])
            let metadata = try #require(object["metadata"] as? [String: Any])
            #expect(metadata["author"] as? String == hostile)
            #expect((metadata["userDefined"] as? [String: String])?[hostile] == hostile)
        }
    }

    @Test func failuresAreAStatusAndAMessageNamingWhatAndWhere() throws {
        var error: OpaquePointer?
        #expect(ocm_model_load("/nonexistent/Model.mlmodel", nil, 0, &error) == nil)
        #expect(ocm_error_code(error) == OCM_ERROR_IO)
        #expect(String(cString: ocm_error_message(error)).contains("/nonexistent/Model.mlmodel"))
        ocm_error_free(error)
        error = nil

        #expect(ocm_model_load(nil, nil, 0, &error) == nil)
        #expect(ocm_error_code(error) == OCM_ERROR_ARGUMENT)
        ocm_error_free(error)
        error = nil

        let model = try Self.load(Self.programs.appendingPathComponent("Dense.mlpackage").path)
        defer { ocm_model_free(model) }
        let empty = ocm_features_create()
        defer { ocm_features_free(empty) }
        #expect(ocm_model_predict(model, empty, nil, &error) == nil)
        #expect(ocm_error_code(error) == OCM_ERROR_FEATURE_TYPE)
        #expect(String(cString: ocm_error_message(error)).contains("'x'"))
        ocm_error_free(error)
        error = nil

        // A shape with a zero size, an unknown element type, a missing feature on reading.
        var value: Float = 0
        let zero: [Int64] = [0]
        #expect(ocm_features_set_array(empty, "x", OCM_DTYPE_FLOAT32, 1, zero, nil, &value, &error) == OCM_ERROR_ARGUMENT)
        ocm_error_free(error)
        error = nil
        let one: [Int64] = [1]
        #expect(ocm_features_set_array(empty, "x", ocm_dtype(rawValue: 7), 1, one, nil, &value, nil) == OCM_ERROR_ARGUMENT)
        var number = 0.0
        #expect(ocm_features_get_double(empty, "missing", &number, &error) == OCM_ERROR_NOT_FOUND)
        #expect(String(cString: ocm_error_message(error)).contains("missing"))
        ocm_error_free(error)
        error = nil

        // Sizes or strides whose reach overflows are refused, not trapped on.
        let huge: [Int64] = [1 << 40, 1 << 40, 4], far: [Int64] = [1 << 62, 1]
        #expect(ocm_features_set_array(empty, "x", OCM_DTYPE_FLOAT32, 3, huge, nil, &value, nil) == OCM_ERROR_ARGUMENT)
        let two: [Int64] = [4, 1]
        #expect(ocm_features_set_array(empty, "x", OCM_DTYPE_FLOAT32, 2, two, far, &value, nil) == OCM_ERROR_ARGUMENT)

        // An unknown function of a single-function model.
        #expect(ocm_model_load(Self.programs.appendingPathComponent("Dense.mlpackage").path, "decode", 0, &error) == nil)
        #expect(ocm_error_code(error) == OCM_ERROR_NOT_FOUND)
        ocm_error_free(error)
    }

    @Test func anUnsupportedOperationFailsTheLoadNotTheFirstPrediction() throws {
        try withTemporaryDirectory { folder in
            let source = Self.programs.appendingPathComponent("Dense.mlpackage")
            var specification = try CoreML_Specification_Model(selfContainedContentsOf: source)
            guard case .mlProgram(var program)? = specification.type else { Issue.record("not an ML Program"); return }
            let opset = program.functions["main"]!.opset
            var operations = program.functions["main"]!.blockSpecializations[opset]!.operations
            let index = try #require(operations.firstIndex { $0.type == "relu" })
            operations[index].type = "made_up_op"
            program.functions["main"]!.blockSpecializations[opset]!.operations = operations
            specification.type = .mlProgram(program)
            let url = folder.appendingPathComponent("Unsupported.mlmodel")
            try specification.write(to: url)
            var error: OpaquePointer?
            #expect(ocm_model_load(url.path, nil, 0, &error) == nil)
            #expect(String(cString: ocm_error_message(error)).contains("made_up_op"))
            ocm_error_free(error)
        }
    }

    @Test func modelsPredictFromManyThreadsAtOnce() async throws {
        let (x, y) = try Self.denseReference()
        let model = try Self.load(Self.programs.appendingPathComponent("Dense.mlpackage").path)
        defer { ocm_model_free(model) }
        let handle = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(model)))
        let worst = await withTaskGroup(of: Double.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let model = OpaquePointer(bitPattern: handle)!
                    let input = CInterfaceTests.owned(x)
                    defer { input.deallocate() }
                    var worst = 0.0
                    for _ in 0..<20 {
                        let inputs = ocm_features_create()
                        let shape: [Int64] = [1, 32]
                        _ = ocm_features_set_array(inputs, "x", OCM_DTYPE_FLOAT32, 2, shape, nil, input.baseAddress, nil)
                        if let outputs = ocm_model_predict(model, inputs, nil, nil),
                           let values = try? CInterfaceTests.floats(outputs, String(cString: ocm_features_name(outputs, 0))).values {
                            worst = max(worst, zip(values, y).map { abs(Double($0) - $1) }.max() ?? .infinity)
                            ocm_features_free(outputs)
                        } else {
                            worst = .infinity
                        }
                        ocm_features_free(inputs)
                    }
                    return worst
                }
            }
            return await group.reduce(0) { max($0, $1) }
        }
        #expect(worst <= 1e-4)
    }

    @Test func aStatelessModelsStateIsEmptyAndUnknownStatesAreNotFound() throws {
        let model = try Self.load(Self.programs.appendingPathComponent("Dense.mlpackage").path)
        defer { ocm_model_free(model) }
        let state = try #require(ocm_model_make_state(model, nil))
        defer { ocm_state_free(state) }
        #expect(ocm_state_count(state) == 0)
        #expect(ocm_state_name(state, 0) == nil)
        var rank = 0
        #expect(ocm_state_read(state, "cache", nil, &rank, nil, nil, nil) == OCM_ERROR_NOT_FOUND)
        #expect(String(cString: ocm_version()).split(separator: ".").count == 3)
        #expect(ocm_max_specification_version() >= 9)
    }
}
