import CoreMLSpec

/// Core ML's control-flow layers as MIL's `cond` and `while_loop`.
///
/// A `branch` or `loop` names no outputs: its nested networks read the blobs around them by name
/// and write blobs that later layers read (a `copy` layer overwrites a blob that exists already).
/// Lowering follows the blobs: a nested network is lowered into a block with ``values`` as it is
/// around the layer, and the blobs whose value the block changes become the operation's outputs —
/// for a branch, the blobs either branch changes (and those both write); for a loop, the loop
/// variables are the existing blobs its networks write, with an iteration counter and the loop's
/// condition.
///
/// `loopBreak` and `loopContinue` set flags, kept in ``values`` under names no blob can have
/// (they start with a NUL character): a flag set in a branch is one of the branch's outputs, and
/// the layers after that branch run in a `cond` that skips them once a flag is set. At the end of
/// an iteration a break stops the loop; a continue only skipped the rest of the body.
extension LayerLowering {
    static let breakFlag = "\u{0}loopBreak"
    static let continueFlag = "\u{0}loopContinue"
    /// The loop's condition while its body is lowered (a pseudo-blob, as the flags).
    static let goingKey = "\u{0}loopCondition"

    static func isFlag(_ key: String) -> Bool { key.hasPrefix("\u{0}") }

    /// Lowers the layers of a nested network in file order (the order Core ML runs them in, which
    /// decides what a layer reads when a copy overwrites a blob).
    mutating func lowerNetwork(_ layers: ArraySlice<CoreML_Specification_NeuralNetworkLayer>) throws {
        for index in layers.indices {
            let layer = layers[index]
            switch layer.layer {
            case .loopBreak?, .loopContinue?:
                guard inLoopBody else {
                    throw EngineError("layer '\(layer.name)' (\(layer.layerTypeName))", "the layer must be inside a loop layer's bodyNetwork")
                }
                var flag = Self.continueFlag
                if case .loopBreak? = layer.layer { flag = Self.breakFlag }
                values[flag] = Value(name: emitter.bool(true), rank: 0)
                return  // The layers after it never run.
            default:
                try lower(layer)
            }
            let next = layers.index(after: index)
            guard next < layers.endIndex, let stop = exitFlag() else { continue }
            // A branch may have broken or continued: the rest of this network runs only if not.
            let rest = layers[next...]
            let enclosingScope = emitter.scope
            emitter.scope = layer.name
            defer { emitter.scope = enclosingScope }
            try conditional(stop, ifTrue: { _ in }, ifFalse: { lowering in
                lowering.values[Self.breakFlag] = nil
                lowering.values[Self.continueFlag] = nil
                try lowering.lowerNetwork(rest)
            })
            return
        }
    }

    /// Whether a `loopBreak` or `loopContinue` has run (a boolean value), or nil when none can have.
    mutating func exitFlag() -> String? {
        let flags = [values[Self.breakFlag], values[Self.continueFlag]].compactMap { $0?.name }
        switch flags.count {
        case 0: return nil
        case 1: return flags[0]
        default: return op("logical_or", ["x": flags[0], "y": flags[1]])
        }
    }

    /// Core ML's truth of a condition blob: the if-branch runs when the scalar's magnitude is more
    /// than 1e-6 (coremltools' `add_branch`); a loop's condition is read the same way.
    mutating func truth(_ x: Value) -> String {
        let real = op("cast", ["x": x.name, "dtype": emitter.string("fp32")])
        return op("greater", ["x": op("abs", ["x": real]), "y": emitter.float(1e-6)])
    }

    /// `branch`: `cond` over the condition, each branch's network lowered into its block.
    mutating func branch(_ p: CoreML_Specification_BranchLayerParams, _ condition: Value) throws {
        let pred = truth(condition)
        try conditional(pred, ifTrue: { try $0.lowerNetwork(p.ifBranch.layers[...]) },
                        ifFalse: { try $0.lowerNetwork(p.elseBranch.layers[...]) })
    }

    /// A `cond` whose true and false blocks are what `ifTrue` and `ifFalse` lower; afterwards each
    /// blob (and flag) that either block changed, and each blob both wrote, has the cond's value.
    /// A blob only one block writes, which did not exist before, stays inside that block; a flag
    /// only one block sets is false in the other.
    mutating func conditional(_ pred: String, ifTrue: (inout LayerLowering) throws -> Void,
                              ifFalse: (inout LayerLowering) throws -> Void) throws {
        let before = values
        let start = emitter.operationCount
        try ifTrue(&self)
        let trueValues = values
        let trueOperations = emitter.takeOperations(from: start)
        values = before
        try ifFalse(&self)
        let falseValues = values
        let falseOperations = emitter.takeOperations(from: start)
        values = before

        var changed = Set<String>()
        for (blob, value) in trueValues where before[blob]?.name != value.name { changed.insert(blob) }
        for (blob, value) in falseValues where before[blob]?.name != value.name { changed.insert(blob) }
        let blobs = changed.filter { blob in
            before[blob] != nil || Self.isFlag(blob) || (trueValues[blob] != nil && falseValues[blob] != nil)
        }.sorted()
        guard !blobs.isEmpty else {
            // Nothing either block writes is seen after it: no operation at all.
            return
        }
        var falseFlag: String?
        func yielded(_ blob: String, _ side: [String: Value]) -> String {
            if let value = side[blob] { return value.name }
            if falseFlag == nil { falseFlag = emitter.bool(false) }
            return falseFlag!
        }
        let trueOutputs = blobs.map { yielded($0, trueValues) }
        let falseOutputs = blobs.map { yielded($0, falseValues) }
        var trueBlock = CoreML_Specification_MILSpec_Block()
        trueBlock.operations = trueOperations
        trueBlock.outputs = trueOutputs
        var falseBlock = CoreML_Specification_MILSpec_Block()
        falseBlock.operations = falseOperations
        falseBlock.outputs = falseOutputs
        let outputs = blobs.map { _ in emitter.name("cond") }
        emitter.operation("cond", ["pred": [pred]], outputs: outputs, blocks: [trueBlock, falseBlock])
        for (blob, output) in zip(blobs, outputs) {
            let ranks = [trueValues[blob]?.rank, falseValues[blob]?.rank].compactMap { $0 }
            values[blob] = Value(name: output, rank: Set(ranks).count == 1 ? ranks[0] : Self.unknownRank)
        }
    }

    /// `loop`: `while_loop` over an iteration counter, the loop's condition and the existing blobs
    /// its networks write. The condition network runs once before the loop and again at the end of
    /// each iteration (after a continue too, not after a break), as Core ML's
    /// `while condition and i < maxLoopIterations { body; i += 1; condition }`.
    mutating func loop(_ p: CoreML_Specification_LoopLayerParams, _ inputs: [Value], blobsWritten: [String]) throws {
        let hasCondition = !p.conditionNetwork.layers.isEmpty
        if hasCondition && p.conditionVar.isEmpty {
            throw LayerSpecificationError("conditionVar is empty; a loop with a conditionNetwork needs the name of the blob it writes")
        }
        // The iteration bound: the input's value when there is one (maxLoopIterations is then
        // ignored), else maxLoopIterations, which only a condition network may leave at 0 (no bound).
        let bound: String?
        if let count = inputs.first {
            bound = op("cast", ["x": count.name, "dtype": emitter.string("fp32")])
        } else if p.maxLoopIterations > 0 {
            bound = emitter.float(Float(p.maxLoopIterations))
        } else if hasCondition {
            bound = nil
        } else {
            return  // A for-loop of zero iterations.
        }
        let enclosingBody = inLoopBody
        // This loop's flags and condition are its own: those of a loop around it wait outside.
        let enclosing = [Self.breakFlag, Self.continueFlag, Self.goingKey].map { ($0, values[$0]) }
        for (key, _) in enclosing { values[key] = nil }
        defer {
            inLoopBody = enclosingBody
            for (key, value) in enclosing { values[key] = value }
        }

        let start = Value(name: emitter.float(0), rank: 0)
        inLoopBody = false
        values[Self.goingKey] = Value(name: try condition(p, bound: bound, counter: start.name), rank: 0)
        // Loop variables: the counter, the condition, then the blobs that exist now and that the
        // loop's networks write.
        let carried = [Self.goingKey] + blobsWritten.filter { values[$0] != nil }
        let initial = [start] + carried.map { values[$0]! }

        let outer = values
        let names = initial.map { _ in emitter.name("loop_var") }
        let conditionNames = initial.map { _ in emitter.name("loop_var") }
        var conditionBlock = CoreML_Specification_MILSpec_Block()
        conditionBlock.inputs = conditionNames.map(Self.blockInput)
        conditionBlock.outputs = [conditionNames[1]]

        let bodyStart = emitter.operationCount
        for (blob, (name, value)) in zip(carried, zip(names.dropFirst(), initial.dropFirst())) {
            values[blob] = Value(name: name, rank: value.rank)
        }
        inLoopBody = true
        try lowerNetwork(p.bodyNetwork.layers[...])
        inLoopBody = false
        let counter = op("add", ["x": names[0], "y": emitter.float(1)])
        // A break ends the loop; otherwise the condition is worked out again.
        let broke = values[Self.breakFlag]?.name
        values[Self.breakFlag] = nil
        values[Self.continueFlag] = nil
        if let broke {
            try conditional(broke, ifTrue: { lowering in
                lowering.values[Self.goingKey] = Value(name: lowering.emitter.bool(false), rank: 0)
            }, ifFalse: { lowering in
                lowering.values[Self.goingKey] = Value(name: try lowering.condition(p, bound: bound, counter: counter), rank: 0)
            })
        } else {
            values[Self.goingKey] = Value(name: try condition(p, bound: bound, counter: counter), rank: 0)
        }
        var bodyBlock = CoreML_Specification_MILSpec_Block()
        bodyBlock.inputs = names.map(Self.blockInput)
        bodyBlock.outputs = [counter] + carried.map { values[$0]?.name ?? outer[$0]!.name }
        let ranks = carried.map { values[$0]?.rank }
        bodyBlock.operations = emitter.takeOperations(from: bodyStart)
        values = outer

        let outputs = initial.map { _ in emitter.name("while_loop") }
        emitter.operation("while_loop", ["loop_vars": initial.map(\.name)], outputs: outputs, blocks: [conditionBlock, bodyBlock])
        for (index, blob) in carried.enumerated() where !Self.isFlag(blob) {
            let rank = ranks[index] == initial[index + 1].rank ? initial[index + 1].rank : Self.unknownRank
            values[blob] = Value(name: outputs[index + 1], rank: rank)
        }
    }

    /// Whether the loop goes on: the condition network's verdict (lowered here) and, with a bound,
    /// `counter < bound`.
    private mutating func condition(_ p: CoreML_Specification_LoopLayerParams, bound: String?, counter: String) throws -> String {
        var going: String?
        if !p.conditionNetwork.layers.isEmpty {
            try lowerNetwork(p.conditionNetwork.layers[...])
            guard let value = values[p.conditionVar] else {
                throw LayerSpecificationError("conditionVar '\(p.conditionVar)' is written by no layer of the conditionNetwork")
            }
            going = truth(value)
        }
        if let bound {
            let below = op("less", ["x": counter, "y": bound])
            going = going.map { op("logical_and", ["x": $0, "y": below]) } ?? below
        }
        return going ?? emitter.bool(true)
    }

    static func blockInput(_ name: String) -> CoreML_Specification_MILSpec_NamedValueType {
        var input = CoreML_Specification_MILSpec_NamedValueType()
        input.name = name
        return input
    }
}
