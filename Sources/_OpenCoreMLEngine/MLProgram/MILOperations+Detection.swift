/// `non_maximum_suppression`: the boxes of each batch item kept by ``BoxSuppression/pickTop``, the
/// suppression the classic non-maximum-suppression model runs.
///
/// iOS 15: `boxes` `[n, B, 4]` (centre x, centre y, width, height), `scores` `[n, B, K]`; a box's
/// score is its highest class score, boxes scoring below `score_threshold` are dropped, the rest
/// kept most confident first unless their IoU with a kept box (of any class, or of its own class
/// with `per_class_suppression`) is above `iou_threshold`, at most `max_boxes`. Outputs: the kept
/// boxes `[n, max_boxes, 4]` and their scores `[n, max_boxes, K]` (zeros after the last kept box),
/// their indices `[n, max_boxes]` (-1 after the last) and their count `[n]`. When no box is kept,
/// the box with the highest score is (as Core ML does; coremltools' reference says so).
///
/// iOS 17 has no `score_threshold` and no count output, and puts the box axis last: `boxes`
/// `[n, 4, B]`, `scores` `[n, K, B]`, outputs `[n, 4, max_boxes]`, `[n, K, max_boxes]`, `[n, max_boxes]`.
extension MILOperations {
    static let detection: [String: Make] = ["non_maximum_suppression": nonMaximumSuppression]

    static let nonMaximumSuppression: Make = { arguments, outputs, context in
        let boxesArgument = try argument(arguments, "boxes", context), scoresArgument = try argument(arguments, "scores", context)
        guard let iouThreshold = try constantFloat(arguments, "iou_threshold", context) else { throw context.fail("input 'iou_threshold' is missing") }
        guard let maxBoxes = try constantInts(arguments, "max_boxes", context)?.first, maxBoxes >= 0, maxBoxes <= 1 << 24 else {
            throw context.fail("max_boxes must be a constant from 0 to 2²⁴")
        }
        let scoreThreshold = try constantFloat(arguments, "score_threshold", context)
        let perClass = (try constantInts(arguments, "per_class_suppression", context)?.first ?? 0) != 0
        // iOS 17's form: three outputs, the box axis last.
        let boxAxisLast = outputs.count == 3
        guard outputs.count == (boxAxisLast ? 3 : 4) else { throw context.fail("non_maximum_suppression has 3 (iOS 17) or 4 outputs, not \(outputs.count)") }
        return { slots in
            let boxes = fetch(boxesArgument, slots), scores = fetch(scoresArgument, slots)
            guard boxes.shape.count == 3, scores.shape.count == 3, boxes.shape[0] == scores.shape[0] else {
                throw context.fail("boxes \(boxes.shape) and scores \(scores.shape) are not rank 3 with the same batch")
            }
            let n = boxes.shape[0]
            let (count, classes) = boxAxisLast ? (boxes.shape[2], scores.shape[1]) : (boxes.shape[1], scores.shape[2])
            guard boxes.shape[boxAxisLast ? 1 : 2] == 4, scores.shape[boxAxisLast ? 2 : 1] == count else {
                throw context.fail("boxes \(boxes.shape) and scores \(scores.shape) do not describe the same boxes (4 coordinates each)")
            }
            let keptShape = boxAxisLast ? [n, 4, maxBoxes] : [n, maxBoxes, 4]
            let scoreShape = boxAxisLast ? [n, classes, maxBoxes] : [n, maxBoxes, classes]
            var keptBoxes = try slots.buffer(keptShape, context), keptScores = try slots.buffer(scoreShape, context)
            var indices = [Float](repeating: -1, count: try MILTensor.checkedCount([n, maxBoxes], limit: context.limit, context.place))
            var counts = [Float](repeating: 0, count: n)
            var coordinates = [Double](repeating: 0, count: count * 4), confidences = [Double](repeating: 0, count: count * classes)
            for item in 0..<n {
                // Rows of 4 coordinates and of K scores, whichever axis holds the boxes.
                for box in 0..<count {
                    for k in 0..<4 {
                        coordinates[box * 4 + k] = Double(boxes.values[boxAxisLast ? (item * 4 + k) * count + box : (item * count + box) * 4 + k])
                    }
                    for k in 0..<classes {
                        confidences[box * classes + k] = Double(scores.values[boxAxisLast ? (item * classes + k) * count + box : (item * count + box) * classes + k])
                    }
                }
                var kept = coordinates.withUnsafeBufferPointer { b in
                    confidences.withUnsafeBufferPointer { c in
                        guard let c = c.baseAddress, let b = b.baseAddress else { return [Int]() }
                        return BoxSuppression.pickTop(confidences: c, classCount: classes, coordinates: b, boxCount: count,
                                                      iouThreshold: Double(iouThreshold), confidenceThreshold: Double(scoreThreshold ?? -.infinity),
                                                      perClass: perClass, maxCount: maxBoxes)
                    }
                }
                if kept.isEmpty, count > 0, classes > 0 {
                    // The box with the highest score (the first of equals).
                    var best = 0, bestScore = -Double.infinity
                    for box in 0..<count {
                        let score = (0..<classes).map { confidences[box * classes + $0] }.max() ?? -.infinity
                        if score > bestScore { (best, bestScore) = (box, score) }
                    }
                    kept = [best]
                }
                kept = Array(kept.prefix(maxBoxes))
                for (slot, box) in kept.enumerated() {
                    for k in 0..<4 {
                        keptBoxes[boxAxisLast ? (item * 4 + k) * maxBoxes + slot : (item * maxBoxes + slot) * 4 + k] = Float(coordinates[box * 4 + k])
                    }
                    for k in 0..<classes {
                        keptScores[boxAxisLast ? (item * classes + k) * maxBoxes + slot : (item * maxBoxes + slot) * classes + k] = Float(confidences[box * classes + k])
                    }
                    indices[item * maxBoxes + slot] = Float(box)
                }
                counts[item] = Float(kept.count)
            }
            slots[outputs[0]] = MILTensor(shape: keptShape, values: keptBoxes)
            slots[outputs[1]] = MILTensor(shape: scoreShape, values: keptScores)
            slots[outputs[2]] = MILTensor(shape: [n, maxBoxes], values: indices)
            if !boxAxisLast { slots[outputs[3]] = MILTensor(shape: [n], values: counts) }
        }
    }
}
