import Foundation
import OpenCoreML
import Testing

struct MultiArrayTests {
    @Test func tutorialStyleUse() throws {
        let image = try MLMultiArray(shape: [1, 28, 28], dataType: .float32)
        #expect(image.count == 784)
        #expect(image.strides.map(\.intValue) == [784, 28, 1])
        #expect(image[0].floatValue == 0)
        image[[0, 5, 6] as [NSNumber]] = 0.5
        #expect(image[5 * 28 + 6].floatValue == 0.5)
        image[783] = NSNumber(value: 2.25)
        image.withUnsafeBufferPointer(ofType: Float.self) { pixels, strides in
            #expect(pixels[783] == 2.25)
            #expect(strides == [784, 28, 1])
        }
        let label = try MLMultiArray(shape: [1], dataType: .int32)
        label[0] = 7
        #expect(label[0].intValue == 7)
        label[0] = 3.9  // stored as Int32, truncated like a C cast
        #expect(label[0].intValue == 3)
        // Values an Int32 cannot hold saturate instead of trapping; NaN becomes 0.
        label[0] = NSNumber(value: Double.infinity)
        #expect(label[0].intValue == Int(Int32.max))
        label[0] = NSNumber(value: -1e300)
        #expect(label[0].intValue == Int(Int32.min))
        label[0] = NSNumber(value: Double.nan)
        #expect(label[0].intValue == 0)
        #expect(throws: MLModelError.self) { try MLFeatureValue(dictionary: [AnyHashable(UInt64.max): 1]) }
    }

    @Test func invalidShapesThrow() {
        #expect(throws: MLModelError.self) { try MLMultiArray(shape: [], dataType: .double) }
        #expect(throws: MLModelError.self) { try MLMultiArray(shape: [3, 0], dataType: .double) }
        #expect(throws: MLModelError.self) { try MLMultiArray(shape: [2, -1], dataType: .float32) }
    }

    @Test func stridedMemory() throws {
        // A 2×3 view of a 2×4 buffer: every row skips one element.
        let storage = UnsafeMutablePointer<Double>.allocate(capacity: 8)
        for index in 0..<8 { storage[index] = Double(index) }
        let array = try MLMultiArray(
            dataPointer: storage, shape: [2, 3], dataType: .double, strides: [4, 1], deallocator: { $0.deallocate() })
        #expect(!array.isContiguous)
        #expect((0..<6).map { array[$0].doubleValue } == [0, 1, 2, 4, 5, 6])
        #expect(array[[1, 2] as [NSNumber]].doubleValue == 6)
    }

    @Test func halfPrecisionRoundTrips() throws {
        let array = try MLMultiArray(shape: [8], dataType: .float16)
        let values: [Double] = [0, 1, -2.5, 65504, 0x1p-14, 5.9604645e-8, 1e6, 0.1]
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        let read = (0..<8).map { array[$0].doubleValue }
        #expect(read[0] == 0 && read[1] == 1 && read[2] == -2.5 && read[3] == 65504)
        #expect(read[4] == 0x1p-14)  // smallest normal half
        #expect(abs(read[5] - 5.9604645e-8) < 1e-12)  // smallest subnormal half
        #expect(read[6] == .infinity)  // overflow
        #expect(abs(read[7] - 0.0999755859375) < 1e-12)  // nearest half to 0.1
        array.withUnsafeBufferPointer(ofType: UInt16.self) { bits, _ in
            #expect(bits[1] == 0x3C00)
            #expect(bits[3] == 0x7BFF)
        }
    }
}

struct FeatureValueTests {
    @Test func typesAndAccessors() throws {
        #expect(MLFeatureValue(int64: 4).type == .int64)
        #expect(MLFeatureValue(int64: 4).doubleValue == 4)
        #expect(MLFeatureValue(double: 2.5).int64Value == 2)
        #expect(MLFeatureValue(string: "✋").stringValue == "✋")
        #expect(MLFeatureValue(string: "x").int64Value == 0)
        #expect(MLFeatureValue(undefined: .string).isUndefined)
        let scores = try MLFeatureValue(dictionary: ["a": 0.25, "b": 0.75])
        #expect(scores.type == .dictionary)
        #expect(scores.dictionaryValue["b"]?.doubleValue == 0.75)
        let integerKeys = try MLFeatureValue(dictionary: [Int64(3): 0.5, Int64(5): 0.5])
        #expect(integerKeys.dictionaryValue[AnyHashable(Int64(5))]?.doubleValue == 0.5)
        #expect(throws: MLModelError.self) { try MLFeatureValue(dictionary: ["a": 1, AnyHashable(Int64(2)): 1]) }
    }

    @Test func dictionaryAndBatchProviders() throws {
        let image = try MLMultiArray(shape: [2], dataType: .float32)
        let example = try MLDictionaryFeatureProvider(dictionary: [
            "image": image, "label": "✌️", "index": 3, "weight": 0.5, "wrapped": MLFeatureValue(int64: 9),
        ])
        #expect(example.featureNames == ["image", "label", "index", "weight", "wrapped"])
        #expect(example["image"]?.multiArrayValue === image)
        #expect(example.featureValue(for: "label")?.stringValue == "✌️")
        #expect(example["index"]?.type == .int64)
        #expect(example["weight"]?.type == .double)
        #expect(example["wrapped"]?.int64Value == 9)
        #expect(throws: MLModelError.self) { try MLDictionaryFeatureProvider(dictionary: ["bad": [1, 2, 3]]) }

        let batch = MLArrayBatchProvider(array: [example, example])
        #expect(batch.count == 2)
        #expect(batch.features(at: 1).featureValue(for: "label")?.stringValue == "✌️")

        let columns = try MLArrayBatchProvider(dictionary: ["x": [1.0, 2.0, 3.0], "y": ["a", "b", "c"]])
        #expect(columns.count == 3)
        #expect(columns.features(at: 2).featureValue(for: "y")?.stringValue == "c")
        #expect(columns.features(at: 1).featureValue(for: "x")?.doubleValue == 2)
        #expect(throws: MLModelError.self) { try MLArrayBatchProvider(dictionary: ["x": [1, 2], "y": ["a"]]) }
    }
}
