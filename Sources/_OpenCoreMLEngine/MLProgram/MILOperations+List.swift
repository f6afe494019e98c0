import CoreMLSpec

/// A list value of an ML Program (TensorArray-style, the loop state of converted TensorFlow
/// models): elements of one shape by index, made by `make_list`, read by `list_read`,
/// `list_gather` and `list_length`, and replaced by `list_write` and `list_scatter`, which yield a
/// new list (the one they read is left as it was). An element never written reads as zeros.
///
/// A list with `dynamicLength` grows to hold an index written past its end; one without refuses
/// such an index. Every element written is a copy in a buffer of the run (reserved from the
/// model's budget, as a step's output is), and growth reserves the element table's bytes too; a
/// run's reservations are settled when it ends. Inside a loop, writing to a list of n elements
/// counts n values of loop work besides the element (the new list's table is a copy).
struct MILList {
    /// The shape of every element; nil until the first write when `make_list` left it unknown.
    var elementShape: [Int]?
    /// Each element's values; nil for one never written.
    var elements: [[Float]?]
    let dynamicLength: Bool

    var count: Int { elements.count }

    /// Writes `value` at `index` (a copy of it), growing a dynamic list to hold it.
    mutating func write(_ value: ArraySlice<Float>, shape: [Int], at index: Int, _ frame: inout ProgramPlan.Frame,
                        _ context: OperationContext) throws {
        if let elementShape, elementShape != shape {
            throw context.fail("the value's shape \(shape) is not the list's element shape \(elementShape)")
        }
        elementShape = shape
        guard index >= 0, index < context.limit else { throw context.fail("index \(index) is out of range for a list") }
        if index >= elements.count {
            guard dynamicLength else {
                throw context.fail("index \(index) is out of range for a list of fixed length \(elements.count)")
            }
            try frame.reserve((index + 1 - elements.count) * MemoryLayout<[Float]?>.stride, at: context.place)
            elements += [[Float]?](repeating: nil, count: index + 1 - elements.count)
        }
        try frame.countWork(elements.count, at: context.place)
        var copy = try frame.unfilledBuffer(shape, context)
        copy.withUnsafeMutableBufferPointer { target in value.withUnsafeBufferPointer { _ = target.update(fromContentsOf: $0) } }
        elements[index] = copy
    }

    /// The values of the element at `index`, zeros for one never written.
    func element(_ index: Int, _ context: OperationContext) throws -> (shape: [Int], values: [Float]?) {
        guard index >= 0, index < elements.count else {
            throw context.fail("index \(index) is out of range for a list of \(elements.count) elements")
        }
        guard let elementShape else {
            throw context.fail("element \(index) was never written and the list's element shape is unknown")
        }
        return (elementShape, elements[index])
    }
}

extension MILOperations {
    static let lists: [String: Make] = [
        "make_list": makeList, "list_length": listLength, "list_read": listRead,
        "list_write": listWrite, "list_gather": listGather, "list_scatter": listScatter,
    ]

    /// `make_list(init_length = 1, dynamic_length = true, elem_shape, dtype)`: a list of
    /// `init_length` elements never written. `elem_shape` holds one constant per dimension; a
    /// string (a symbolic size) leaves the shape to the first write. Every element is held as
    /// Float whatever `dtype` says.
    static let makeList: Make = { arguments, outputs, context in
        let length = try IntegerParameter(arguments, "init_length", context) ?? .constant([1])
        let dynamic = (try constantFloat(arguments, "dynamic_length", context) ?? 1) != 0
        var shape: [Int]? = []
        for part in arguments["elem_shape"] ?? [] {
            switch part {
            case .constant(.tensor(let tensor)): shape? += try integers(tensor.values, "elem_shape", context)
            case .constant(.strings): shape = nil
            case .slot: throw context.fail("input 'elem_shape' must be constants")
            }
        }
        if let shape { _ = try MILTensor.checkedCount(shape, limit: context.limit, context.place) }
        let elementShape = shape
        return { frame in
            guard let count = try length.values("init_length", frame, context).first, count >= 0, count < context.limit else {
                throw context.fail("init_length must be one integer from 0 up to the tensor limit")
            }
            try frame.reserve(count * MemoryLayout<[Float]?>.stride, at: context.place)
            try frame.countWork(count, at: context.place)
            frame.setList(MILList(elementShape: elementShape, elements: [[Float]?](repeating: nil, count: count), dynamicLength: dynamic),
                          at: outputs[0])
        }
    }

    /// The list `ls` reads, or an error naming it.
    static func list(_ argument: ProgramPlan.Argument, _ frame: ProgramPlan.Frame, _ context: OperationContext) throws -> MILList {
        guard case .slot(let slot) = argument, let list = frame.list(slot) else { throw context.fail("input 'ls' is not a list") }
        return list
    }

    /// One integer `name` holds (a scalar or one-value tensor).
    static func index(_ argument: ProgramPlan.Argument, _ name: String, _ frame: ProgramPlan.Frame, _ context: OperationContext) throws -> Int {
        let tensor = fetch(argument, frame)
        guard tensor.count == 1 else { throw context.fail("input '\(name)' holds \(tensor.count) values; it must be one index") }
        return try integers(tensor.values, name, context)[0]
    }

    /// `list_length(ls)`: the number of elements, an int32 scalar.
    static let listLength: Make = { arguments, outputs, context in
        let ls = try argument(arguments, "ls", context)
        return { frame in
            let count = try list(ls, frame, context).count
            frame[outputs[0]] = MILTensor(shape: [], values: [Float(count)])
        }
    }

    /// `list_read(ls, index)`: a copy of one element.
    static let listRead: Make = { arguments, outputs, context in
        let ls = try argument(arguments, "ls", context), position = try argument(arguments, "index", context)
        return { frame in
            let (shape, stored) = try list(ls, frame, context).element(try index(position, "index", frame, context), context)
            var values = try stored == nil ? frame.buffer(shape, context) : frame.unfilledBuffer(shape, context)
            if let stored { values.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: stored) } }
            frame[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// `list_write(ls, index, value)`: the list with `value` at `index`.
    static let listWrite: Make = { arguments, outputs, context in
        let ls = try argument(arguments, "ls", context), position = try argument(arguments, "index", context)
        let value = try argument(arguments, "value", context)
        return { frame in
            var written = try list(ls, frame, context)
            let tensor = fetch(value, frame)
            try written.write(tensor.values[...], shape: tensor.shape, at: try index(position, "index", frame, context), &frame, context)
            frame.setList(written, at: outputs[0])
        }
    }

    /// `list_gather(ls, indices)`: the elements at `indices` stacked along a new first axis.
    static let listGather: Make = { arguments, outputs, context in
        let ls = try argument(arguments, "ls", context), indices = try argument(arguments, "indices", context)
        return { frame in
            let source = try list(ls, frame, context)
            let positions = try integers(fetch(indices, frame).values, "indices", context)
            guard let elementShape = source.elementShape else {
                if positions.isEmpty { throw context.fail("the list was never written: its element shape is unknown") }
                _ = try source.element(positions[0], context)  // names the index or the unknown shape
                throw context.fail("the list's element shape is unknown")
            }
            let size = elementShape.reduce(1, *)
            var values = try frame.unfilledBuffer([positions.count] + elementShape, context)
            for (row, position) in positions.enumerated() {
                let stored = try source.element(position, context).values
                let target = (row * size)..<((row + 1) * size)
                if let stored { values[target] = stored[...] } else { values[target] = ArraySlice(repeating: 0, count: size) }
            }
            frame[outputs[0]] = MILTensor(shape: [positions.count] + elementShape, values: values)
        }
    }

    /// `list_scatter(ls, indices, value)`: the list with `value[i]` at `indices[i]` (later ones win).
    static let listScatter: Make = { arguments, outputs, context in
        let ls = try argument(arguments, "ls", context), indices = try argument(arguments, "indices", context)
        let value = try argument(arguments, "value", context)
        return { frame in
            var written = try list(ls, frame, context)
            let positions = try integers(fetch(indices, frame).values, "indices", context)
            let tensor = fetch(value, frame)
            guard tensor.shape.first == positions.count else {
                throw context.fail("value \(tensor.shape) does not hold one element for each of \(positions.count) indices")
            }
            let shape = Array(tensor.shape.dropFirst()), size = shape.reduce(1, *)
            for (row, position) in positions.enumerated() {
                try written.write(tensor.values[(row * size)..<((row + 1) * size)], shape: shape, at: position, &frame, context)
            }
            frame.setList(written, at: outputs[0])
        }
    }
}

extension ProgramPlan.Builder {
    /// The operations that read a list (as their `ls` input).
    static let listReaders: Set<String> = ["list_length", "list_read", "list_write", "list_gather", "list_scatter"]

    /// Refuses an operation that reads a value the program declares a list where it takes a
    /// tensor (every input but a list operation's `ls`), naming both.
    func refuseListArguments(_ operation: CoreML_Specification_MILSpec_Operation, at place: String) throws {
        for (parameter, argument) in operation.inputs where !(parameter == "ls" && Self.listReaders.contains(operation.type)) {
            for binding in argument.arguments {
                guard case .name(let name)? = binding.binding, case .listType? = types[name]?.type else { continue }
                throw EngineError("\(place): input '\(parameter)' reads the list '\(name)'; '\(operation.type)' takes a tensor there")
            }
        }
    }
}
