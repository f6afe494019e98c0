// ML Program seeds: whole `.mlmodel` files whose program (and weights) are inline, each a few KB
// at most, so that FuzzModel's mutations start from programs that validate and run: a long chain
// of operations, `cond` and `while_loop` (nested too), the constexpr decompressions of iOS 16 and
// iOS 18 (alone and feeding each other), the shape operations with int64 parameters, and
// attention. MakeSeeds checks and prints each one's status like the neural network seeds.

import CoreMLSpec
import Foundation

typealias MILOperation = CoreML_Specification_MILSpec_Operation
typealias MILValue = CoreML_Specification_MILSpec_Value
typealias MILBlock = CoreML_Specification_MILSpec_Block
typealias MILDataType = CoreML_Specification_MILSpec_DataType

// MARK: Building blocks

enum MIL {
    static func type(_ shape: [Int], _ dataType: MILDataType = .float32) -> CoreML_Specification_MILSpec_ValueType {
        var type = CoreML_Specification_MILSpec_ValueType()
        type.tensorType.dataType = dataType
        type.tensorType.rank = Int64(shape.count)
        type.tensorType.dimensions = shape.map { size in
            var dimension = CoreML_Specification_MILSpec_Dimension()
            dimension.constant.size = UInt64(size)
            return dimension
        }
        return type
    }

    static func named(_ name: String, _ shape: [Int]? = nil, _ dataType: MILDataType = .float32) -> CoreML_Specification_MILSpec_NamedValueType {
        var value = CoreML_Specification_MILSpec_NamedValueType()
        value.name = name
        if let shape { value.type = type(shape, dataType) }
        return value
    }

    static func binding(_ names: [String]) -> CoreML_Specification_MILSpec_Argument {
        var argument = CoreML_Specification_MILSpec_Argument()
        argument.arguments = names.map { name in
            var binding = CoreML_Specification_MILSpec_Argument.Binding()
            binding.name = name
            return binding
        }
        return argument
    }

    static func binding(value: MILValue) -> CoreML_Specification_MILSpec_Argument {
        var binding = CoreML_Specification_MILSpec_Argument.Binding()
        binding.value = value
        var argument = CoreML_Specification_MILSpec_Argument()
        argument.arguments = [binding]
        return argument
    }

    /// An operation reading named values (`inputs`: parameter → names) and writing `outputs`.
    static func op(_ type: String, _ inputs: [String: [String]], _ outputs: [String], values: [String: MILValue] = [:],
                   blocks: [MILBlock] = []) -> MILOperation {
        var operation = MILOperation()
        operation.type = type
        for (parameter, names) in inputs { operation.inputs[parameter] = binding(names) }
        for (parameter, value) in values { operation.inputs[parameter] = binding(value: value) }
        operation.outputs = outputs.map { named($0) }
        operation.blocks = blocks
        return operation
    }

    static func op(_ type: String, _ inputs: [String: String], _ output: String, values: [String: MILValue] = [:]) -> MILOperation {
        op(type, inputs.mapValues { [$0] }, [output], values: values)
    }

    /// A `const` (its output typed like the value).
    static func const(_ name: String, _ value: MILValue) -> MILOperation {
        var operation = MILOperation()
        operation.type = "const"
        operation.attributes["val"] = value
        operation.outputs = [CoreML_Specification_MILSpec_NamedValueType.with { $0.name = name; $0.type = value.type }]
        return operation
    }

    static func floats(_ values: [Float], _ shape: [Int]) -> MILValue {
        var value = MILValue()
        value.type = type(shape)
        value.immediateValue.tensor.floats.values = values
        return value
    }

    static func longs(_ values: [Int64], _ shape: [Int]? = nil) -> MILValue {
        var value = MILValue()
        value.type = type(shape ?? [values.count], .int64)
        value.immediateValue.tensor.longInts.values = values
        return value
    }

    static func ints(_ values: [Int32], _ shape: [Int]? = nil) -> MILValue {
        var value = MILValue()
        value.type = type(shape ?? [values.count], .int32)
        value.immediateValue.tensor.ints.values = values
        return value
    }

    static func bools(_ values: [Bool], _ shape: [Int]? = nil) -> MILValue {
        var value = MILValue()
        value.type = type(shape ?? [values.count], .bool)
        value.immediateValue.tensor.bools.values = values
        return value
    }

    static func string(_ string: String) -> MILValue {
        var value = MILValue()
        value.type = type([], .string)
        value.immediateValue.tensor.strings.values = [string]
        return value
    }

    /// Raw bytes of a packed or narrow type (int4, uint3, uint1, int8, uint8, uint32, float16 …).
    static func bytes(_ bytes: [UInt8], _ dataType: MILDataType, _ shape: [Int]) -> MILValue {
        var value = MILValue()
        value.type = type(shape, dataType)
        value.immediateValue.tensor.bytes.values = Data(bytes)
        return value
    }

    static func block(inputs: [CoreML_Specification_MILSpec_NamedValueType] = [], _ operations: [MILOperation],
                      outputs: [String]) -> MILBlock {
        var block = MILBlock()
        block.inputs = inputs
        block.operations = operations
        block.outputs = outputs
        return block
    }

    /// A model whose `main` takes float32 `inputs` and returns float32 `outputs` (name, shape).
    static func model(inputs: [(String, [Int])], outputs: [(String, [Int])], _ operations: [MILOperation],
                      opset: String = "CoreML5", version: Int32 = 6) -> Spec {
        var main = CoreML_Specification_MILSpec_Function()
        main.inputs = inputs.map { named($0.0, $0.1) }
        main.opset = opset
        main.blockSpecializations[opset] = block(operations, outputs: outputs.map(\.0))
        var program = CoreML_Specification_MILSpec_Program()
        program.version = 1
        program.functions["main"] = main
        var spec = Spec()
        spec.specificationVersion = version
        spec.mlProgram = program
        spec.description_p.input = inputs.map { feature($0.0, arrayType($0.1.map(Int64.init))) }
        spec.description_p.output = outputs.map { feature($0.0, arrayType($0.1.map(Int64.init))) }
        return spec
    }

    /// One input `x` of `shape` and one output `y` of `outShape`.
    static func model(_ shape: [Int], _ outShape: [Int], _ operations: [MILOperation], opset: String = "CoreML5",
                      version: Int32 = 6) -> Spec {
        model(inputs: [("x", shape)], outputs: [("y", outShape)], operations, opset: opset, version: version)
    }
}

// MARK: The programs

func programModels() -> [(String, Spec)] {
    var out: [(String, Spec)] = []
    func add(_ name: String, _ spec: Spec) { out.append(("mil-" + name, spec)) }
    typealias M = MIL

    // A long chain: 250 elementwise operations on x, cycling through unary and binary kinds (the
    // binary ones with a shared constant), the last one writing y; about 9 KB.
    do {
        var operations = [M.const("c", M.floats([0.5], [])), M.const("low", M.floats([-0.5], []))]
        let kinds = ["relu", "tanh", "add", "sigmoid", "mul", "abs", "sub", "square", "clip", "identity", "maximum", "minimum"]
        let count = 250
        for index in 0..<count {
            let input = index == 0 ? "x" : "v\(index - 1)", output = index == count - 1 ? "y" : "v\(index)"
            let kind = kinds[index % kinds.count]
            switch kind {
            case "add", "mul", "sub", "maximum", "minimum": operations.append(M.op(kind, ["x": input, "y": "c"], output))
            case "clip": operations.append(M.op(kind, ["x": input, "alpha": "low", "beta": "c"], output))
            default: operations.append(M.op(kind, ["x": input], output))
            }
        }
        add("chain-250", M.model([4], [4], operations))
    }

    // cond: y = relu(x) if sum(x) < 1, else tanh(x).
    func condition(_ x: String, _ limit: String, _ pred: String) -> [MILOperation] {
        [M.op("reduce_sum", ["x": x], "\(pred)_sum"), M.op("less", ["x": "\(pred)_sum", "y": limit], pred)]
    }
    add("cond", M.model([4], [4], [M.const("one", M.floats([1], []))] + condition("x", "one", "p") + [
        M.op("cond", ["pred": ["p"]], ["y"], blocks: [
            M.block([M.op("relu", ["x": "x"], "t")], outputs: ["t"]),
            M.block([M.op("tanh", ["x": "x"], "f")], outputs: ["f"]),
        ]),
    ]))
    // A cond in each branch of a cond, and a boolean constant as a predicate.
    add("cond-nested", M.model([4], [4], [M.const("one", M.floats([1], [])), M.const("yes", M.bools([true], []))]
        + condition("x", "one", "p") + [
            M.op("cond", ["pred": ["p"]], ["y"], blocks: [
                M.block([M.op("cond", ["pred": ["yes"]], ["inner_t"], blocks: [
                    M.block([M.op("sigmoid", ["x": "x"], "a")], outputs: ["a"]),
                    M.block([M.op("relu", ["x": "x"], "b")], outputs: ["b"]),
                ])], outputs: ["inner_t"]),
                M.block(condition("x", "one", "q") + [M.op("cond", ["pred": ["q"]], ["inner_f"], blocks: [
                    M.block([M.op("mul", ["x": "x", "y": "one"], "c")], outputs: ["c"]),
                    M.block([M.op("add", ["x": "x", "y": "one"], "d")], outputs: ["d"]),
                ])], outputs: ["inner_f"]),
            ]),
        ]))

    // while_loop: (i, acc) = (0, x); while i < 3: (i + 1, acc * 0.5 + 1); y = acc.
    func loop(_ start: String, _ value: String, _ limit: String, _ suffix: String, body extra: [MILOperation] = [],
              bodyValue: String? = nil) -> MILOperation {
        M.op("while_loop", ["loop_vars": [start, value]], ["n\(suffix)", "out\(suffix)"], blocks: [
            M.block(inputs: [M.named("ci\(suffix)"), M.named("cv\(suffix)")],
                    [M.op("less", ["x": "ci\(suffix)", "y": limit], "go\(suffix)")], outputs: ["go\(suffix)"]),
            M.block(inputs: [M.named("bi\(suffix)"), M.named("bv\(suffix)")], [
                M.op("add", ["x": "bi\(suffix)", "y": "one"], "ni\(suffix)"),
                M.op("mul", ["x": "bv\(suffix)", "y": "half"], "h\(suffix)"),
                M.op("add", ["x": "h\(suffix)", "y": "one"], "nv\(suffix)"),
            ] + extra, outputs: ["ni\(suffix)", bodyValue ?? "nv\(suffix)"]),
        ])
    }
    let loopConstants = [M.const("zero", M.floats([0], [])), M.const("one", M.floats([1], [])),
                         M.const("half", M.floats([0.5], [])), M.const("three", M.floats([3], []))]
    add("while-loop", M.model([4], [4], loopConstants + [loop("zero", "x", "three", "")] + [
        M.op("identity", ["x": "out"], "y"),
    ]))
    // A while_loop in a while_loop's body, and a cond in the inner body.
    add("while-loop-nested", M.model([4], [4], loopConstants + [
        loop("zero", "x", "three", "_outer", body: [
            loop("zero", "nv_outer", "three", "_inner", body: condition("nv_inner", "three", "p") + [
                M.op("cond", ["pred": ["p"]], ["chosen"], blocks: [
                    M.block([M.op("relu", ["x": "nv_inner"], "r")], outputs: ["r"]),
                    M.block([M.op("tanh", ["x": "nv_inner"], "t")], outputs: ["t"]),
                ]),
            ], bodyValue: "chosen"),
        ], bodyValue: "out_inner"),
        M.op("identity", ["x": "out_outer"], "y"),
    ]))

    // iOS 16 constexpr operations (parameters as attributes), each weight added to x, and an iOS 16
    // LUT feeding an iOS 16 sparse_to_dense.
    func constexpr(_ type: String, attributes: [String: MILValue] = [:], inputs: [String: MILValue] = [:],
                   names: [String: String] = [:], _ outputs: [String]) -> MILOperation {
        var operation = M.op(type, names.mapValues { [$0] }, outputs, values: inputs)
        for (name, value) in attributes { operation.attributes[name] = value }
        return operation
    }
    add("constexpr-ios16", M.model([2, 3], [2, 3], [
        constexpr("constexpr_affine_dequantize", attributes: [
            "quantized_data": M.bytes([1, 2, 3, 0xFF, 0xFE, 0], .int8, [2, 3]), "scale": M.floats([0.5, 2], [2]),
            "zero_point": M.bytes([1, 0], .uint8, [2]), "axis": M.ints([0], []),
        ], ["wq"]),
        // Six 2-bit indices, least significant bits first.
        constexpr("constexpr_lut_to_dense", attributes: [
            "indices": M.bytes([0b1001_1100, 0b0111], .uint8, [2]), "lut": M.floats([10, 11, 12, 13], [4]),
            "shape": M.bytes([2, 0, 0, 0, 3, 0, 0, 0], .uint32, [2]),
        ], ["wl"]),
        constexpr("constexpr_sparse_to_dense", attributes: [
            "nonzero_data": M.floats([7, 8, 9], [3]), "mask": M.bytes([0b10_0110], .uint8, [1]),
            "shape": M.bytes([2, 0, 0, 0, 3, 0, 0, 0], .uint32, [2]),
        ], ["ws"]),
        constexpr("constexpr_cast", attributes: [
            "source_val": M.bytes([0x00, 0x3E, 0x00, 0xC0, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x40, 0x00, 0xBC], .float16, [2, 3]),
            "output_dtype": M.string("fp32"),
        ], ["wc"]),
        // A LUT's three values as the non-zero values of a sparse tensor.
        constexpr("constexpr_lut_to_dense", attributes: [
            "indices": M.bytes([0b10_01_11], .uint8, [1]), "lut": M.floats([-1, 0.5, 2, 4], [4]),
            "shape": M.bytes([3, 0, 0, 0], .uint32, [1]),
        ], ["lnz"]),
        constexpr("constexpr_sparse_to_dense", attributes: [
            "mask": M.bytes([0b01_0101], .uint8, [1]), "shape": M.bytes([2, 0, 0, 0, 3, 0, 0, 0], .uint32, [2]),
        ], names: ["nonzero_data": "lnz"], ["wls"]),
        M.op("add", ["x": "x", "y": "wq"], "a"), M.op("add", ["x": "a", "y": "wl"], "b"),
        M.op("add", ["x": "b", "y": "ws"], "c"), M.op("add", ["x": "c", "y": "wc"], "d"), M.op("add", ["x": "d", "y": "wls"], "y"),
    ], opset: "CoreML6", version: 7))

    // iOS 18: block-wise int4 data with offsets, a uint3 LUT per row, vector LUTs.
    add("constexpr-ios18", M.model([2, 4], [2, 4], [
        constexpr("constexpr_blockwise_shift_scale", inputs: [
            "data": M.bytes([0xF1, 0xE2, 0x03, 0x78], .int4, [2, 4]), "scale": M.floats([1, 2, 0.5, 4], [2, 2]),
            "offset": M.bytes([0x01, 0xF0], .int4, [2, 2]),
        ], ["wb"]),
        // 2×4 uint3 indices, a LUT of 8 per row.
        constexpr("constexpr_lut_to_dense", inputs: [
            "indices": M.bytes([0b1100_1001, 0b0101_1100, 0b1010_0011], .uint3, [2, 4]),
            "lut": M.floats((0..<16).map(Float.init), [2, 1, 8, 1]),
        ], ["wl"]),
        // uint1 indices of 2-value vectors along axis 0: a [4, 2] weight, reshaped to [2, 4].
        constexpr("constexpr_lut_to_dense", inputs: [
            "indices": M.bytes([0b1110], .uint1, [2, 2]), "lut": M.floats([1, 2, 3, 4], [1, 1, 2, 2]),
            "vector_axis": M.ints([0], []),
        ], ["wv"]),
        M.const("shape", M.longs([2, 4])),
        M.op("reshape", ["x": "wv", "shape": "shape"], "wr"),
        M.op("add", ["x": "x", "y": "wb"], "a"), M.op("add", ["x": "a", "y": "wl"], "b"), M.op("add", ["x": "b", "y": "wr"], "y"),
    ], opset: "CoreML8", version: 9))

    // iOS 18 chains: a LUT's output as a sparse tensor's non-zero values; lut_to_sparse and
    // sparse_blockwise_shift_scale into sparse_to_dense; a blockwise_shift_scale of a cast.
    add("constexpr-chains", M.model([2, 4], [2, 4], [
        // Five values from 2-bit indices, scattered by a uint1 mask (bits LSB first) over 2×4.
        constexpr("constexpr_lut_to_dense", inputs: [
            "indices": M.bytes([0b1001_1100, 0b11], .uint2, [5]), "lut": M.floats([10, 11, 12, 13], [1, 4, 1]),
        ], ["nz"]),
        M.const("mask", M.bytes([0b1011_0101], .uint1, [2, 4])),
        constexpr("constexpr_sparse_to_dense", names: ["nonzero_data": "nz", "mask": "mask"], ["w1"]),
        constexpr("constexpr_lut_to_sparse", inputs: [
            "indices_mask": M.bytes([0b1001_0001], .uint1, [2, 4]), "indices_nonzero_data": M.bytes([0b110], .uint1, [3]),
            "lut": M.floats([5, 6], [1, 1, 2, 1]),
        ], ["m2", "v2"]),
        constexpr("constexpr_sparse_to_dense", names: ["nonzero_data": "v2", "mask": "m2"], ["w2"]),
        constexpr("constexpr_sparse_blockwise_shift_scale", inputs: [
            "data_mask": M.bytes([0b0110_0110], .uint1, [2, 4]), "nonzero_data": M.bytes([4, 0xFE, 3, 1], .int8, [4]),
            "scale": M.floats([0.5, 3], [2, 1]),
        ], ["m3", "v3"]),
        constexpr("constexpr_sparse_to_dense", names: ["nonzero_data": "v3", "mask": "m3"], ["w3"]),
        M.op("add", ["x": "x", "y": "w1"], "a"), M.op("add", ["x": "a", "y": "w2"], "b"), M.op("add", ["x": "b", "y": "w3"], "y"),
    ], opset: "CoreML8", version: 9))

    // Shape operations with int64 parameters (the fuzzer's integer extremes go here).
    add("fill", M.model([4], [2, 4], [
        M.const("shape", M.longs([2, 4])), M.const("v", M.floats([0.25], [])),
        M.op("fill", ["shape": "shape", "value": "v"], "f"), M.op("add", ["x": "x", "y": "f"], "y"),
    ]))
    add("tile", M.model([2, 3], [4, 9], [M.const("reps", M.longs([2, 3])), M.op("tile", ["x": "x", "reps": "reps"], "y")]))
    add("reshape", M.model([2, 3, 4], [4, 6], [M.const("shape", M.longs([4, -1])), M.op("reshape", ["x": "x", "shape": "shape"], "y")]))
    add("slice-by-index", M.model([4, 6], [2, 3], [
        M.const("begin", M.longs([1, -1])), M.const("end", M.longs([3, 0])), M.const("stride", M.longs([1, -2])),
        M.const("begin_mask", M.bools([false, false])), M.const("end_mask", M.bools([false, false])),
        M.const("squeeze_mask", M.bools([false, false])),
        M.op("slice_by_index", ["x": "x", "begin": "begin", "end": "end", "stride": "stride", "begin_mask": "begin_mask",
                                "end_mask": "end_mask", "squeeze_mask": "squeeze_mask"], "y"),
    ]))
    add("slice-by-size", M.model([4, 6], [2, 6], [
        M.const("begin", M.longs([1, 0])), M.const("size", M.longs([2, -1])),
        M.op("slice_by_size", ["x": "x", "begin": "begin", "size": "size"], "y"),
    ]))
    add("gather", M.model([5, 3], [4, 3], [
        M.const("indices", M.longs([4, 0, -1, 2])), M.const("axis", M.longs([0], [])),
        M.op("gather", ["x": "x", "indices": "indices", "axis": "axis"], "y"),
    ]))
    add("gather-along-axis", M.model([3, 4], [3, 2], [
        M.const("indices", M.longs([0, 3, 1, 1, 2, 0], [3, 2])), M.const("axis", M.longs([1], [])),
        M.op("gather_along_axis", ["x": "x", "indices": "indices", "axis": "axis"], "y"),
    ]))
    add("concat", M.model([2, 3], [2, 7], [
        M.const("k", M.floats([1, 2, 3, 4, 5, 6, 7, 8], [2, 4])), M.const("axis", M.longs([-1], [])),
        M.const("interleave", M.bools([false], [])),
        M.op("concat", ["values": ["x", "k"], "axis": ["axis"], "interleave": ["interleave"]], ["y"]),
    ]))
    for mode in ["constant", "reflect", "replicate"] {
        add("pad-\(mode)", M.model([3, 4], [5, 7], [
            M.const("pad", M.longs([1, 1, 2, 1])), M.const("mode", M.string(mode)), M.const("value", M.floats([0.5], [])),
            M.op("pad", ["x": "x", "pad": "pad", "mode": "mode", "constant_val": "value"], "y"),
        ]))
    }
    // range_1d from float constants (0, 1, 2, 3) added to x: its start, end and step are where
    // the dictionary's float extremes go.
    add("range-1d", M.model([4], [4], [
        M.const("start", M.floats([0], [])), M.const("end", M.floats([4], [])), M.const("step", M.floats([1], [])),
        M.op("range_1d", ["start": "start", "end": "end", "step": "step"], "r"), M.op("add", ["x": "x", "y": "r"], "y"),
    ]))
    // Computed integer parameters: shape(x) into fill, and into tile's reps after a cast.
    add("shape-computed", M.model([2, 3], [2, 3], [
        M.op("shape", ["x": "x"], "s"), M.const("v", M.floats([2], [])),
        M.op("fill", ["shape": "s", "value": "v"], "f"), M.op("mul", ["x": "x", "y": "f"], "y"),
    ]))

    // Attention: q, k, v from x by matmul with constants, scaled dot-product attention with a
    // mask, then a transposed matmul, a softmax and a linear layer.
    let e = 4
    add("attention", M.model([1, 3, 4], [1, 3, 2], [
        M.const("wq", M.floats((0..<(e * e)).map { Float(($0 * 7) % 11 - 5) * 0.1 }, [e, e])),
        M.const("wk", M.floats((0..<(e * e)).map { Float(($0 * 5) % 9 - 4) * 0.1 }, [e, e])),
        M.const("wv", M.floats((0..<(e * e)).map { Float(($0 * 3) % 7 - 3) * 0.1 }, [e, e])),
        M.const("mask", M.floats([0, -1e4, -1e4, 0, 0, -1e4, 0, 0, 0], [1, 3, 3])),
        M.const("false", M.bools([false], [])), M.const("true", M.bools([true], [])),
        M.op("matmul", ["x": "x", "y": "wq", "transpose_x": "false", "transpose_y": "false"], "q"),
        M.op("matmul", ["x": "x", "y": "wk", "transpose_x": "false", "transpose_y": "true"], "k"),
        M.op("matmul", ["x": "x", "y": "wv"], "v"),
        M.op("scaled_dot_product_attention", ["query": "q", "key": "k", "value": "v", "attn_mask": "mask"], "att"),
        M.op("matmul", ["x": "att", "y": "x", "transpose_x": "false", "transpose_y": "true"], "scores"),
        M.const("axis", M.longs([-1], [])),
        M.op("softmax", ["x": "scores", "axis": "axis"], "p"),
        M.const("lw", M.floats([0.5, -0.5, 1, 0, 0, 1], [2, 3])), M.const("lb", M.floats([0.1, -0.1], [2])),
        M.op("linear", ["x": "p", "weight": "lw", "bias": "lb"], "y"),
    ]))
    return out
}
