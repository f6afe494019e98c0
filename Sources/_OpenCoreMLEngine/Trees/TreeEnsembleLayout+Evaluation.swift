extension TreeEnsembleLayout {
    /// Rows evaluated together against one tree before moving to the next (the tree stays in
    /// cache while a block of rows walks it): about 64 KB of row values, 64 to 1,024 rows.
    package static func blockRows(width: Int) -> Int {
        min(1024, max(64, 8192 / max(width, 1)))
    }

    /// The summed outputs of `count` rows of `width` values (row-major): `outputs` receives
    /// `count × dimensions` values, each the base value plus what every tree's leaf adds, in tree
    /// order. `width` must be at least `featureCount` (checked; an error otherwise).
    ///
    /// Large batches run on the kernel threads, one block of rows at a time; the result does not
    /// depend on the thread count.
    ///
    /// A branch compares the input value rounded to float32 (``comparedValue(_:)``) with the
    /// node's threshold, as XGBoost, LightGBM and scikit-learn compare when they predict: their
    /// thresholds are float32 data values (or midpoints of them), so a double input between its
    /// float32 rounding and a threshold takes the branch its source library takes.
    package func evaluate(rows: UnsafePointer<Double>, count: Int, width: Int, into outputs: UnsafeMutablePointer<Double>) throws {
        guard width >= featureCount else {
            throw EngineError("tree ensemble", "the trees read \(featureCount) input values, but the rows have \(width)")
        }
        guard count > 0 else { return }
        if width == 0 {
            // Only leaves (which read feature 0 and ignore it): give them one value to read.
            let padding = [Double](repeating: .nan, count: count)
            try padding.withUnsafeBufferPointer { try evaluate(rows: $0.baseAddress!, count: count, width: 1, into: outputs) }
            return
        }
        let block = Self.blockRows(width: width)
        let blocks = (count + block - 1) / block
        withPointers { pointers in
            let run = { (index: Int) in
                let start = index * block
                let rowCount = min(block, count - start)
                // The block's values rounded once, so the walks compare them without converting.
                withUnsafeTemporaryAllocation(of: Double.self, capacity: rowCount * width) { compared in
                    let source = rows + start * width
                    for i in 0..<(rowCount * width) { compared[i] = Self.comparedValue(source[i]) }
                    withUnsafeTemporaryAllocation(of: Int32.self, capacity: rowCount) { walk in
                        pointers.evaluateBlock(rows: compared.baseAddress!, count: rowCount, width: width,
                                               outputs: outputs + start * pointers.dimensions, walk: walk.baseAddress!)
                    }
                }
            }
            if blocks == 1 || chunkCount(blocks) == 1 {
                for index in 0..<blocks { run(index) }
            } else {
                parallelForEach(blocks) { _, index in run(index) }
            }
        }
    }

    private func withPointers<R>(_ body: (EvaluationPointers) -> R) -> R {
        nodes.withUnsafeBufferPointer { nodes in
            missingSlot.withUnsafeBufferPointer { missing in
                isEquality.withUnsafeBufferPointer { equality in
                    leafStart.withUnsafeBufferPointer { leafStart in
                        leafDimensions.withUnsafeBufferPointer { leafDimensions in
                            leafValues.withUnsafeBufferPointer { leafValues in
                                roots.withUnsafeBufferPointer { roots in
                                    depths.withUnsafeBufferPointer { depths in
                                        baseValues.withUnsafeBufferPointer { base in
                                          scalarLeafValues.withUnsafeBufferPointer { scalar in
                                            body(EvaluationPointers(
                                                nodes: nodes.baseAddress, missing: missing.baseAddress, equality: equality.baseAddress,
                                                leafStart: leafStart.baseAddress!, leafDimensions: leafDimensions.baseAddress,
                                                leafValues: leafValues.baseAddress, roots: roots.baseAddress, depths: depths.baseAddress,
                                                treeCount: roots.count, base: base.baseAddress, dimensions: dimensions, hasEquality: hasEquality,
                                                scalarLeafValues: scalar.isEmpty ? nil : scalar.baseAddress))
                                          }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension TreeEnsembleLayout {
    /// The value a branch compares: `x` rounded to the nearest float32 (NaN stays NaN; a magnitude
    /// beyond float32's range becomes an infinity), as tree libraries store their inputs.
    @inline(__always)
    package static func comparedValue(_ x: Double) -> Double { Double(Float(x)) }
}

/// The compiled arrays as pointers, for the inner loops (valid inside `withPointers`).
private struct EvaluationPointers: @unchecked Sendable {
    let nodes: UnsafePointer<TreeEnsembleLayout.Node>?
    let missing: UnsafePointer<UInt8>?
    let equality: UnsafePointer<UInt8>?
    let leafStart: UnsafePointer<Int32>
    let leafDimensions: UnsafePointer<Int32>?
    let leafValues: UnsafePointer<Double>?
    let roots: UnsafePointer<Int32>?
    let depths: UnsafePointer<Int32>?
    let treeCount: Int
    let base: UnsafePointer<Double>?
    let dimensions: Int
    let hasEquality: Bool
    let scalarLeafValues: UnsafePointer<Double>?

    /// Trees this deep check after each step whether every row has reached its leaf.
    static let earlyExitDepth: Int32 = 12

    /// One block: outputs start at the base values, then every tree walks every row to its leaf
    /// (`walk` holds each row's current node) and adds the leaf's values.
    func evaluateBlock(rows: UnsafePointer<Double>, count: Int, width: Int, outputs: UnsafeMutablePointer<Double>, walk: UnsafeMutablePointer<Int32>) {
        for row in 0..<count {
            for dimension in 0..<dimensions { outputs[row * dimensions + dimension] = base![dimension] }
        }
        guard treeCount > 0, let nodes, let roots, let depths else { return }
        var general = hasEquality
        if !general {
            for index in 0..<(count * width) where rows[index].isNaN {
                general = true
                break
            }
        }
        for tree in 0..<treeCount {
            let root = roots[tree]
            let depth = depths[tree]
            for row in 0..<count { walk[row] = root }
            if general {
                walkGeneral(nodes: nodes, rows: rows, count: count, width: width, depth: depth, walk: walk)
            } else {
                walkLessThan(nodes: nodes, rows: rows, count: count, width: width, depth: depth, walk: walk)
            }
            addLeaves(count: count, outputs: outputs, walk: walk)
        }
    }

    /// Every test `x < threshold`, no NaN among the rows: the next node is `firstChild` plus the
    /// test's failure, computed without a branch (a branch would be mispredicted half the time).
    @inline(__always)
    private func walkLessThan(nodes: UnsafePointer<TreeEnsembleLayout.Node>, rows: UnsafePointer<Double>, count: Int, width: Int,
                              depth: Int32, walk: UnsafeMutablePointer<Int32>) {
        @inline(__always) func step(_ row: Int) -> (current: Int32, next: Int32) {
            let current = walk[row]
            let node = nodes[Int(current)]
            let x = rows[row &* width &+ Int(node.feature)]
            let fails = Int32(truncatingIfNeeded: unsafeBitCast(!(x < node.threshold), to: UInt8.self))
            return (current, node.firstChild &+ fails)
        }
        if depth <= Self.earlyExitDepth {
            // Eight rows at a time, their nodes in registers: eight independent walks overlap.
            var row = 0
            while row &+ 8 <= count {
                let root = walk[row]
                var w0 = root, w1 = root, w2 = root, w3 = root, w4 = root, w5 = root, w6 = root, w7 = root
                let r0 = rows + row &* width, r1 = r0 + width, r2 = r1 + width, r3 = r2 + width
                let r4 = r3 + width, r5 = r4 + width, r6 = r5 + width, r7 = r6 + width
                @inline(__always) func next(_ current: Int32, _ row: UnsafePointer<Double>) -> Int32 {
                    let node = nodes[Int(current)]
                    let fails = Int32(truncatingIfNeeded: unsafeBitCast(!(row[Int(node.feature)] < node.threshold), to: UInt8.self))
                    return node.firstChild &+ fails
                }
                for _ in 0..<depth {
                    w0 = next(w0, r0); w1 = next(w1, r1); w2 = next(w2, r2); w3 = next(w3, r3)
                    w4 = next(w4, r4); w5 = next(w5, r5); w6 = next(w6, r6); w7 = next(w7, r7)
                }
                walk[row] = w0; walk[row &+ 1] = w1; walk[row &+ 2] = w2; walk[row &+ 3] = w3
                walk[row &+ 4] = w4; walk[row &+ 5] = w5; walk[row &+ 6] = w6; walk[row &+ 7] = w7
                row &+= 8
            }
            for _ in 0..<depth {
                for rest in row..<count { walk[rest] = step(rest).next }
            }
            return
        }
        for _ in 0..<depth {
            var moved: Int32 = 0
            for row in 0..<count {
                let (current, next) = step(row)
                moved |= current ^ next
                walk[row] = next
            }
            if moved == 0 { break }
        }
    }

    /// Any test, NaN values going to their node's missing slot.
    @inline(__always)
    private func walkGeneral(nodes: UnsafePointer<TreeEnsembleLayout.Node>, rows: UnsafePointer<Double>, count: Int, width: Int,
                             depth: Int32, walk: UnsafeMutablePointer<Int32>) {
        let missing = missing!, equality = equality!
        var step: Int32 = 0
        while step < depth {
            step += 1
            var moved = false
            for row in 0..<count {
                let current = Int(walk[row])
                let node = nodes[current]
                let x = rows[row * width + Int(node.feature)]
                let slot: Int32
                if x.isNaN {
                    slot = Int32(missing[current])
                } else if equality[current] != 0 {
                    slot = x == node.threshold ? 0 : 1
                } else {
                    slot = x < node.threshold ? 0 : 1
                }
                let next = node.firstChild &+ slot
                moved = moved || Int(next) != current
                walk[row] = next
            }
            if depth > Self.earlyExitDepth && !moved { break }
        }
    }

    @inline(__always)
    private func addLeaves(count: Int, outputs: UnsafeMutablePointer<Double>, walk: UnsafeMutablePointer<Int32>) {
        if let scalarLeafValues {
            for row in 0..<count { outputs[row] += scalarLeafValues[Int(walk[row])] }
            return
        }
        guard let leafDimensions, let leafValues else { return }
        if dimensions == 1 {
            for row in 0..<count {
                let leaf = Int(walk[row])
                var entry = Int(leafStart[leaf])
                let end = Int(leafStart[leaf + 1])
                while entry < end {
                    outputs[row] += leafValues[entry]
                    entry += 1
                }
            }
            return
        }
        for row in 0..<count {
            let leaf = Int(walk[row])
            let output = outputs + row * dimensions
            var entry = Int(leafStart[leaf])
            let end = Int(leafStart[leaf + 1])
            while entry < end {
                output[Int(leafDimensions[entry])] += leafValues[entry]
                entry += 1
            }
        }
    }
}
