// These tests use Core Video's names as OpenCoreML defines them where Core Video is missing.
#if !canImport(CoreVideo)
import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Sizes given to the API or read from a model: overflowing ones are errors (or nil), not traps.
struct HostileSizeAPITests {
    @Test func multiArraysWhoseSizesOverflowThrow() {
        for sizes: [Int] in [[1 << 40, 1 << 40], [1 << 61], [.max, 2], [1 << 21, 1 << 21, 1 << 21]] {
            let shape = sizes.map { NSNumber(value: $0) }
            let message = errorMessage { _ = try MLMultiArray(shape: shape, dataType: .float32) }
            #expect(message.contains("holds more elements than a 64-bit count can hold"), "\(sizes): \(message)")
        }
        var value: Float = 0
        withUnsafeMutablePointer(to: &value) { pointer in
            #expect(throws: MLModelError.self) {
                try MLMultiArray(dataPointer: pointer, shape: [1 << 40, 1 << 40].map { NSNumber(value: $0) }, dataType: .float32, strides: [1 << 40, 1].map { NSNumber(value: $0) })
            }
            // The same call with a shape that fits wraps the memory.
            let fits = try? MLMultiArray(dataPointer: pointer, shape: [1], dataType: .float32, strides: [1])
            #expect(fits?.count == 1)
        }
    }

    @Test func pixelBuffersWhoseByteCountOverflowsAreNil() {
        #expect(PixelBuffer(width: Int.max, height: 2, pixelFormatType: kCVPixelFormatType_32BGRA) == nil)
        #expect(PixelBuffer(width: 1 << 31, height: 1 << 31, pixelFormatType: kCVPixelFormatType_32BGRA) == nil)
        #expect(PixelBuffer(width: 2, height: 2, pixelFormatType: kCVPixelFormatType_32BGRA) != nil)
    }

    @Test(arguments: HostileModels.validationCases)
    func loadingAHostileModelThrows(_ hostile: HostileModels.Case) {
        let message = errorMessage { _ = try MLModel(specification: hostile.model) }
        #expect(message.contains(hostile.message), "\(message)")
    }

    @Test(arguments: HostileModels.compileCases)
    func predictingWithAHostileModelThrows(_ hostile: HostileModels.Case) throws {
        let model = try MLModel(specification: hostile.model)
        let x = try MLMultiArray(shape: [2, 4, 4], dataType: .float32)
        let message = errorMessage { _ = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x])) }
        #expect(message.contains(hostile.message), "\(message)")
    }
}
#endif
