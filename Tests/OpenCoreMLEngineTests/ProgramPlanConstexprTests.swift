import CoreMLSpec
import Foundation
import Testing
@testable import _OpenCoreMLEngine

/// The constexpr operations on small hand-made weights (values worked out by hand from MIL's
/// definitions), their outputs feeding ordinary operations; and parameters that do not fit
/// together are errors naming the operation, never a crash or a read past a table.
@Suite("ML Program constexpr operations")
struct ProgramPlanConstexprTests {
    typealias Value = CoreML_Specification_MILSpec_Value
    typealias Program = ProgramPlanTests.Program

    /// A tensor value of `type` holding raw `bytes` (as weight files and immediate byte values do).
    static func bytes(_ bytes: [UInt8], _ type: CoreML_Specification_MILSpec_DataType, _ shape: [Int]) -> Value {
        var value = Value()
        value.type = Program.type(shape, type)
        value.immediateValue.tensor.bytes.values = Data(bytes)
        return value
    }

    static func floats(_ floats: [Float], _ shape: [Int]) -> Value {
        var value = Value()
        value.type = Program.type(shape)
        value.immediateValue.tensor.floats.values = floats
        return value
    }

    static func ints(_ ints: [Int32], _ shape: [Int]) -> Value {
        var value = Value()
        value.type = Program.type(shape, .int32)
        value.immediateValue.tensor.ints.values = ints
        return value
    }

    static func string(_ string: String) -> Value {
        var value = Value()
        value.type = Program.type([], .string)
        value.immediateValue.tensor.strings.values = [string]
        return value
    }

    /// A program computing `y = x + w`, where `w` is what constexpr operation `type` makes from
    /// `parameters` — attributes (iOS 16's form) or input values (iOS 18's).
    static func program(_ type: String, _ parameters: [String: Value], asAttributes: Bool, x shape: [Int],
                        extraOutputs: [String] = []) -> Program {
        var p = Program()
        p.input("x", shape)
        var operation = CoreML_Specification_MILSpec_Operation()
        operation.type = type
        for (name, value) in parameters {
            if asAttributes {
                operation.attributes[name] = value
            } else {
                var binding = CoreML_Specification_MILSpec_Argument.Binding()
                binding.value = value
                var argument = CoreML_Specification_MILSpec_Argument()
                argument.arguments = [binding]
                operation.inputs[name] = argument
            }
        }
        operation.outputs = (extraOutputs + ["w"]).map { name in
            var output = CoreML_Specification_MILSpec_NamedValueType()
            output.name = name
            return output
        }
        p.block.operations.append(operation)
        p.operation("add", ["x": ["x"], "y": ["w"]], output: "y")
        return p
    }

    /// `w` as the program computes it (x is zeros), or the error compiling it gives.
    static func weight(_ program: Program, shape: [Int]) -> Result<[Float], EngineError> {
        do {
            let plan = try program.plan(outputs: ["y"])
            let y = try plan.run(["x": MILTensor(shape: shape, values: [Float](repeating: 0, count: shape.reduce(1, *)))])["y"]!
            return .success(y.values)
        } catch let error as EngineError {
            return .failure(error)
        } catch {
            return .failure(EngineError("unexpected \(error)"))
        }
    }

    static func expect(_ result: Result<[Float], EngineError>, _ expected: [Float], _ comment: String) {
        switch result {
        case .success(let values): #expect(values == expected, "\(comment)")
        case .failure(let error): Issue.record("\(comment): \(error)")
        }
    }

    static func expectFailure(_ result: Result<[Float], EngineError>, _ expected: String, _ comment: String) {
        switch result {
        case .success(let values): Issue.record("\(comment): no error, values \(values)")
        case .failure(let error):
            #expect(error.description.contains(expected), "\(comment): \(error)")
            #expect(error.description.contains("(constexpr_"), "the error names the operation: \(error)")
        }
    }

    // MARK: iOS 16

    @Test func affineDequantizePerChannel() {
        // 2×3 int8 data, a scale and a uint8 zero point per row (axis 0).
        let program = Self.program("constexpr_affine_dequantize", [
            "quantized_data": Self.bytes([1, 2, 3, 0xFF, 0xFE, 0], .int8, [2, 3]),
            "scale": Self.floats([0.5, 2], [2]), "zero_point": Self.bytes([1, 0], .uint8, [2]), "axis": Self.ints([0], []),
        ], asAttributes: true, x: [2, 3])
        Self.expect(Self.weight(program, shape: [2, 3]), [0, 0.5, 1, -2, -4, 0], "per-row scale and zero point")
    }

    @Test func lutToDenseIOS16UnpacksIndicesLeastSignificantBitFirst() {
        // Five 2-bit indices 0, 3, 1, 2, 3: byte 0 = 0b10_01_11_00, byte 1 = 0b11.
        let program = Self.program("constexpr_lut_to_dense", [
            "indices": Self.bytes([0b1001_1100, 0b11], .uint8, [2]), "lut": Self.floats([10, 11, 12, 13], [4]),
            "shape": Self.bytes([5, 0, 0, 0], .uint32, [1]),
        ], asAttributes: true, x: [5])
        Self.expect(Self.weight(program, shape: [5]), [10, 13, 11, 12, 13], "2-bit indices")
    }

    @Test func sparseToDenseIOS16() {
        // Mask bits (LSB first) 0, 1, 1, 0, 1 for a 5-value tensor.
        let program = Self.program("constexpr_sparse_to_dense", [
            "nonzero_data": Self.floats([7, 8, 9], [3]), "mask": Self.bytes([0b10110], .uint8, [1]),
            "shape": Self.bytes([5, 0, 0, 0], .uint32, [1]),
        ], asAttributes: true, x: [5])
        Self.expect(Self.weight(program, shape: [5]), [0, 7, 8, 0, 9], "mask 0b10110")
    }

    @Test func castWidensFloat16() {
        // float16 1.5 (0x3E00) and -2 (0xC000).
        let program = Self.program("constexpr_cast", [
            "source_val": Self.bytes([0x00, 0x3E, 0x00, 0xC0], .float16, [2]), "output_dtype": Self.string("fp32"),
        ], asAttributes: true, x: [2])
        Self.expect(Self.weight(program, shape: [2]), [1.5, -2], "fp16 → fp32")
    }

    // MARK: iOS 18

    @Test func blockwiseShiftScaleWithInt4DataAndOffsets() {
        // 2×4 int4 data 1, -1, 2, -2 / 3, 0, -8, 7 (nibbles LSB first), blocks of 1×2.
        let program = Self.program("constexpr_blockwise_shift_scale", [
            "data": Self.bytes([0xF1, 0xE2, 0x03, 0x78], .int4, [2, 4]),
            "scale": Self.floats([1, 2, 0.5, 4], [2, 2]),
            "offset": Self.bytes([0x01, 0xF0], .int4, [2, 2]),
        ], asAttributes: false, x: [2, 4])
        // offsets 1, 0 / 0, -1.
        Self.expect(Self.weight(program, shape: [2, 4]), [0, -2, 4, -4, 1.5, 0, -28, 32], "int4 blocks")
    }

    @Test func lutToDensePerGroupWithUInt3Indices() {
        // 2×2 uint3 indices 1, 7 / 0, 5 (bits LSB first: 001 111 000 101), a LUT per row.
        let bits = [1, 7, 0, 5].enumerated().reduce(0) { $0 | $1.element << (3 * $1.offset) }
        let program = Self.program("constexpr_lut_to_dense", [
            "indices": Self.bytes([UInt8(bits & 0xFF), UInt8(bits >> 8)], .uint3, [2, 2]),
            "lut": Self.floats((0..<16).map(Float.init), [2, 1, 8, 1]),
        ], asAttributes: false, x: [2, 2])
        Self.expect(Self.weight(program, shape: [2, 2]), [1, 7, 8, 13], "a LUT per row")
    }

    @Test func lutToDenseWithVectors() {
        // 2×2 uint1 indices 0, 1 / 1, 1; two 2-value entries (a, b) filled along axis 0.
        let program = Self.program("constexpr_lut_to_dense", [
            "indices": Self.bytes([0b1110], .uint1, [2, 2]),
            "lut": Self.floats([1, 2, 3, 4], [1, 1, 2, 2]), "vector_axis": Self.ints([0], []),
        ], asAttributes: false, x: [4, 2])
        Self.expect(Self.weight(program, shape: [4, 2]), [1, 3, 2, 4, 3, 3, 4, 4], "vectors along axis 0")
    }

    @Test func lutToSparseThenSparseToDense() {
        var program = Self.program("constexpr_lut_to_sparse", [
            "indices_mask": Self.bytes([0b1001], .uint1, [4]), "indices_nonzero_data": Self.bytes([0b10], .uint1, [2]),
            "lut": Self.floats([5, 6], [1, 2, 1]),
        ], asAttributes: false, x: [4], extraOutputs: ["mask"])
        // Rename the LUT's outputs and decompress them with sparse_to_dense into `w`.
        program.block.operations[0].outputs[1].name = "values"
        program.block.operations.insert(Self.sparseToDense(), at: 1)
        Self.expect(Self.weight(program, shape: [4]), [5, 0, 0, 6], "indices 0 and 1 at positions 0 and 3")
    }

    @Test func sparseBlockwiseShiftScaleThenSparseToDense() {
        var program = Self.program("constexpr_sparse_blockwise_shift_scale", [
            "data_mask": Self.bytes([0b0110], .uint1, [2, 2]), "nonzero_data": Self.bytes([4, 0xFE], .int8, [2]),
            "scale": Self.floats([0.5, 3], [2, 1]),
        ], asAttributes: false, x: [2, 2], extraOutputs: ["mask"])
        program.block.operations[0].outputs[1].name = "values"
        program.block.operations.insert(Self.sparseToDense(), at: 1)
        Self.expect(Self.weight(program, shape: [2, 2]), [0, 2, -6, 0], "row scales 0.5 and 3")
    }

    static func sparseToDense() -> CoreML_Specification_MILSpec_Operation {
        var operation = CoreML_Specification_MILSpec_Operation()
        operation.type = "constexpr_sparse_to_dense"
        for (parameter, name) in [("mask", "mask"), ("nonzero_data", "values")] {
            var binding = CoreML_Specification_MILSpec_Argument.Binding()
            binding.name = name
            var argument = CoreML_Specification_MILSpec_Argument()
            argument.arguments = [binding]
            operation.inputs[parameter] = argument
        }
        var output = CoreML_Specification_MILSpec_NamedValueType()
        output.name = "w"
        operation.outputs = [output]
        return operation
    }

    // MARK: Parameters that do not fit

    @Test func hostileParametersAreErrorsNamingTheOperation() {
        let cases: [(String, [String: Value], Bool, [Int], String)] = [
            ("constexpr_lut_to_dense", ["indices": Self.bytes([0x07], .uint8, [1]), "lut": Self.floats([1, 2, 3, 4], [1, 4, 1])],
             false, [1], "outside 0..<4"),
            ("constexpr_lut_to_dense", ["indices": Self.bytes([0x0F], .uint8, [1]), "lut": Self.floats([1, 2, 3], [3]),
                                        "shape": Self.bytes([1, 0, 0, 0], .uint32, [1])], true, [1], "2, 4, 16, 64 or 256"),
            ("constexpr_lut_to_dense", ["indices": Self.bytes([0], .uint8, [1]), "lut": Self.floats([1, 2], [2]),
                                        "shape": Self.bytes([0, 0, 1, 0, 0, 0, 1, 0], .uint32, [2])], true, [1], "memory limit"),
            ("constexpr_lut_to_dense", ["indices": Self.bytes([0b01], .uint1, [2]), "lut": Self.floats([1, 2, 3, 4], [1, 2, 2])],
             false, [4], "needs 'vector_axis'"),
            ("constexpr_lut_to_dense", ["indices": Self.bytes([0b01], .uint1, [3]), "lut": Self.floats([1, 2, 3, 4], [2, 2, 1])],
             false, [3], "does not divide"),
            ("constexpr_sparse_to_dense", ["nonzero_data": Self.floats([1], [1]), "mask": Self.bytes([0b11], .uint8, [1]),
                                           "shape": Self.bytes([2, 0, 0, 0], .uint32, [1])], true, [2], "the mask sets 2 values"),
            ("constexpr_sparse_to_dense", ["nonzero_data": Self.floats([1], [1]), "mask": Self.bytes([1], .uint8, [1]),
                                           "shape": Self.bytes([9, 0, 0, 0], .uint32, [1])], true, [9], "needs 2"),
            ("constexpr_blockwise_shift_scale", ["data": Self.bytes([1, 2, 3], .int8, [3]), "scale": Self.floats([1, 2], [2])],
             false, [3], "does not divide"),
            ("constexpr_blockwise_shift_scale", ["data": Self.bytes([1, 2], .int8, [2]), "scale": Self.floats([1, 2], [1, 2])],
             false, [2], "rank 1"),
            ("constexpr_blockwise_shift_scale", ["data": Self.bytes([1, 2], .int8, [2]), "scale": Self.floats([1], [1]),
                                                 "offset": Self.floats([1, 2], [2])], false, [2], "must be equal"),
            ("constexpr_affine_dequantize", ["quantized_data": Self.bytes([1, 2], .int8, [2]), "scale": Self.floats([1, 2, 3], [3]),
                                             "zero_point": Self.bytes([0], .int8, []), "axis": Self.ints([0], [])], true, [2], "'scale' has shape [3]"),
            ("constexpr_affine_dequantize", ["quantized_data": Self.bytes([1, 2], .int8, [2]), "scale": Self.floats([1], []),
                                             "zero_point": Self.bytes([0], .int8, []), "axis": Self.ints([3], [])], true, [2], "out of range"),
            ("constexpr_cast", ["source_val": Self.bytes([0, 0x3C], .float16, [1]), "output_dtype": Self.string("fp16")],
             true, [1], "\"fp32\""),
            ("constexpr_blockwise_shift_scale", ["data": Self.bytes([1, 2, 3], .int4, [8]), "scale": Self.floats([1], [1])],
             false, [8], "3 bytes of int4 values; 8 values take 4"),
            ("constexpr_lut_to_sparse", ["indices_mask": Self.bytes([0b1], .uint1, [1]), "indices_nonzero_data": Self.bytes([0], .uint1, [2]),
                                         "lut": Self.floats([1, 2], [1, 2, 1])], false, [1], "the mask sets 1 values"),
            ("constexpr_unknown_thing", [:], false, [1], "not supported yet"),
        ]
        for (type, parameters, asAttributes, shape, expected) in cases {
            Self.expectFailure(Self.weight(Self.program(type, parameters, asAttributes: asAttributes, x: shape), shape: shape),
                               expected, "\(type) \(parameters.keys.sorted())")
        }
    }

    @Test func aParameterComputedWhileRunningIsAnError() {
        var p = Program()
        p.input("x", [2])
        p.constant("lut", floats: [1, 2], shape: [1, 2, 1])
        p.operation("constexpr_lut_to_dense", ["indices": ["x"], "lut": ["lut"]], output: "w")
        p.operation("add", ["x": ["x"], "y": ["w"]], output: "y")
        Self.expectFailure(Self.weight(p, shape: [2]), "reads 'x', which is not a constant", "indices from the input")
    }
}
