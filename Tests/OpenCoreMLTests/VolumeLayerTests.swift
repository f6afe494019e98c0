import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// `convolution3d` and `pooling3d` (iOS 14) against direct loops written here.
@Suite("3-D convolution and pooling")
struct VolumeLayerTests {
    typealias Layer = CoreML_Specification_NeuralNetworkLayer

    static func predict(_ layer: Layer, input: [Int], values: [Float]) throws -> MLMultiArray {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 5
        model.description_p.input = [TestSpecs.array("x", input.map(Int64.init))]
        model.description_p.output = [TestSpecs.array("y", [])]
        model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
        model.neuralNetwork.layers = [layer]
        let x = try MLMultiArray(shape: input.map { NSNumber(value: $0) }, dataType: .float32)
        for (index, value) in values.enumerated() { x[index] = NSNumber(value: value) }
        return try #require(try MLModel(specification: model).prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
            .featureValue(for: "y")?.multiArrayValue)
    }

    /// The value at `[c, d, h, w]` of a `[C, D, H, W]` volume, zero outside it.
    static func at(_ v: [Float], _ size: [Int], _ c: Int, _ d: Int, _ h: Int, _ w: Int) -> Float? {
        guard (0..<size[1]).contains(d), (0..<size[2]).contains(h), (0..<size[3]).contains(w) else { return nil }
        return v[((c * size[1] + d) * size[2] + h) * size[3] + w]
    }

    @Test(arguments: [(groups: 1, stride: 1, padded: false), (groups: 2, stride: 2, padded: true)])
    func convolution3DMatchesDirectLoops(groups: Int, stride: Int, padded: Bool) throws {
        var random = TestRandom(seed: UInt64(7 + groups))
        let (cin, cout, size, k) = (4, 6, [4, 5, 6], 3)
        let x = random.floats(cin * size.reduce(1, *)), w = random.floats(cout * cin / groups * k * k * k), b = random.floats(cout)
        let pad = padded ? 1 : 0
        let layer = TestSpecs.layer("conv", ["x"], ["y"]) {
            $0.convolution3D.inputChannels = Int32(cin)
            $0.convolution3D.outputChannels = Int32(cout)
            $0.convolution3D.nGroups = Int32(groups)
            ($0.convolution3D.kernelDepth, $0.convolution3D.kernelHeight, $0.convolution3D.kernelWidth) = (3, 3, 3)
            ($0.convolution3D.strideDepth, $0.convolution3D.strideHeight, $0.convolution3D.strideWidth) = (Int32(stride), Int32(stride), Int32(stride))
            ($0.convolution3D.dilationDepth, $0.convolution3D.dilationHeight, $0.convolution3D.dilationWidth) = (1, 1, 1)
            $0.convolution3D.paddingType = .custom
            for keyPath in [\CoreML_Specification_Convolution3DLayerParams.customPaddingFront, \.customPaddingBack, \.customPaddingTop,
                            \.customPaddingBottom, \.customPaddingLeft, \.customPaddingRight] {
                $0.convolution3D[keyPath: keyPath] = Int32(pad)
            }
            $0.convolution3D.weights = TestSpecs.weights(w)
            $0.convolution3D.hasBias_p = true
            $0.convolution3D.bias = TestSpecs.weights(b)
        }
        let y = try Self.predict(layer, input: [1, cin] + size, values: x)
        let out = size.map { ($0 + 2 * pad - k) / stride + 1 }
        #expect(y.shape.map(\.intValue) == [1, cout] + out)
        let (perGroup, outPerGroup) = (cin / groups, cout / groups)
        var worst: Float = 0
        for o in 0..<cout {
            let g = o / outPerGroup
            for d in 0..<out[0] { for h in 0..<out[1] { for wi in 0..<out[2] {
                var sum = b[o]
                for i in 0..<perGroup { for kd in 0..<k { for kh in 0..<k { for kw in 0..<k {
                    guard let value = Self.at(x, [cin] + size, g * perGroup + i, d * stride + kd - pad, h * stride + kh - pad, wi * stride + kw - pad) else { continue }
                    sum += value * w[(((o * perGroup + i) * k + kd) * k + kh) * k + kw]
                } } } }
                let got = y[[0, o, d, h, wi].map { NSNumber(value: $0) }].floatValue
                worst = max(worst, abs(got - sum))
            } } }
        }
        #expect(worst < 1e-4)
    }

    @Test(arguments: [(max: true, exclude: false), (max: false, exclude: false), (max: false, exclude: true)])
    func pooling3DMatchesDirectLoops(max isMax: Bool, exclude: Bool) throws {
        var random = TestRandom(seed: 21)
        let (c, size) = (3, [5, 4, 6])
        let x = random.floats(c * size.reduce(1, *))
        let layer = TestSpecs.layer("pool", ["x"], ["y"]) {
            $0.pooling3D.type = isMax ? .max : .average
            ($0.pooling3D.kernelDepth, $0.pooling3D.kernelHeight, $0.pooling3D.kernelWidth) = (2, 3, 2)
            ($0.pooling3D.strideDepth, $0.pooling3D.strideHeight, $0.pooling3D.strideWidth) = (2, 1, 2)
            $0.pooling3D.paddingType = .custom
            ($0.pooling3D.customPaddingFront, $0.pooling3D.customPaddingBack) = (1, 0)
            ($0.pooling3D.customPaddingTop, $0.pooling3D.customPaddingBottom) = (1, 1)
            ($0.pooling3D.customPaddingLeft, $0.pooling3D.customPaddingRight) = (0, 1)
            $0.pooling3D.countExcludePadding = exclude
        }
        let y = try Self.predict(layer, input: [1, c] + size, values: x)
        let out = [(5 + 1 - 2) / 2 + 1, (4 + 2 - 3) / 1 + 1, (6 + 1 - 2) / 2 + 1]
        #expect(y.shape.map(\.intValue) == [1, c] + out)
        var worst: Float = 0
        for ch in 0..<c { for d in 0..<out[0] { for h in 0..<out[1] { for w in 0..<out[2] {
            var window: [Float] = []
            for kd in 0..<2 { for kh in 0..<3 { for kw in 0..<2 {
                if let v = Self.at(x, [c] + size, ch, d * 2 + kd - 1, h + kh - 1, w * 2 + kw) { window.append(v) }
            } } }
            let expected = isMax ? window.max()! : window.reduce(0, +) / Float(exclude ? window.count : 12)
            worst = Swift.max(worst, abs(y[[0, ch, d, h, w].map { NSNumber(value: $0) }].floatValue - expected))
        } } } }
        #expect(worst < 1e-5)
    }
}
