import CoreMLSpec
import Testing
import _OpenCoreMLTestSupport
@testable import _OpenCoreMLEngine

/// The ML Program interpreter's operations on small hand-built programs, against values worked
/// out by hand (the coremltools fixtures cover linear, conv, pooling and softmax end to end).
@Suite("ML Program operations")
struct ProgramPlanTests {
    typealias Value = CoreML_Specification_MILSpec_Value

    /// A small program builder: constants and operations appended to `main`'s body.
    struct Program {
        var block = CoreML_Specification_MILSpec_Block()
        var inputs: [CoreML_Specification_MILSpec_NamedValueType] = []

        static func type(_ shape: [Int], _ dataType: CoreML_Specification_MILSpec_DataType = .float32) -> CoreML_Specification_MILSpec_ValueType {
            HostilePrograms.tensorType(shape, dataType)
        }

        mutating func input(_ name: String, _ shape: [Int], _ dataType: CoreML_Specification_MILSpec_DataType = .float32) {
            var input = CoreML_Specification_MILSpec_NamedValueType()
            input.name = name
            input.type = Self.type(shape, dataType)
            inputs.append(input)
        }

        mutating func constant(_ name: String, floats: [Float] = [], ints: [Int32] = [], string: String? = nil, shape: [Int]) {
            var value = Value()
            if let string {
                value.type = Self.type(shape, .string)
                value.immediateValue.tensor.strings.values = [string]
            } else if !ints.isEmpty {
                value.type = Self.type(shape, .int32)
                value.immediateValue.tensor.ints.values = ints
            } else {
                value.type = Self.type(shape)
                value.immediateValue.tensor.floats.values = floats
            }
            var operation = CoreML_Specification_MILSpec_Operation()
            operation.type = "const"
            operation.attributes["val"] = value
            var output = CoreML_Specification_MILSpec_NamedValueType()
            output.name = name
            output.type = value.type
            operation.outputs = [output]
            block.operations.append(operation)
        }

        mutating func operation(_ type: String, _ inputs: [String: [String]], output name: String) {
            operation(type, inputs, outputs: [name])
        }

        mutating func operation(_ type: String, _ inputs: [String: [String]], outputs names: [String]) {
            var operation = CoreML_Specification_MILSpec_Operation()
            operation.type = type
            for (parameter, names) in inputs {
                var argument = CoreML_Specification_MILSpec_Argument()
                argument.arguments = names.map { name in
                    var binding = CoreML_Specification_MILSpec_Argument.Binding()
                    binding.name = name
                    return binding
                }
                operation.inputs[parameter] = argument
            }
            operation.outputs = names.map { name in
                var output = CoreML_Specification_MILSpec_NamedValueType()
                output.name = name
                return output
            }
            block.operations.append(operation)
        }

        /// A program whose `main` is this block, yielding `outputs`.
        func specification(outputs: [String]) -> CoreML_Specification_MILSpec_Program {
            var program = CoreML_Specification_MILSpec_Program()
            var function = CoreML_Specification_MILSpec_Function()
            function.inputs = inputs
            function.opset = "CoreML5"
            var body = block
            body.outputs = outputs
            function.blockSpecializations["CoreML5"] = body
            program.functions["main"] = function
            return program
        }

        func plan(outputs: [String]) throws -> ProgramPlan {
            try ProgramPlan(program: specification(outputs: outputs), memoryLimit: 1 << 30)
        }
    }

    @Test func broadcastingArithmeticClipAndActivations() throws {
        var p = Program()
        p.input("x", [2, 3])
        p.constant("row", floats: [10, 20, 30], shape: [3])
        p.constant("column", floats: [1, 2], shape: [2, 1])
        p.constant("low", floats: [-1], shape: [])
        p.constant("high", floats: [25], shape: [])
        p.operation("add", ["x": ["x"], "y": ["row"]], output: "sum")            // [[10,21,32],[13,24,35]]
        p.operation("mul", ["x": ["sum"], "y": ["column"]], output: "scaled")     // [[10,21,32],[26,48,70]]
        p.operation("clip", ["x": ["scaled"], "alpha": ["low"], "beta": ["high"]], output: "clipped")
        p.operation("sub", ["x": ["x"], "y": ["column"]], output: "less")         // [[-1,0,1],[1,2,3]]
        p.operation("relu", ["x": ["less"]], output: "positive")
        p.operation("maximum", ["x": ["less"], "y": ["low"]], output: "floor")
        let plan = try p.plan(outputs: ["clipped", "positive", "floor"])
        let result = try plan.run(["x": MILTensor(shape: [2, 3], values: [0, 1, 2, 3, 4, 5])])
        #expect(result["clipped"] == MILTensor(shape: [2, 3], values: [10, 21, 25, 25, 25, 25]))
        #expect(result["positive"] == MILTensor(shape: [2, 3], values: [0, 0, 1, 1, 2, 3]))
        #expect(result["floor"] == MILTensor(shape: [2, 3], values: [-1, 0, 1, 1, 2, 3]))
    }

    @Test func shapeOperationsAndMatmul() throws {
        var p = Program()
        p.input("x", [2, 3])
        p.constant("perm", ints: [1, 0], shape: [2])
        p.constant("axes", ints: [0], shape: [1])
        p.constant("axis", ints: [0], shape: [])
        p.constant("shape", ints: [3, -1], shape: [2])
        p.operation("transpose", ["x": ["x"], "perm": ["perm"]], output: "t")              // [[0,3],[1,4],[2,5]]
        p.operation("expand_dims", ["x": ["t"], "axes": ["axes"]], output: "e")            // [1,3,2]
        p.operation("squeeze", ["x": ["e"], "axes": ["axes"]], output: "s")                // [3,2]
        p.operation("concat", ["values": ["s", "t"], "axis": ["axis"]], output: "c")        // [6,2]
        p.operation("matmul", ["x": ["x"], "y": ["t"]], output: "gram")                    // x·xᵀ
        p.operation("reshape", ["x": ["x"], "shape": ["shape"]], output: "r")              // [3,2]
        let plan = try p.plan(outputs: ["e", "c", "gram", "r"])
        let result = try plan.run(["x": MILTensor(shape: [2, 3], values: [0, 1, 2, 3, 4, 5])])
        #expect(result["e"] == MILTensor(shape: [1, 3, 2], values: [0, 3, 1, 4, 2, 5]))
        #expect(result["c"] == MILTensor(shape: [6, 2], values: [0, 3, 1, 4, 2, 5, 0, 3, 1, 4, 2, 5]))
        #expect(result["gram"] == MILTensor(shape: [2, 2], values: [5, 14, 14, 50]))
        #expect(result["r"] == MILTensor(shape: [3, 2], values: [0, 1, 2, 3, 4, 5]))
    }

    @Test func averagePoolingWithSamePaddingAndHalfPrecisionCast() throws {
        var p = Program()
        p.input("x", [1, 1, 3, 3])
        p.constant("kernel", ints: [2, 2], shape: [2])
        p.constant("strides", ints: [2, 2], shape: [2])
        p.constant("same", string: "same", shape: [])
        p.constant("exclude", ints: [1], shape: [])
        p.constant("fp16", string: "fp16", shape: [])
        p.operation("avg_pool", ["x": ["x"], "kernel_sizes": ["kernel"], "strides": ["strides"], "pad_type": ["same"],
                                 "exclude_padding_from_average": ["exclude"]], output: "pooled")
        p.operation("cast", ["x": ["x"], "dtype": ["fp16"]], output: "half")
        let plan = try p.plan(outputs: ["pooled", "half"])
        let x: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9.0001]
        let result = try plan.run(["x": MILTensor(shape: [1, 1, 3, 3], values: x)])
        // "same" with stride 2 on 3: output 2, total padding 1, at the bottom/right.
        #expect(result["pooled"] == MILTensor(shape: [1, 1, 2, 2], values: [3, 4.5, 7.5, 9.0001]))
        #expect(result["half"]?.values.last == 9)  // float16 has no 9.0001
    }

    @Test func unsupportedOperationsAndMissingInputsAreErrors() throws {
        var p = Program()
        p.input("x", [2])
        p.operation("non_maximum_suppression", ["x": ["x"]], output: "y")
        #expect(throws: EngineError.self) { try p.plan(outputs: ["y"]) }

        var q = Program()
        q.input("x", [2])
        q.operation("relu", ["x": ["nowhere"]], output: "y")
        #expect(throws: EngineError.self) { try q.plan(outputs: ["y"]) }

        var r = Program()
        r.input("x", [2])
        r.operation("relu", ["x": ["x"]], output: "y")
        let plan = try r.plan(outputs: ["y"])
        #expect(throws: EngineError.self) { try plan.run([:]) }
    }
}
