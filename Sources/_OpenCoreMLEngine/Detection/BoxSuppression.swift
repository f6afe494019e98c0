/// Non-maximum suppression of axis-aligned boxes given as (centerX, centerY, width, height), the
/// PickTop method of Core ML's suppression model.
package enum BoxSuppression {
    /// The area two boxes share divided by the area they cover together; 0 when they do not
    /// overlap or cover no area. A negative width or height counts as 0.
    package static func intersectionOverUnion(_ a: UnsafePointer<Double>, _ b: UnsafePointer<Double>) -> Double {
        let (aw, ah, bw, bh) = (max(a[2], 0), max(a[3], 0), max(b[2], 0), max(b[3], 0))
        let width = min(a[0] + aw / 2, b[0] + bw / 2) - max(a[0] - aw / 2, b[0] - bw / 2)
        let height = min(a[1] + ah / 2, b[1] + bh / 2) - max(a[1] - ah / 2, b[1] - bh / 2)
        guard width > 0, height > 0 else { return 0 }
        let intersection = width * height
        let union = aw * ah + bw * bh - intersection
        guard union > 0 else { return 0 }
        return intersection / union
    }

    /// The boxes PickTop keeps, most confident first.
    ///
    /// A box's confidence is its highest class confidence (its class is the first class with that
    /// confidence). Boxes whose confidence is below `confidenceThreshold` (or NaN) are dropped first;
    /// the rest, most confident first (ties in box order), are kept unless their IoU with an
    /// already kept box is above `iouThreshold`, with a box of any class, or only of the same
    /// class when `perClass`.
    ///
    /// - Parameters:
    ///   - confidences: `boxCount` rows of `classCount` confidences.
    ///   - coordinates: `boxCount` rows of 4 values.
    ///   - maxCount: the most boxes to keep (the work stops there).
    /// - Returns: The kept boxes' row numbers.
    package static func pickTop(confidences: UnsafePointer<Double>, classCount: Int, coordinates: UnsafePointer<Double>, boxCount: Int,
                                iouThreshold: Double, confidenceThreshold: Double, perClass: Bool, maxCount: Int = .max) -> [Int] {
        guard classCount > 0, maxCount > 0 else { return [] }
        var candidates: [(box: Int, confidence: Double, label: Int)] = []
        for box in 0..<boxCount {
            let row = confidences + box * classCount
            var label = 0
            for c in 1..<classCount where row[c] > row[label] { label = c }
            let confidence = row[label]
            if confidence >= confidenceThreshold { candidates.append((box, confidence, label)) }
        }
        candidates.sort { $0.confidence != $1.confidence ? $0.confidence > $1.confidence : $0.box < $1.box }
        var kept: [Int] = []
        var keptLabels: [Int] = []
        for candidate in candidates {
            let box = coordinates + candidate.box * 4
            let suppressed = kept.indices.contains { k in
                (!perClass || keptLabels[k] == candidate.label) && intersectionOverUnion(coordinates + kept[k] * 4, box) > iouThreshold
            }
            if !suppressed {
                kept.append(candidate.box)
                keptLabels.append(candidate.label)
                // The work is candidates × kept: stopping at the most wanted bounds it.
                if kept.count == maxCount { break }
            }
        }
        return kept
    }
}
