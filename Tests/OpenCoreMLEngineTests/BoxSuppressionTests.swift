import Testing
import _OpenCoreMLEngine

/// Intersection over union and PickTop on boxes worked by hand.
@Suite("Box suppression")
struct BoxSuppressionTests {
    static func iou(_ a: [Double], _ b: [Double]) -> Double {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in BoxSuppression.intersectionOverUnion(a.baseAddress!, b.baseAddress!) } }
    }

    @Test func intersectionOverUnion() {
        // x: [0.3, 0.7] and [0.32, 0.72] share 0.38; y: both [0.3, 0.7], 0.4. 0.152 / (0.16 + 0.16 − 0.152).
        #expect(abs(Self.iou([0.5, 0.5, 0.4, 0.4], [0.52, 0.5, 0.4, 0.4]) - 0.152 / 0.168) < 1e-12)
        // A 2×2 box and the 1×1 box in its corner: 1 / 4.
        #expect(abs(Self.iou([1, 1, 2, 2], [0.5, 0.5, 1, 1]) - 0.25) < 1e-12)
        // Touching edges, no area, negative sizes: 0.
        #expect(Self.iou([0, 0, 1, 1], [1, 0, 1, 1]) == 0)
        #expect(Self.iou([0, 0, 0, 0], [0, 0, 0, 0]) == 0)
        #expect(Self.iou([0, 0, -1, 1], [0, 0, 1, 1]) == 0)
    }

    @Test func pickTopKeepsInConfidenceOrderAndBreaksTiesByBoxOrder() {
        // Three equal-confidence disjoint boxes and a NaN one: kept in box order, the NaN dropped.
        let confidences: [Double] = [0.5, 0.5, .nan, 0.5]
        let boxes: [Double] = [0, 0, 1, 1, 5, 5, 1, 1, 9, 9, 1, 1, 20, 20, 1, 1]
        let kept = confidences.withUnsafeBufferPointer { c in
            boxes.withUnsafeBufferPointer { b in
                BoxSuppression.pickTop(confidences: c.baseAddress!, classCount: 1, coordinates: b.baseAddress!, boxCount: 4,
                                       iouThreshold: 0.5, confidenceThreshold: 0, perClass: false)
            }
        }
        #expect(kept == [0, 1, 3])
    }
}
