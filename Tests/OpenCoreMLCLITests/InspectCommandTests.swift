import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

struct InspectCommandTests {
    @Test func lenetText() throws {
        let result = try CommandRunner.run(["inspect", Fixtures.url("lenet_updatable.mlmodel").path])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("Layers (11)"))
        #expect(result.stdout.contains("Total parameters: 585,958"))
        #expect(result.stdout.contains("dense1   innerProduct  flatten_out → dense1_out     576,500  ✓"))
        #expect(result.stdout.contains("miniBatchSize  128"))
        #expect(result.stdout.contains("Validation: valid"))
    }

    /// The JSON report agrees with what coremltools recorded about each fixture.
    @Test(arguments: Fixtures.allNames)
    func jsonMatchesTheFixtureFacts(_ name: String) throws {
        let result = try CommandRunner.run(["inspect", "--json", Fixtures.url(name).path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let facts = Fixtures.facts(name)
        #expect(json["modelType"] as? String == facts.modelType)
        #expect(json["specificationVersion"] as? Int == facts.specificationVersion)
        #expect(json["isUpdatable"] as? Bool == facts.isUpdatable)
        #expect((json["inputs"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == facts.inputs.map(\.name))
        #expect((json["outputs"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == facts.outputs.map(\.name))
        #expect((json["issues"] as? [Any])?.isEmpty == true)
        if let network = facts.neuralNetwork {
            let report = try #require(json["neuralNetwork"] as? [String: Any])
            #expect(report["layerCount"] as? Int == network.layerCount)
            #expect(report["parameterCount"] as? Int == network.parameterCount)
            let layers = try #require(report["layers"] as? [[String: Any]])
            #expect(layers.compactMap { $0["name"] as? String } == network.layers.map(\.name))
            #expect(layers.compactMap { $0["type"] as? String } == network.layers.map(\.type))
            #expect(layers.compactMap { $0["parameterCount"] as? Int } == network.layers.map(\.parameterCount))
        }
        if let knn = facts.kNearestNeighbors {
            let report = try #require(json["kNearestNeighbors"] as? [String: Any])
            #expect(report["numberOfDimensions"] as? Int == knn.numberOfDimensions)
            #expect(report["sampleCount"] as? Int == knn.sampleCount)
            #expect((report["numberOfNeighbors"] as? [String: Any])?["defaultValue"] as? Int == knn.kDefault)
        }
        if let types = facts.subModelTypes {
            let models = try #require(json["pipeline"] as? [[String: Any]])
            #expect(models.compactMap { $0["modelType"] as? String } == types)
        }
    }

    @Test func lenetUpdateParametersInJSON() throws {
        let result = try CommandRunner.run(["inspect", "--json", Fixtures.url("lenet_updatable.mlmodel").path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let update = try #require((json["neuralNetwork"] as? [String: Any])?["updateParameters"] as? [String: Any])
        let optimizer = try #require(update["optimizer"] as? [String: Any])
        #expect(optimizer["type"] as? String == "adam")
        #expect((optimizer["learningRate"] as? [String: Any])?["defaultValue"] as? Double == 1e-4)
        #expect((optimizer["miniBatchSize"] as? [String: Any])?["set"] as? [Int] == [32, 64, 128, 256])
        #expect((update["epochs"] as? [String: Any])?["defaultValue"] as? Int == 10)
        #expect(update["shuffle"] as? Bool == true)
        let losses = try #require(update["losses"] as? [[String: Any]])
        #expect(losses.first?["target"] as? String == "output_true")
    }
}

/// `inspect` on ML Programs (`Tests/Fixtures/mlprogram`, made by coremltools 9.0).
struct InspectMLProgramTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")

    @Test func showsFunctionsOperationsAndStoredWeights() throws {
        let result = try CommandRunner.run(["inspect", Self.folder.appendingPathComponent("Conv.mlpackage").path])
        #expect(result.status == 0, "\(result.stderr)")
        for line in ["ML Program · specification version 8 (Core ML 7, iOS 17)", "Function 'main' (opset CoreML7)",
                     "inputs: x: float32 [1, 3, 16, 16]", "Operations (22)", "const        16", "max_pool      1",
                     "float32        2   2,176  8,704", "Validation: valid"] {
            #expect(result.stdout.contains(line), "\(line)\n\(result.stdout)")
        }
    }

    @Test func showsCompressedWeightsByStoredType() throws {
        let result = try CommandRunner.run(["inspect", Self.folder.appendingPathComponent("PrunedPalettized18.mlpackage").path])
        #expect(result.status == 0, "\(result.stderr)")
        for line in ["constexpr_lut_to_sparse        3", "constexpr_sparse_to_dense      3",
                     "uint1          3   1,408    176", "uint2          4     890    223", "Validation: valid"] {
            #expect(result.stdout.contains(line), "\(line)\n\(result.stdout)")
        }
    }

    @Test func jsonCountsFloat16Weights() throws {
        let result = try CommandRunner.run(["inspect", "--json", Self.folder.appendingPathComponent("Dense16.mlpackage").path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["modelType"] as? String == "mlProgram")
        let program = try #require(json["mlProgram"] as? [String: Any])
        let weights = try #require(program["weights"] as? [[String: Any]])
        #expect(weights.count == 1 && weights[0]["dataType"] as? String == "float16" && weights[0]["values"] as? Int == 592)
    }

    @Test func predictRunsItAndADamagedWeightFileIsAOneLineError() throws {
        try withTemporaryDirectory { folder in
            let package = folder.appendingPathComponent("Dense.mlpackage")
            try FileManager.default.copyItem(at: Self.folder.appendingPathComponent("Dense.mlpackage"), to: package)
            let input = folder.appendingPathComponent("x.json")
            try Data("[\(Array(repeating: "0.5", count: 32).joined(separator: ","))]".utf8).write(to: input)
            let predict = try CommandRunner.run(["predict", package.path, "--input", "x=\(input.path)"])
            #expect(predict.status == 0 && predict.stdout.contains("softmax_0: shape [1, 4]"), "\(predict.stdout)\(predict.stderr)")

            // One self-contained file: the weights come into the program.
            let single = folder.appendingPathComponent("Dense.mlmodel")
            #expect(try CommandRunner.run(["convert", package.path, single.path]).status == 0)
            let again = try CommandRunner.run(["predict", single.path, "--input", "x=\(input.path)"])
            #expect(again.status == 0 && again.stdout == predict.stdout, "\(again.stdout)\(again.stderr)")

            let weights = package.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin")
            try Data(try Data(contentsOf: weights).prefix(200)).write(to: weights)
            let result = try CommandRunner.run(["inspect", package.path])
            #expect(result.status == 1 && result.stdout.isEmpty)
            #expect(result.stderr.contains("weight.bin") && result.stderr.contains("past the end of the file"), "\(result.stderr)")
        }
    }
}
