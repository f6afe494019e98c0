import Foundation
import OpenCoreMLTools
import OpenVision
import Testing
import _OpenCoreMLTestSupport

/// `VNCoreMLRequest` through `VNImageRequestHandler`: the pixels a model gets (crop and scale,
/// region of interest, orientation), the observations it gives, and the errors.
@Suite("Vision requests")
struct VNCoreMLRequestTests {
    /// Performs a fresh request for `model` on `handler` and returns the `pixels` the model received.
    static func pixelsSeen(by model: MLModel, handler: VNImageRequestHandler, option: VNImageCropAndScaleOption = .scaleFill,
                           region: CGRect? = nil) throws -> Grid {
        let request = VNCoreMLRequest(model: try VNCoreMLModel(for: model))
        request.imageCropAndScaleOption = option
        if let region { request.regionOfInterest = region }
        try handler.perform([request])
        let observations = try #require(request.results as? [VNCoreMLFeatureValueObservation])
        let pixels = try #require(observations.first { $0.featureName == "pixels" }?.featureValue.multiArrayValue)
        return Grid(pixels: pixels)
    }

    /// The `pixels` the model gives for `value` predicted directly with Core ML's API.
    static func pixels(of model: MLModel, for value: MLFeatureValue) throws -> Grid {
        let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": value]))
        return Grid(pixels: try #require(output.featureValue(for: "pixels")?.multiArrayValue))
    }

    // MARK: Geometry

    @Test(arguments: [VNImageCropAndScaleOption.centerCrop, .scaleFit, .scaleFill], [(16, 16), (12, 20), (20, 7)])
    func cropAndScaleGiveTheSamePixelsAsCoreMLsImageLoading(option: VNImageCropAndScaleOption, size: (Int, Int)) throws {
        let model = try VisionTestModels.load(VisionTestModels.pixelModel(width: UInt(size.0), height: UInt(size.1)))
        let url = ImageFixtures.url("rgb.png")  // 37×23
        let seen = try Self.pixelsSeen(by: model, handler: VNImageRequestHandler(url: url), option: option)
        let constraint = try #require(model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        let reference = try MLFeatureValue(imageAt: url, constraint: constraint, options: [.cropAndScale: option.rawValue])
        #expect(seen == (try Self.pixels(of: model, for: reference)))
        // The same picture given as bytes, as a pixel buffer and as a CIImage gives the same pixels.
        let picture = ImageFixtures.decoded("rgb.png")
        #expect(try Self.pixelsSeen(by: model, handler: VNImageRequestHandler(data: Data(contentsOf: url)), option: option) == seen)
        #expect(try Self.pixelsSeen(by: model, handler: VNImageRequestHandler(cvPixelBuffer: picture.pixelBuffer()), option: option) == seen)
        let ciImage = try #require(CIImage(contentsOf: url))
        #expect(try Self.pixelsSeen(by: model, handler: VNImageRequestHandler(ciImage: ciImage), option: option) == seen)
    }

    @Test func centerCropKeepsTheMiddleAndScaleFitLeavesBlackBars() throws {
        // 24×8: red, blue and green thirds; the model takes 8×8.
        let thirds = Grid(width: 24, height: 8) { x, _ in [SIMD3<UInt8>(255, 0, 0), [0, 0, 255], [0, 255, 0]][x / 8] }
        let model = try VisionTestModels.load(VisionTestModels.pixelModel(width: 8, height: 8))
        let handler = VNImageRequestHandler(cvPixelBuffer: thirds.pixelBuffer())
        #expect(try Self.pixelsSeen(by: model, handler: handler, option: .centerCrop) == Grid(width: 8, height: 8) { _, _ in [0, 0, 255] })
        // scaleFit: the picture shrinks to 8×3 (8/3 rounded) in rows 2…4; the rest is black.
        let fit = try Self.pixelsSeen(by: model, handler: handler, option: .scaleFit)
        for y in [0, 1, 5, 6, 7] { #expect(fit.rows[y].allSatisfy { $0 == .zero }, "row \(y)") }
        for y in 2...4 { #expect(fit.rows[y].allSatisfy { $0 != .zero }, "row \(y)") }
        // scaleFill: every column of the picture shows; the thirds stay in order.
        let fill = try Self.pixelsSeen(by: model, handler: handler, option: .scaleFill)
        #expect(fill.rows[4][0] == [255, 0, 0] && fill.rows[4][4] == [0, 0, 255] && fill.rows[4][7] == [0, 255, 0])
    }

    @Test func theRegionOfInterestIsCutFromTheBottomLeftOrigin() throws {
        // The top-left quarter of the 48×32 blocks picture is (0, 0.5, 0.5, 0.5) in Vision's coordinates.
        let region = CGRect(x: 0, y: 0.5, width: 0.5, height: 0.5)
        let model = try VisionTestModels.load(VisionTestModels.pixelModel(width: 24, height: 16))
        let url = ImageFixtures.url("orientation-6.png")  // lossless, stored turned; EXIF orientation 6
        let seen = try Self.pixelsSeen(by: model, handler: VNImageRequestHandler(url: url), option: .scaleFill, region: region)
        let blocks = ImageFixtures.decoded("blocks")
        #expect(seen == Grid(width: 24, height: 16) { x, y in blocks.rows[y][x] })
        // The same as Core ML's image loading with the region as `.cropRect`.
        let constraint = try #require(model.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        let reference = try MLFeatureValue(imageAt: url, constraint: constraint, options: [.cropRect: region, .cropAndScale: 2])
        #expect(seen == (try Self.pixels(of: model, for: reference)))
        // The bottom-right block alone, scaled up 3×: one colour.
        let corner = try Self.pixelsSeen(by: model, handler: VNImageRequestHandler(url: url), option: .scaleFill,
                                          region: CGRect(x: 40.0 / 48, y: 0, width: 8.0 / 48, height: 8.0 / 32))
        #expect(Set(corner.rows.joined()) == [blocks.rows[31][47]])
    }

    // MARK: Orientation

    @Test(arguments: [CGImagePropertyOrientation.up, .upMirrored, .down, .downMirrored, .leftMirrored, .right, .rightMirrored, .left])
    func theOrientationTurnsThePictureUprightFirst(orientation: CGImagePropertyOrientation) throws {
        // 3×2 stored pixels, all different.
        let stored = Grid(width: 3, height: 2) { x, y in SIMD3(UInt8(40 * x + 10), UInt8(100 * y + 20), UInt8(30 * (x + y) + 5)) }
        let shown = stored.shown(for: orientation)
        let model = try VisionTestModels.load(VisionTestModels.pixelModel(width: UInt(shown.width), height: UInt(shown.height)))
        let handler = VNImageRequestHandler(cvPixelBuffer: stored.pixelBuffer(), orientation: orientation)
        #expect(try Self.pixelsSeen(by: model, handler: handler) == shown)
        let ciHandler = VNImageRequestHandler(ciImage: CIImage(cvPixelBuffer: stored.pixelBuffer()), orientation: orientation)
        #expect(try Self.pixelsSeen(by: model, handler: ciHandler) == shown)
    }

    @Test func rightMeansTheStoredTopLeftCornerIsShownTopRight() throws {
        // A phone held upright stores its photo on its side: orientation .right (EXIF 6).
        let (red, green, blue, white): (SIMD3<UInt8>, SIMD3<UInt8>, SIMD3<UInt8>, SIMD3<UInt8>) = ([255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255])
        let stored = Grid(rows: [[red, green], [blue, white]])  // red top left, green top right
        let model = try VisionTestModels.load(VisionTestModels.pixelModel(width: 2, height: 2))
        let shown = try Self.pixelsSeen(by: model, handler: VNImageRequestHandler(cvPixelBuffer: stored.pixelBuffer(), orientation: .right))
        #expect(shown.rows == [[blue, red], [white, green]])
    }

    @Test func filesAreTurnedByTheirExifOrientationUnlessAnOrientationIsGiven() throws {
        let blocks = ImageFixtures.decoded("blocks")  // 48×32
        let upright = try VisionTestModels.load(VisionTestModels.pixelModel(width: 48, height: 32))
        let url = ImageFixtures.url("orientation-6.png")
        #expect(try Self.pixelsSeen(by: upright, handler: VNImageRequestHandler(url: url)) == blocks)
        #expect(try Self.pixelsSeen(by: upright, handler: VNImageRequestHandler(url: url, orientation: .right)) == blocks)
        #expect(try Self.pixelsSeen(by: upright, handler: VNImageRequestHandler(data: Data(contentsOf: url))) == blocks)
        // A given orientation supersedes the file's: `.up` keeps the pixels as stored, 32×48.
        let asStored = try VisionTestModels.load(VisionTestModels.pixelModel(width: 32, height: 48))
        #expect(try Self.pixelsSeen(by: asStored, handler: VNImageRequestHandler(url: url, orientation: .up)) == blocks.turnedCounterclockwise)
        #expect(try Self.pixelsSeen(by: asStored, handler: VNImageRequestHandler(data: Data(contentsOf: url), orientation: .up)) == blocks.turnedCounterclockwise)
        // Every JPEG fixture shows the blocks upright, within JPEG's loss.
        for n in 1...8 {
            let seen = try Self.pixelsSeen(by: upright, handler: VNImageRequestHandler(url: ImageFixtures.url("orientation-\(n).jpg")))
            #expect(seen.maxDifference(to: ImageFixtures.decoded("orientation-\(n).jpg")) <= 1, "orientation-\(n).jpg")
            #expect(seen.maxDifference(to: blocks) <= 12, "orientation-\(n).jpg")
        }
    }

    @Test func theCIImageStandInHoldsThePixelsAsStored() throws {
        let url = ImageFixtures.url("orientation-6.png")
        let stored = try #require(CIImage(contentsOf: url))
        #expect(stored.extent == CGRect(x: 0, y: 0, width: 32, height: 48))
        let upright = try #require(CIImage(contentsOf: url, options: [.applyOrientationProperty: true]))
        #expect(upright.extent == CGRect(x: 0, y: 0, width: 48, height: 32))
        #expect(stored.oriented(.right).extent == upright.extent)
        #expect(try #require(CIImage(data: Data(contentsOf: url))).extent == stored.extent)
        #expect(CIImage(contentsOf: ImageFixtures.url("missing.png")) == nil)
        #expect(CIImage(data: Data("not a picture".utf8)) == nil)
        #expect(CIImage(cvPixelBuffer: Grid(width: 5, height: 3) { _, _ in .zero }.pixelBuffer()).extent == CGRect(x: 0, y: 0, width: 5, height: 3))
    }

    // MARK: Observations

    @Test func classifierResultsAreOnePerClassSortedByConfidence() throws {
        let model = try VNCoreMLModel(for: VisionTestModels.load(VisionTestModels.colourClassifier()))
        var random = TestRandom(seed: 11)
        for _ in 0..<5 {
            let grid = Grid(width: 13, height: 9) { _, _ in SIMD3(UInt8(random.int(0..<256)), UInt8(random.int(0..<256)), UInt8(random.int(0..<256))) }
            let request = VNCoreMLRequest(model: model)
            try VNImageRequestHandler(cvPixelBuffer: grid.pixelBuffer()).perform([request])
            let results = try #require(request.results as? [VNClassificationObservation])
            #expect(Set(results.map(\.identifier)) == Set(VisionTestModels.colourLabels))
            #expect(zip(results, results.dropFirst()).allSatisfy { $0.confidence >= $1.confidence })
            #expect(abs(results.map(\.confidence).reduce(0, +) - 1) < 1e-5)
            #expect(Set(results.map(\.uuid)).count == 3)
        }
        // A solid colour: the probabilities are the softmax computed by hand.
        let request = VNCoreMLRequest(model: model)
        try VNImageRequestHandler(cvPixelBuffer: Grid(width: 4, height: 4) { _, _ in [200, 40, 120] }.pixelBuffer()).perform([request])
        let expected = VisionTestModels.expectedProbabilities((200, 40, 120))
        let results = try #require(request.results as? [VNClassificationObservation])
        #expect(results.map(\.identifier) == ["red", "blue", "green"])
        for observation in results { #expect(abs(observation.confidence - expected[observation.identifier]!) < 1e-5) }
    }

    @Test func otherModelsGiveOneFeatureValueObservationPerOutput() throws {
        let model = try VNCoreMLModel(for: VisionTestModels.load(VisionTestModels.pixelModel(width: 4, height: 4)))
        #expect(model.inputImageFeatureName == "image")
        let request = VNCoreMLRequest(model: model)
        try VNImageRequestHandler(cvPixelBuffer: Grid(width: 4, height: 4) { x, _ in x < 2 ? [100, 0, 50] : [200, 60, 50] }.pixelBuffer()).perform([request])
        let results = try #require(request.results as? [VNCoreMLFeatureValueObservation])
        #expect(results.map(\.featureName) == ["pixels", "means"])
        #expect(results.allSatisfy { $0.confidence == 1 })
        let means = try #require(results[1].featureValue.multiArrayValue)
        #expect((0..<3).map { means[$0].floatValue } == [150, 30, 50])
        #expect(request.results as? [VNClassificationObservation] == nil)
    }

    @Test func theFeatureProviderSuppliesTheOtherInputs() throws {
        let model = try VNCoreMLModel(for: VisionTestModels.load(VisionTestModels.imageAndOffsetModel()))
        #expect(model.inputImageFeatureName == "photo")  // the first image input, not the first input
        let offset = try MLMultiArray(shape: [3], dataType: .float32)
        for (i, value) in [1, -2, 0.5].enumerated() { offset[i] = NSNumber(value: value) }
        model.featureProvider = try MLDictionaryFeatureProvider(dictionary: ["offset": offset])
        let request = VNCoreMLRequest(model: model)
        try VNImageRequestHandler(cvPixelBuffer: Grid(width: 6, height: 6) { _, _ in [10, 20, 30] }.pixelBuffer()).perform([request])
        let shifted = try #require((request.results?.first as? VNCoreMLFeatureValueObservation)?.featureValue.multiArrayValue)
        #expect((0..<3).map { shifted[$0].floatValue } == [11, 18, 30.5])
        // Without the provider the prediction lacks an input: the request fails, naming it.
        model.featureProvider = nil
        #expect { try VNImageRequestHandler(cvPixelBuffer: Grid(width: 6, height: 6) { _, _ in .zero }.pixelBuffer()).perform([request]) } throws: { error in
            (error as? VNError)?.code == .operationFailed && "\(error)".contains("offset")
        }
    }

    // MARK: Errors

    @Test func aModelWithoutAnImageInputIsRefused() throws {
        let model = try VisionTestModels.load(VisionTestModels.tabularModel())
        #expect { try VNCoreMLModel(for: model) } throws: { error in
            let nsError = error as NSError
            return (error as? VNError)?.code == .invalidModel && nsError.domain == VNErrorDomain
                && nsError.code == VNErrorCode.invalidModel.rawValue && nsError.code == 15 && "\(error)".contains("x")
        }
    }

    @Test func aMissingFileFailsPerformAndReachesTheCompletionHandler() throws {
        let model = try VNCoreMLModel(for: VisionTestModels.load(VisionTestModels.colourClassifier()))
        final class Calls: @unchecked Sendable { var seen: [(VNRequest, Error?)] = [] }
        let calls = Calls()
        let first = VNCoreMLRequest(model: model) { request, error in calls.seen.append((request, error)) }
        let second = VNCoreMLRequest(model: model) { request, error in calls.seen.append((request, error)) }
        // A success first, so that the failure has results to clear.
        try VNImageRequestHandler(cvPixelBuffer: Grid(width: 2, height: 2) { _, _ in [9, 9, 9] }.pixelBuffer()).perform([first])
        #expect(first.results?.count == 3 && calls.seen.count == 1 && calls.seen[0].1 == nil)

        let missing = ImageFixtures.url("no-such-picture.jpg")
        #expect { try VNImageRequestHandler(url: missing).perform([first, second]) } throws: { error in
            (error as? VNError)?.code == .ioError && (error as NSError).domain == VNErrorDomain && "\(error)".contains(missing.path)
        }
        #expect(calls.seen.count == 3)
        #expect(calls.seen[1].0 === first && calls.seen[2].0 === second)
        #expect(calls.seen[1...].allSatisfy { ($0.1 as? VNError)?.code == .ioError })
        #expect(first.results == nil && second.results == nil)
    }

    @Test func badBytesAndBadOptionsAreVisionErrors() throws {
        let model = try VNCoreMLModel(for: VisionTestModels.load(VisionTestModels.colourClassifier()))
        func code(_ handler: VNImageRequestHandler, _ configure: (VNCoreMLRequest) -> Void = { _ in }) -> VNErrorCode? {
            let request = VNCoreMLRequest(model: model)
            configure(request)
            do {
                try handler.perform([request])
                return nil
            } catch {
                return (error as? VNError)?.code
            }
        }
        #expect(code(VNImageRequestHandler(data: Data("GIF89a, not really".utf8))) == .invalidFormat)
        #expect(code(VNImageRequestHandler(data: Data())) == .invalidFormat)
        let jpeg = try Data(contentsOf: ImageFixtures.url("photo.jpg"))
        #expect(code(VNImageRequestHandler(data: jpeg.prefix(40))) == .invalidImage)
        let picture = VNImageRequestHandler(cvPixelBuffer: Grid(width: 4, height: 4) { _, _ in [1, 2, 3] }.pixelBuffer())
        #expect(code(picture) { $0.regionOfInterest = CGRect(x: 0.5, y: 0.5, width: 0.6, height: 0.2) } == .outOfBoundsError)
        #expect(code(picture) { $0.regionOfInterest = .zero } == .outOfBoundsError)
        #expect(code(picture) { $0.imageCropAndScaleOption = .scaleFitRotate90CCW } == .invalidOption)
        #expect(code(picture) { _ in model.inputImageFeatureName = "label" } == .invalidModel)
        model.inputImageFeatureName = "image"
        #expect(code(picture) == nil)
        // A plain VNRequest finds nothing.
        #expect { try picture.perform([VNRequest()]) } throws: { ($0 as? VNError)?.code == .notImplemented }
    }

    @Test func performReturnsAfterEveryRequestAndThrowsTheFirstFailure() throws {
        let model = try VNCoreMLModel(for: VisionTestModels.load(VisionTestModels.colourClassifier()))
        let failing = VNCoreMLRequest(model: model)
        failing.regionOfInterest = CGRect(x: -1, y: 0, width: 1, height: 1)
        let working = VNCoreMLRequest(model: model)
        #expect { try VNImageRequestHandler(cvPixelBuffer: Grid(width: 4, height: 4) { _, _ in [250, 0, 0] }.pixelBuffer()).perform([failing, working]) } throws: { error in
            (error as? VNError)?.code == .outOfBoundsError
        }
        #expect(failing.results == nil)
        #expect((working.results?.first as? VNClassificationObservation)?.identifier == "red")
    }
}
