import CoreMLSpec

/// The shape of one example's tensor in a blob (the batch dimension is kept apart).
///
/// Core ML's classic layers see rank-5 blobs `[Seq, Batch, C, H, W]`. The engine stores a blob
/// batch-major as `[Batch][dims…]`, where `dims` are the example's dimensions, and classic layers
/// read them as `[outer…, C, H, W]`: the last three dimensions are channels, height and width
/// (missing ones count as 1) and everything before them (the sequence) is folded into `outer`.
package struct TensorShape: Hashable, Sendable, CustomStringConvertible {
    package var dims: [Int]

    package init(_ dims: [Int]) { self.dims = dims }

    /// The number of elements per example. Blob shapes come from the layer table, which has
    /// checked (`checkedProduct`) that this count fits an `Int`; so do the products of fewer
    /// dimensions the layers take.
    package var count: Int { dims.reduce(1, *) }

    package var rank: Int { dims.count }

    /// The classic-layer view `[outer, C, H, W]`.
    package var classic: ClassicShape { ClassicShape(dims) }

    package var description: String { dims.map(String.init).joined(separator: "×") }
}
