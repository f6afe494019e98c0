/// The four classic dimensions `[outer, C, H, W]` of one example: the view Core ML's classic
/// layers take of a blob. The last three dimensions are channels, height and width (missing ones
/// count as 1) and everything before them (the sequence) is folded into `outer`.
///
/// The one type for this view: the layer table's shape rules (`LayerShapes.swift`) and the
/// engine's classic layers (through `TensorShape.classic`) both read blobs with it.
package struct ClassicShape: Hashable, Sendable, CustomStringConvertible {
    package var outer: Int, channels: Int, height: Int, width: Int

    package init(outer: Int = 1, channels: Int, height: Int, width: Int) {
        self.outer = outer
        self.channels = channels
        self.height = height
        self.width = width
    }

    /// The classic view of `dims`: the last three are C, H, W, the ones before them multiply into
    /// `outer`. `dims` is a blob's shape, whose element count `neuralNetworkBlobShapes()` has
    /// checked fits an `Int`, so the product of some of its dimensions does too.
    package init(_ dims: [Int]) {
        let r = dims.count
        var outer = 1
        for index in 0..<max(0, r - 3) { outer *= dims[index] }
        self.init(outer: outer, channels: r >= 3 ? dims[r - 3] : 1, height: r >= 2 ? dims[r - 2] : 1, width: r >= 1 ? dims[r - 1] : 1)
    }

    /// `[outer, C, H, W]`.
    package var array: [Int] { [outer, channels, height, width] }
    /// A fresh classic blob shape: `[C, H, W]`, or `[outer, C, H, W]` for a sequence.
    package var dims: [Int] { outer == 1 ? [channels, height, width] : [outer, channels, height, width] }
    /// The number of values: outer × C × H × W.
    package var count: Int { outer * channels * height * width }
    /// The values of one channel plane: H × W.
    package var plane: Int { height * width }
    package var description: String { "\(outer)×\(channels)×\(height)×\(width)" }

    /// `dims` with these classic dimensions: the last three replaced when the sequence part is
    /// unchanged (so ranks and leading dimensions survive), else a fresh classic shape.
    package func replacing(in dims: [Int]) -> [Int] {
        if dims.count >= 3, ClassicShape(dims).outer == outer {
            return Array(dims.dropLast(3)) + [channels, height, width]
        }
        return self.dims
    }
}
