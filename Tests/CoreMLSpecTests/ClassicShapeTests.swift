import CoreMLSpec
import Testing

/// The one `[outer, C, H, W]` view of a blob's shape, used by the layer table and the engine.
struct ClassicShapeTests {
    @Test func foldsLeadingDimensionsIntoOuter() {
        // [2, 3, 4, 5, 6]: C, H, W = 4, 5, 6 and outer = 2·3 = 6.
        let x = ClassicShape([2, 3, 4, 5, 6])
        #expect(x == ClassicShape(outer: 6, channels: 4, height: 5, width: 6))
        #expect(x.count == 720)
        #expect(x.plane == 30)
        #expect(x.array == [6, 4, 5, 6])
        #expect(x.description == "6×4×5×6")
    }

    @Test func missingDimensionsCountAsOne() {
        #expect(ClassicShape([7]) == ClassicShape(channels: 1, height: 1, width: 7))
        #expect(ClassicShape([3, 7]) == ClassicShape(channels: 1, height: 3, width: 7))
        #expect(ClassicShape([]) == ClassicShape(channels: 1, height: 1, width: 1))
        // A fresh blob shape drops an outer of 1.
        #expect(ClassicShape([3, 7]).dims == [1, 3, 7])
        #expect(ClassicShape([2, 1, 3, 7]).dims == [2, 1, 3, 7])
    }

    @Test func replacingKeepsTheSequencePartWhenUnchanged() {
        // Rank 5 with outer 2·1 = 2: the leading [2, 1] survives.
        let replaced = ClassicShape(outer: 2, channels: 8, height: 1, width: 1).replacing(in: [2, 1, 3, 4, 5])
        #expect(replaced == [2, 1, 8, 1, 1])
        // A changed outer gives a fresh classic shape.
        #expect(ClassicShape(outer: 3, channels: 8, height: 1, width: 1).replacing(in: [2, 1, 3, 4, 5]) == [3, 8, 1, 1])
    }
}
