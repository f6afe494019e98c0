import Foundation
import OpenCoreMLTools
import OpenVision
import _OpenCoreMLTestSupport

/// Small models built with the DSL whose answers the tests compute by hand, and pictures as pixel
/// buffers.
enum VisionTestModels {
    static let colourLabels = ["red", "green", "blue"]
    /// The factor the colour classifier multiplies the mean of each channel (0…1) by before softmax.
    static let colourSharpness: Float = 10

    /// "Which colour dominates": the mean of each channel over the 8×8 input, scaled by
    /// `colourSharpness / 255`, then softmax; labels red, green, blue. On a picture whose mean colour
    /// is (r, g, b) it answers softmax(10 · (r, g, b) / 255).
    static func colourClassifier() -> Model {
        Model(shortDescription: "Dominant colour") {
            Input(name: "image", shape: [3, 8, 8], featureType: .image(colorSpace: .rgb))
            ClassLabels(colourLabels.map { .string($0) }, predictedFeatureName: "label", predictedProbabilitiesName: "labelProbability")
            NeuralNetwork(preprocessing: [ImagePreprocessing(featureName: "image", scale: colourSharpness / 255)]) {
                Pooling(name: "mean", input: ["image"], output: ["means"], poolingType: .average, kernelSize: [], stride: [], globalPooling: true)
                Softmax(name: "softmax", input: ["means"], output: ["probabilities"])
            }
        }
    }

    /// What the colour classifier answers for a picture whose every pixel is `colour`.
    static func expectedProbabilities(_ colour: (r: UInt8, g: UInt8, b: UInt8)) -> [String: Float] {
        let scores = [colour.r, colour.g, colour.b].map { colourSharpness * Float($0) / 255 }
        let top = scores.max()!
        let exponentials = scores.map { exp($0 - top) }
        let total = exponentials.reduce(0, +)
        return Dictionary(uniqueKeysWithValues: zip(colourLabels, exponentials.map { $0 / total }))
    }

    /// A feature "extractor" that shows what it was given: `pixels` is the RGB input as it arrived
    /// (3 × height × width, 0…255) and `means` the mean of each channel.
    static func pixelModel(width: UInt, height: UInt) -> Model {
        Model(shortDescription: "Pixels and their means") {
            Input(name: "image", shape: [3, height, width], featureType: .image(colorSpace: .rgb))
            Output(name: "pixels", shape: [3, height, width])
            Output(name: "means", shape: [3])
            NeuralNetwork {
                Linear(name: "copy", input: ["image"], output: ["pixels"])
                Pooling(name: "mean", input: ["image"], output: ["means"], poolingType: .average, kernelSize: [], stride: [], globalPooling: true)
            }
        }
    }

    /// A model whose one input is not an image.
    static func tabularModel() -> Model {
        Model(shortDescription: "No image") {
            Input(name: "x", shape: [2])
            Output(name: "y", shape: [1])
            NeuralNetwork {
                InnerProduct(name: "dense", input: ["x"], output: ["y"], weight: [1, 2], bias: [0], inputChannels: 2, outputChannels: 1)
            }
        }
    }

    /// An image and a second input: `shifted` is the image's channel means plus `offset`.
    static func imageAndOffsetModel() -> Model {
        Model(shortDescription: "Image means plus an offset") {
            Input(name: "offset", shape: [3])
            Input(name: "photo", shape: [3, 4, 4], featureType: .image(colorSpace: .rgb))
            Output(name: "shifted", shape: [3])
            NeuralNetwork {
                Pooling(name: "mean", input: ["photo"], output: ["means"], poolingType: .average, kernelSize: [], stride: [], globalPooling: true)
                Add(name: "add", input: ["means", "offset"], output: ["shifted"])
            }
        }
    }

    /// The model loaded from its specification, without a file.
    static func load(_ model: Model) throws -> MLModel {
        try MLModel(specification: model.makeSpecification())
    }
}

/// A picture as a grid of colours, top row first, for building pixel buffers and expected answers.
struct Grid: Equatable, CustomStringConvertible {
    typealias Colour = SIMD3<UInt8>
    var rows: [[Colour]]

    var width: Int { rows[0].count }
    var height: Int { rows.count }

    init(rows: [[Colour]]) { self.rows = rows }

    init(width: Int, height: Int, colour: (_ x: Int, _ y: Int) -> Colour) {
        rows = (0..<height).map { y in (0..<width).map { x in colour(x, y) } }
    }

    /// A `kCVPixelFormatType_32BGRA` buffer, filled through Core Video's functions.
    func pixelBuffer() -> CVPixelBuffer {
        var buffer: CVPixelBuffer?
        precondition(CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &buffer) == kCVReturnSuccess)
        let pixelBuffer = buffer!
        _ = CVPixelBufferLockBaseAddress(pixelBuffer, [])
        let base = CVPixelBufferGetBaseAddress(pixelBuffer)!.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            let row = base + y * CVPixelBufferGetBytesPerRow(pixelBuffer)
            for x in 0..<width {
                let c = rows[y][x]
                (row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) = (c.z, c.y, c.x, 255)
            }
        }
        _ = CVPixelBufferUnlockBaseAddress(pixelBuffer, [])
        return pixelBuffer
    }

    /// The grid a `pixels` output (3 × height × width) holds, each value rounded to a byte.
    init(pixels: MLMultiArray) {
        let shape = pixels.shape.map(\.intValue)
        let (height, width) = (shape[shape.count - 2], shape[shape.count - 1])
        let plane = width * height
        rows = (0..<height).map { y in
            (0..<width).map { x in
                Colour((0..<3).map { c in UInt8(clamping: Int(pixels[c * plane + y * width + x].floatValue.rounded())) })
            }
        }
    }

    /// RGBA rows as the image fixtures' JSON holds them.
    init(width: Int, height: Int, rgba: [UInt8]) {
        self.init(width: width, height: height) { x, y in
            let i = (y * width + x) * 4
            return Colour(rgba[i], rgba[i + 1], rgba[i + 2])
        }
    }

    /// The largest difference of any channel of any pixel; `Int.max` if the sizes differ.
    func maxDifference(to other: Grid) -> Int {
        guard width == other.width, height == other.height else { return .max }
        var largest = 0
        for (a, b) in zip(rows.joined(), other.rows.joined()) {
            for c in 0..<3 { largest = max(largest, abs(Int(a[c]) - Int(b[c]))) }
        }
        return largest
    }

    // The eight EXIF orientations, written as the familiar flips and turns of the stored grid
    // (independently of the library's formula): `shown(for:)` is what a viewer displays.

    /// Turned a quarter clockwise.
    var turnedClockwise: Grid { Grid(width: height, height: width) { x, y in rows[height - 1 - x][y] } }
    /// Turned a quarter counterclockwise.
    var turnedCounterclockwise: Grid { Grid(width: height, height: width) { x, y in rows[x][width - 1 - y] } }
    /// Mirrored left to right.
    var mirrored: Grid { Grid(width: width, height: height) { x, y in rows[y][width - 1 - x] } }

    func shown(for orientation: CGImagePropertyOrientation) -> Grid {
        switch orientation {
        case .up: return self
        case .upMirrored: return mirrored
        case .down: return turnedClockwise.turnedClockwise
        case .downMirrored: return turnedClockwise.turnedClockwise.mirrored
        case .leftMirrored: return turnedClockwise.mirrored  // the transpose
        case .right: return turnedClockwise
        case .rightMirrored: return turnedCounterclockwise.mirrored  // the transverse
        case .left: return turnedCounterclockwise
        @unknown default: fatalError("orientation \(orientation.rawValue)")
        }
    }

    var description: String { "\(width)×\(height) grid" }
}

/// The image fixtures (`Tests/Fixtures/images`) and Pillow's decodes of them.
enum ImageFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    private struct Decoded: Decodable { var width: Int; var height: Int; var rgba: [UInt8] }
    private struct File: Decodable { var decoded: [String: Decoded] }
    private static let file = try! JSONDecoder().decode(File.self, from: Data(contentsOf: folder.appendingPathComponent("images.json")))

    /// What Pillow decodes (upright) for a fixture, or for "blocks", the 48×32 picture of 8×8 blocks
    /// stored under every orientation.
    static func decoded(_ name: String) -> Grid {
        let picture = file.decoded[name]!
        return Grid(width: picture.width, height: picture.height, rgba: picture.rgba)
    }
}
