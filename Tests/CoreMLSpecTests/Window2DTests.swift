import Testing
import CoreMLSpec

/// The window geometry both interpreters share, with sizes worked out by hand.
@Suite("Window2D")
struct Window2DTests {
    @Test func samePaddingPutsTheOddRowAtTheEndUnlessTopLeftHeavy() throws {
        // 7 rows, 3×3 stride 2: ⌈7/2⌉ = 4 outputs need (4 − 1)·2 + 3 − 7 = 2 rows of padding;
        // 8 columns: 4 outputs need 6 + 3 − 8 = 1 column, at the right (or left when top-left heavy).
        let end = try #require(Window2D(height: 7, width: 8, kernel: (3, 3), stride: (2, 2), padding: .same(topLeftHeavy: false)))
        #expect([end.outputHeight, end.outputWidth, end.padTop, end.padBottom, end.padLeft, end.padRight] == [4, 4, 1, 1, 0, 1])
        let start = try #require(Window2D(height: 7, width: 8, kernel: (3, 3), stride: (2, 2), padding: .same(topLeftHeavy: true)))
        #expect([start.padTop, start.padBottom, start.padLeft, start.padRight] == [1, 1, 1, 0])
        // Dilation 2 makes the 3×3 kernel span 5: 8 columns at stride 1 need 4 columns, 2 each side.
        let dilated = try #require(Window2D(height: 8, width: 8, kernel: (3, 3), stride: (1, 1), dilation: (2, 2), padding: .same(topLeftHeavy: false)))
        #expect([dilated.outputWidth, dilated.padLeft, dilated.padRight] == [8, 2, 2])
    }

    @Test func explicitPaddingNeedsTheWindowToFit() throws {
        // (5 + 1 + 0 − 3) / 2 + 1 = 2 rows; (4 + 0 + 2 − 3) / 2 + 1 = 2 columns.
        let window = try #require(Window2D(height: 5, width: 4, kernel: (3, 3), stride: (2, 2), padding: .explicit(top: 1, bottom: 0, left: 0, right: 2)))
        #expect([window.outputHeight, window.outputWidth] == [2, 2])
        #expect(!window.overrunsPadding)
        #expect(Window2D(height: 2, width: 4, kernel: (3, 3), stride: (2, 2), padding: .explicit()) == nil)
    }

    @Test func ceilWindowsCountALastWindowThatStartsInside() throws {
        // 6 columns, window 3, stride 2: ⌈(6 − 3) / 2⌉ + 1 = 3 windows, the last at 4 running one past the end.
        let window = try #require(Window2D(height: 6, width: 6, kernel: (3, 3), stride: (2, 2), padding: .ceil()))
        #expect([window.outputHeight, window.outputWidth] == [3, 3])
        #expect(window.overrunsPadding)
        // With 1 each side: ⌈(5 + 2 − 2) / 2⌉ + 1 = 4, but the 4th would start at 6 ≥ 5 + 1: 3.
        let padded = try #require(Window2D(height: 5, width: 5, kernel: (2, 2), stride: (2, 2), padding: .ceil(top: 1, bottom: 1, left: 1, right: 1)))
        #expect(padded.outputHeight == 3)
    }
}
