/// `classify`, which ends a classifier program: its first output is the most probable class (here
/// its index, the first of equals, as a one-value tensor) and its second every class's probability
/// (here `probabilities` flattened). The `classes` labels are applied by the caller (the runner,
/// which reads them from the program; the engine does not read `classes`).
extension MILOperations {
    static let classify: Make = { arguments, outputs, context in
        let probabilities = try argument(arguments, "probabilities", context)
        guard outputs.count == 2 else { throw context.fail("classify has 2 outputs (the label and the probabilities), not \(outputs.count)") }
        return { slots in
            let p = fetch(probabilities, slots)
            var best = 0
            for (index, value) in p.values.enumerated() where value > p.values[best] || p.values[best].isNaN { best = index }
            slots[outputs[0]] = MILTensor(shape: [1], values: [Float(best)])
            slots[outputs[1]] = MILTensor(shape: [p.values.count], values: p.values)
        }
    }
}
