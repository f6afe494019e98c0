import Foundation
import OpenCoreML
import OpenCreateML
import Testing
@testable import OpenCoreMLFlower

/// The arrays a model exchanges: every trainable blob of every updatable layer, named and shaped,
/// and the errors a server's wrong arrays get.
@Suite("Model arrays")
struct ModelArraysTests {
    @Test func everyTrainableBlobOfEveryUpdatableLayerInLayerOrder() throws {
        let arrays = try ModelArrays.arrays(of: SmallNetwork.model())
        #expect(arrays.map(\.0) == ["dense1.weights", "dense1.bias", "norm.gamma", "norm.beta", "dense2.weights", "dense2.bias"])
        #expect(arrays.map(\.1.shape) == [[24, 784], [24], [24], [24], [10, 24], [10]])
        #expect(arrays.allSatisfy { $0.1.dtype == "float32" && $0.1.stype == "numpy.ndarray" })
    }

    @Test func applyingArraysSetsThemAndTheyComeBackUnchanged() throws {
        let model = try SmallNetwork.model()
        var arrays = try ModelArrays.arrays(of: model)
        let changed = try MLMultiArray(shape: [10], dataType: .float32)
        for index in 0..<10 { changed[index] = NSNumber(value: Float(index) / 8) }
        arrays[5].1.data = changed.npyData()
        let updated = try ModelArrays.applying(arrays, to: model)
        let bias = try #require(try updated.parameterValue(for: .biases.scoped(to: "dense2")) as? MLMultiArray)
        #expect(bias.floatValues() == (0..<10).map { Float($0) / 8 })
        #expect(try ModelArrays.arrays(of: updated).map(\.1) == arrays.map(\.1))
    }

    @Test func wrongArraysAreErrorsNamingTheArray() throws {
        let model = try SmallNetwork.model()
        let arrays = try ModelArrays.arrays(of: model)
        #expect(throws: FlowerClientError.badInstruction("the server sent no array 'dense2.bias' (it sent 5 arrays; the model exchanges 6)")) {
            try ModelArrays.applying(Array(arrays.dropLast()), to: model)
        }
        var wrongShape = arrays
        wrongShape[4].1.shape = [24, 10]
        #expect(throws: FlowerClientError.badInstruction("array 'dense2.weights' has shape [24, 10]; the model's is [10, 24]")) {
            try ModelArrays.applying(wrongShape, to: model)
        }
        let extra = arrays + [("dense3.weights", arrays[0].1)]
        #expect(throws: (any Error).self) { try ModelArrays.applying(extra, to: model) }
        var notANumber = arrays
        let bad = try MLMultiArray(shape: [10], dataType: .float32)
        bad[3] = NSNumber(value: Float.nan)
        notANumber[5].1.data = bad.npyData()
        let error = try #require(throws: FlowerClientError.self) { try ModelArrays.applying(notANumber, to: model) }
        #expect("\(error)".contains("dense2.bias"))
    }

    // MARK: The packed form

    /// The packed layout both sides agree on; digests by Python's hashlib.sha256 of these strings.
    @Test func theLayoutDigestNamesEveryArrayAndShapeInOrderAndAnotherOrderIsRefused() throws {
        let model = try SmallNetwork.model()
        let shapes = try ModelArrays.shapes(of: model)
        #expect(ModelArrays.layout(of: model, shapes: shapes)
            == "dense1.weights:24x784;dense1.bias:24;norm.gamma:24;norm.beta:24;dense2.weights:10x24;dense2.bias:10")
        let ours = "7e59a45793c1326dbda1915c390811fdf731d1ddc1223aee4681521056fbab30"
        #expect(ModelArrays.layoutDigest(of: model, shapes: shapes) == ours)
        let packed = try ModelArrays.packed(of: model)
        _ = try ModelArrays.applying(packed: packed, to: model, shapes: shapes, layout: ours)
        // gamma and beta swapped (both [24]): the sizes agree, the layout does not.
        let swapped = "533ec8a694dc9a4668032bb7ebcdc5b79dcac0f44ee99c2cb7908685fe89b9a9"
        let error = try #require(throws: FlowerClientError.self) {
            try ModelArrays.applying(packed: packed, to: model, shapes: shapes, layout: swapped)
        }
        #expect("\(error)".contains("config 'packed-layout' 533ec8a694dc9a46") && "\(error)".contains("norm.gamma:24, norm.beta:24"), "\(error)")
    }

    /// The app's table (`weights.py`, reading the `.mlmodel` with coremltools' protobuf classes) and
    /// this client's arrays give the same layout for models with a convolution, a batch norm and an
    /// LSTM with peepholes (built by `check_weights.py`'s coremltools builders).
    @Test(.enabled(if: LocalFederation.venv != nil))
    func theAppsTableHasTheClientsLayout() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("layout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let code = """
            import sys; sys.path.insert(0, sys.argv[1]); import check_weights as c
            from opencoreml_flower.weights import arrays_from_spec, layout, layout_digest
            for name, (spec, _) in [("convbn", c.conv_bn_dense_model()), ("lstm", c.lstm_model(True))]:
                for layer in spec.neuralNetworkClassifier.layers:  # Core ML wants an updatable batch norm's
                    if layer.WhichOneof("layer") == "batchnorm":   # mean and variance marked too
                        layer.batchnorm.mean.isUpdatable = layer.batchnorm.variance.isUpdatable = True
                path = f"{sys.argv[2]}/{name}.mlmodel"
                open(path, "wb").write(spec.SerializeToString())
                arrays = arrays_from_spec(spec)
                print("LAYOUT", path, layout(arrays), layout_digest(arrays), sep="\\t")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(LocalFederation.venv ?? "")/bin/python")
        process.arguments = ["-c", code, LocalFederation.appFolder.path, folder.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let rows = output.split(separator: "\n").filter { $0.hasPrefix("LAYOUT\t") }.map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.count == 2, "\(output)")
        for row in rows where row.count == 4 {
            let model = try MLModel(contentsOf: URL(fileURLWithPath: row[1]))
            let shapes = try ModelArrays.shapes(of: model)
            #expect(ModelArrays.layout(of: model, shapes: shapes) == row[2], "\(row[1])")
            #expect(ModelArrays.layoutDigest(of: model, shapes: shapes) == row[3], "\(row[1])")
        }
        #expect(rows.first?[2].contains("bn.gamma:2;bn.beta:2") == true && rows.last?[2].contains("lstm.outputGatePeepholeVector:2") == true)
    }

    @Test func packedIsEveryArrayRowMajorOneAfterAnotherInTableOrder() throws {
        let model = try SmallNetwork.model()
        let packed = try ModelArrays.packed(of: model)
        // 24·784 + 24 + 24 + 24 + 10·24 + 10 = 19,138 values.
        #expect(packed.shape == [19_138] && packed.dtype == "float32" && packed.stype == "numpy.ndarray")
        // The same values as the named arrays' .npy bodies, each read on its own, concatenated.
        var expected: [Float] = []
        for (_, array) in try ModelArrays.arrays(of: model) {
            expected += try NumPyArrays.multiArray(array.data).floatValues()
        }
        let values = try NumPyArrays.withFloat32Values(packed.data, count: 19_138) { Array($0) }
        #expect(values == expected)
        // The bytes are what numpy.save writes for a float32 vector: the header, then the values.
        #expect(packed.data.prefix(6) == Data([0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]))
        #expect(packed.data.count % 4 == 0 && packed.data.count == NumPyArrays.float32Header(shape: [19_138]).count + 4 * 19_138)
    }

    @Test func applyingPackedValuesSetsEveryArray() throws {
        let model = try SmallNetwork.model()
        let count = 19_138
        let changed = (0..<count).map { Float($0 % 97) / 64 - 0.75 }
        var packed = try ModelArrays.packed(of: model)
        packed.data = NumPyArrays.float32Header(shape: [count]) + changed.withUnsafeBytes { Data($0) }
        let updated = try ModelArrays.applying(packed: packed, to: model)
        // dense2.bias is the last 10 values; dense1.bias the 24 after dense1's 18,816 weights.
        let bias2 = try #require(try updated.parameterValue(for: .biases.scoped(to: "dense2")) as? MLMultiArray)
        #expect(bias2.floatValues() == Array(changed[(count - 10)...]))
        let bias1 = try #require(try updated.parameterValue(for: .biases.scoped(to: "dense1")) as? MLMultiArray)
        #expect(bias1.floatValues() == Array(changed[18_816..<18_840]))
        #expect(try ModelArrays.packed(of: updated).data == packed.data)
    }

    @Test func aPackedArrayOfTheWrongSizeOrWithNaNIsAnError() throws {
        let model = try SmallNetwork.model()
        var short = try ModelArrays.packed(of: model)
        short.shape = [19_137]
        #expect(throws: FlowerClientError.badInstruction("array 'packed' has shape [19137]; the model's 6 arrays hold 19138 values together (the app's run config `packed = false` sends the arrays named, so a mismatch names the array)")) {
            try ModelArrays.applying(packed: short, to: model)
        }
        var notANumber = try ModelArrays.packed(of: model)
        let last = notANumber.data.count - 4
        notANumber.data.replaceSubrange(last..<(last + 4), with: withUnsafeBytes(of: Float.nan.bitPattern.littleEndian) { Data($0) })
        let error = try #require(throws: FlowerClientError.self) { try ModelArrays.applying(packed: notANumber, to: model) }
        #expect("\(error)".contains("'packed'") && "\(error)".contains("value 19137 is nan"))
    }

    @Test func float32VectorsAreReadStraightFromNumpysBytesAndOtherLayoutsThroughTheReader() throws {
        let files = try FlowerFixtureTests.json("npy/manifest.json")["files"] as! [[String: Any]]
        // f4_7.npy: numpy.save's own header for float32 (7,): read from the bytes.
        let f4 = files.first { $0["file"] as! String == "f4_7.npy" }!
        let f4Bytes = try FlowerFixtureTests.data("npy/f4_7.npy")
        #expect(f4Bytes.prefix(NumPyArrays.float32Header(shape: [7]).count) == NumPyArrays.float32Header(shape: [7]))
        let values = try NumPyArrays.withFloat32Values(f4Bytes, count: 7) { Array($0) }
        #expect(values == (f4["values"] as! [Double]).map(Float.init))
        // f2_1d.npy: float16 (5,), through the general reader.
        let f2 = files.first { $0["file"] as! String == "f2_1d.npy" }!
        let halves = try NumPyArrays.withFloat32Values(try FlowerFixtureTests.data("npy/f2_1d.npy"), count: 5) { Array($0) }
        #expect(halves == (f2["values"] as! [Double]).map(Float.init))
        // The wrong count is an error.
        #expect(throws: (any Error).self) { try NumPyArrays.withFloat32Values(f4Bytes, count: 6) { Array($0) } }
    }
}
