import CoreMLSpec
import Foundation

/// Whole ML Program models (`.mlmodel`, weights inline) of the shapes an attacker tried in the
/// second security round: small files that cost memory or time out of proportion to their size.
/// Each takes one float32 input `x` of shape [4] and names one output `y`.
public enum HostilePrograms {
    public typealias Operation = CoreML_Specification_MILSpec_Operation
    typealias ValueType = CoreML_Specification_MILSpec_ValueType

    /// y = relu(relu(… relu(x))): `count` operations, which once cost compile memory with the
    /// square of the count.
    public static func reluChain(_ count: Int) -> CoreML_Specification_Model {
        var operations: [Operation] = []
        for index in 0..<count {
            operations.append(operation("relu", ["x": index == 0 ? "x" : "v\(index - 1)"], output: index == count - 1 ? "y" : "v\(index)"))
        }
        return model(operations, outputs: ["y"])
    }

    /// `count` `fill`s of `size` values each, all alive at the end (concatenated into y): within
    /// the per-tensor limit each, past the memory limit together.
    public static func liveFills(_ count: Int, size: Int) -> CoreML_Specification_Model {
        var operations = [constant("shape", ints: [Int64(size)])]
        for index in 0..<count { operations.append(operation("fill", ["shape": "shape"], output: "f\(index)")) }
        operations.append(constant("axis", ints: [0], shape: []))
        var concat = operation("concat", ["axis": "axis"], output: "y")
        concat.inputs["values"] = arguments((0..<count).map { "f\($0)" })
        operations.append(concat)
        return model(operations, outputs: ["y"])
    }

    /// A `while_loop` of `iterations` whose body multiplies a `size` × `size` matrix by itself:
    /// few iterations, much work each. y is the iteration count.
    public static func matmulLoop(size: Int, iterations: Int) -> CoreML_Specification_Model {
        var operations = [
            constant("shape", ints: [Int64(size), Int64(size)]),
            operation("fill", ["shape": "shape"], output: "m"),
            constant("start", floats: [0], shape: []),
            constant("limit", floats: [Float(iterations)], shape: []),
            constant("one", floats: [1], shape: []),
        ]
        var condition = CoreML_Specification_MILSpec_Block()
        condition.inputs = [namedValue("i"), namedValue("acc")]
        condition.operations = [operation("less", ["x": "i", "y": "limit"], output: "going")]
        condition.outputs = ["going"]
        var body = CoreML_Specification_MILSpec_Block()
        body.inputs = [namedValue("i"), namedValue("acc")]
        body.operations = [operation("add", ["x": "i", "y": "one"], output: "next"),
                           operation("matmul", ["x": "acc", "y": "m"], output: "product")]
        body.outputs = ["next", "product"]
        var loop = operation("while_loop", [:], outputs: ["count", "last"])
        loop.inputs["loop_vars"] = arguments(["start", "m"])
        loop.blocks = [condition, body]
        operations.append(loop)
        operations.append(operation("identity", ["x": "count"], output: "y"))
        return model(operations, outputs: ["y"])
    }

    // MARK: Building blocks

    /// A model whose `main` takes `x` ([4] float32) and runs `operations`, returning `outputs`.
    public static func model(_ operations: [Operation], outputs: [String]) -> CoreML_Specification_Model {
        var main = CoreML_Specification_MILSpec_Function()
        main.inputs = [namedValue("x", type: tensorType([4]))]
        main.opset = "CoreML5"
        var block = CoreML_Specification_MILSpec_Block()
        block.operations = operations
        block.outputs = outputs
        main.blockSpecializations["CoreML5"] = block
        var program = CoreML_Specification_MILSpec_Program()
        program.version = 1
        program.functions["main"] = main
        var model = CoreML_Specification_Model()
        model.specificationVersion = 6
        model.mlProgram = program
        model.description_p.input = [feature("x")]
        model.description_p.output = outputs.map { feature($0) }
        return model
    }

    public static func operation(_ type: String, _ inputs: [String: String], output: String) -> Operation {
        operation(type, inputs, outputs: [output])
    }

    public static func operation(_ type: String, _ inputs: [String: String], outputs: [String]) -> Operation {
        var operation = Operation()
        operation.type = type
        for (parameter, name) in inputs { operation.inputs[parameter] = arguments([name]) }
        operation.outputs = outputs.map { namedValue($0) }
        return operation
    }

    /// A `const` of 64-bit integers (shape [count] unless given).
    public static func constant(_ name: String, ints: [Int64], shape: [Int]? = nil) -> Operation {
        var value = CoreML_Specification_MILSpec_Value()
        value.type = tensorType(shape ?? [ints.count], .int64)
        value.immediateValue.tensor.longInts.values = ints
        return constant(name, value)
    }

    public static func constant(_ name: String, floats: [Float], shape: [Int]) -> Operation {
        var value = CoreML_Specification_MILSpec_Value()
        value.type = tensorType(shape)
        value.immediateValue.tensor.floats.values = floats
        return constant(name, value)
    }

    static func constant(_ name: String, _ value: CoreML_Specification_MILSpec_Value) -> Operation {
        var operation = Operation()
        operation.type = "const"
        operation.attributes["val"] = value
        operation.outputs = [namedValue(name, type: value.type)]
        return operation
    }

    static func arguments(_ names: [String]) -> CoreML_Specification_MILSpec_Argument {
        var argument = CoreML_Specification_MILSpec_Argument()
        argument.arguments = names.map { name in
            var binding = CoreML_Specification_MILSpec_Argument.Binding()
            binding.name = name
            return binding
        }
        return argument
    }

    static func namedValue(_ name: String, type: ValueType? = nil) -> CoreML_Specification_MILSpec_NamedValueType {
        var value = CoreML_Specification_MILSpec_NamedValueType()
        value.name = name
        if let type { value.type = type }
        return value
    }

    /// A tensor type of constant `shape`.
    public static func tensorType(_ shape: [Int], _ dataType: CoreML_Specification_MILSpec_DataType = .float32) -> CoreML_Specification_MILSpec_ValueType {
        var type = ValueType()
        type.tensorType.dataType = dataType
        type.tensorType.rank = Int64(shape.count)
        type.tensorType.dimensions = shape.map { size in
            var dimension = CoreML_Specification_MILSpec_Dimension()
            dimension.constant.size = UInt64(size)
            return dimension
        }
        return type
    }

    static func feature(_ name: String) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.multiArrayType.shape = [4]
        feature.type.multiArrayType.dataType = .float32
        return feature
    }
}
