import COpenCoreML
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// The C interface's own checks of what a caller hands it (issue: hostile inputs, round 3): every
/// argument that cannot describe memory the caller owns — a rank past the limit, sizes below 1,
/// products or offsets that overflow, negative strides, misaligned data, unknown codes, NULL
/// pointers, strings that are not UTF-8, images whose row stride is short — is an
/// `OCM_ERROR_ARGUMENT` naming the feature, never a trap or a read; NaN and infinities are values.
@Suite("C interface: hostile inputs")
struct CHostileInputTests {
    /// Sets feature "x" and returns the status and the error's message ("" on success).
    static func setArray(_ dtype: ocm_dtype, _ rank: Int, _ shape: [Int64]?, _ strides: [Int64]?,
                         _ data: UnsafeMutableRawPointer?) -> (status: ocm_status, message: String) {
        let features = ocm_features_create()
        defer { ocm_features_free(features) }
        var error: OpaquePointer?
        let status = ocm_features_set_array(features, "x", dtype, rank, shape, strides, data, &error)
        defer { ocm_error_free(error) }
        return (status, error.map { String(cString: ocm_error_message($0)) } ?? "")
    }

    nonisolated(unsafe) static let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 12, alignment: 64)

    @Test func ranksOutsideOneToSixtyFourAreRefusedBeforeTheShapeIsRead() {
        // The shape holds 4 sizes; a rank of 2^40 would read far past it.
        let shape: [Int64] = [1, 1, 1, 1]
        for rank in [0, 65, 1 << 40, -1] {
            let result = Self.setArray(OCM_DTYPE_FLOAT32, rank, shape, nil, Self.buffer)
            #expect(result.status == OCM_ERROR_ARGUMENT)
            #expect(result.message.contains("'x'") && result.message.contains("rank"), "\(result.message)")
        }
        let full = [Int64](repeating: 1, count: 64)
        #expect(Self.setArray(OCM_DTYPE_FLOAT32, 64, full, nil, Self.buffer).status == OCM_OK)
    }

    @Test func sizesBelowOneAndProductsThatOverflowAreRefused() {
        for shape: [Int64] in [[0], [-1], [3, 0], [Int64.min, 1], [1 << 31, 1 << 31, 1 << 2], [Int64.max, 2]] {
            let result = Self.setArray(OCM_DTYPE_FLOAT32, shape.count, shape, nil, Self.buffer)
            #expect(result.status == OCM_ERROR_ARGUMENT, "\(shape)")
            #expect(result.message.contains("'x'"), "\(result.message)")
        }
    }

    @Test func stridesThatAreNegativeOrReachPastTheAddressSpaceAreRefused() {
        let shape: [Int64] = [4, 2]
        for strides: [Int64] in [[-1, 1], [2, -2], [Int64.max, 1], [1 << 61, 1], [Int64.max / 4, Int64.max / 4]] {
            let result = Self.setArray(OCM_DTYPE_FLOAT64, 2, shape, strides, Self.buffer)
            #expect(result.status == OCM_ERROR_ARGUMENT, "\(strides)")
        }
        // An address near the top of memory whose last element would wrap around.
        let top = UnsafeMutableRawPointer(bitPattern: UInt.max - 63)!
        #expect(Self.setArray(OCM_DTYPE_FLOAT32, 2, shape, [16, 1], top).status == OCM_ERROR_ARGUMENT)
        // Zero strides (one element repeated) and size-1 axes of any stride are in bounds.
        #expect(Self.setArray(OCM_DTYPE_FLOAT32, 2, shape, [0, 0], Self.buffer).status == OCM_OK)
        #expect(Self.setArray(OCM_DTYPE_FLOAT32, 2, [1, 2], [1 << 40, 1], Self.buffer).status == OCM_OK)
    }

    @Test func misalignedDataNullPointersAndUnknownCodesAreRefused() {
        let shape: [Int64] = [2]
        #expect(Self.setArray(OCM_DTYPE_FLOAT32, 1, shape, nil, Self.buffer + 2).status == OCM_ERROR_ARGUMENT)
        #expect(Self.setArray(OCM_DTYPE_FLOAT64, 1, shape, nil, Self.buffer + 4).message.contains("aligned"))
        #expect(Self.setArray(OCM_DTYPE_FLOAT16, 1, shape, nil, Self.buffer + 2).status == OCM_OK)
        #expect(Self.setArray(OCM_DTYPE_INT8, 1, shape, nil, Self.buffer + 3).status == OCM_OK)
        #expect(Self.setArray(OCM_DTYPE_FLOAT32, 1, nil, nil, Self.buffer).status == OCM_ERROR_ARGUMENT)
        #expect(Self.setArray(OCM_DTYPE_FLOAT32, 1, shape, nil, nil).status == OCM_ERROR_ARGUMENT)
        for code: UInt32 in [0, 1, 65601, 131072, UInt32.max] {
            #expect(Self.setArray(ocm_dtype(rawValue: code), 1, shape, nil, Self.buffer).status == OCM_ERROR_ARGUMENT)
        }
        let features = ocm_features_create()
        defer { ocm_features_free(features) }
        #expect(ocm_features_set_array(nil, "x", OCM_DTYPE_FLOAT32, 1, shape, nil, Self.buffer, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_array(features, nil, OCM_DTYPE_FLOAT32, 1, shape, nil, Self.buffer, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_int64(features, nil, 1, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_string(features, "s", nil, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_dictionary(features, "d", 1, nil, nil, nil, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_count(features) == 0)
    }

    @Test func stringsThatAreNotUTF8AreRefused() {
        let features = ocm_features_create()
        defer { ocm_features_free(features) }
        var error: OpaquePointer?
        let invalid: [CChar] = [0x61, CChar(bitPattern: 0xFF), 0]
        #expect(ocm_features_set_string(features, "s", invalid, &error) == OCM_ERROR_ARGUMENT)
        #expect(String(cString: ocm_error_message(error)).contains("'s'"))
        ocm_error_free(error)
        #expect(ocm_features_set_string(features, invalid, "text", nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_string(features, "s", "é😀", nil) == OCM_OK)
        let keys: [UnsafePointer<CChar>?] = invalid.withUnsafeBufferPointer { [UnsafePointer(strdup($0.baseAddress!))] }
        defer { free(UnsafeMutablePointer(mutating: keys[0])) }
        let values = [1.0]
        #expect(ocm_features_set_dictionary(features, "d", 1, keys, nil, values, nil) == OCM_ERROR_ARGUMENT)
    }

    @Test func imagesWhoseRowsCannotBeInTheCallersMemoryAreRefusedBeforeAllocating() {
        let features = ocm_features_create()
        defer { ocm_features_free(features) }
        let pixels = UnsafeRawPointer(Self.buffer)
        // A row stride shorter than a row, with a width that would need a terabyte: refused before
        // any pixel buffer is made.
        #expect(ocm_features_set_image(features, "i", OCM_PIXEL_GRAY8, 1 << 40, 1, 4, pixels, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_image(features, "i", OCM_PIXEL_RGBA8, 4, 4, 15, pixels, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_image(features, "i", OCM_PIXEL_RGBA8, 4, 1 << 62, 16, pixels, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_image(features, "i", OCM_PIXEL_RGBA8, 0, 4, 16, pixels, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_image(features, "i", OCM_PIXEL_RGBA8, 4, 4, 16, nil, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_image(features, "i", 0x12345678, 4, 4, 16, pixels, nil) == OCM_ERROR_ARGUMENT)
        let top = UnsafeRawPointer(bitPattern: UInt.max - 63)!
        #expect(ocm_features_set_image(features, "i", OCM_PIXEL_RGBA8, 4, 8, 16, top, nil) == OCM_ERROR_ARGUMENT)
        #expect(ocm_features_set_image(features, "i", OCM_PIXEL_RGBA8, 4, 4, 20, pixels, nil) == OCM_OK)
    }

    @Test func nanAndInfinitiesAreValuesThatReachTheModel() throws {
        // The diabetes imputer replaces NaN by each column's mean: the NaN must get there.
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/classic/imputer_mean_diabetes.mlmodel").path
        var error: OpaquePointer?
        let model = try #require(ocm_model_load(path, nil, 0, &error))
        defer { ocm_model_free(model) }
        let values: [Double] = [.nan, .infinity, -.infinity, 1, 2, 3, 4, 5, 6, 7]
        let input = UnsafeMutableBufferPointer<Double>.allocate(capacity: values.count)
        _ = input.initialize(from: values)
        defer { input.deallocate() }
        let inputs = ocm_features_create()
        defer { ocm_features_free(inputs) }
        let shape: [Int64] = [10]
        #expect(ocm_features_set_array(inputs, "input", OCM_DTYPE_FLOAT64, 1, shape, nil, input.baseAddress, nil) == OCM_OK)
        let outputs = try #require(ocm_model_predict(model, inputs, nil, &error))
        defer { ocm_features_free(outputs) }
        let name = try #require(ocm_features_name(outputs, 0))
        var dtype = OCM_DTYPE_FLOAT64
        var rank = 0
        var outShape: UnsafePointer<Int64>?
        var strides: UnsafePointer<Int64>?
        var data: UnsafeRawPointer?
        #expect(ocm_features_get_array(outputs, name, &dtype, &rank, &outShape, &strides, &data, nil) == OCM_OK)
        try #require(dtype == OCM_DTYPE_FLOAT64 && rank == 1)
        let step = Int(try #require(strides)[0])
        let output = try #require(data).assumingMemoryBound(to: Double.self)
        #expect(output[0].isFinite)  // imputed
        #expect(output[step] == .infinity && output[2 * step] == -.infinity)  // values, not missing
    }
}
