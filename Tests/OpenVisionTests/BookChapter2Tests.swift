// "Machine Learning by Tutorials", chapter 2 ("Getting Started with Image Classification"): the
// HealthySnacks view controller's Vision code, as the book writes it. Adapted: the imports (UIKit,
// CoreML and Vision → OpenVision), the model (loaded with MLModel(contentsOf:) instead of the class
// Xcode generates), and the label updates, which run directly instead of on the main queue.
import Foundation
import OpenVision
import Testing
import _OpenCoreMLTestSupport

// MARK: What UIKit gives the view controller (test stand-ins)

/// UIKit's `UIImage`, reduced to what the chapter reads from it: the pixels and how they are turned.
final class UIImage: Sendable {
    enum Orientation: Sendable { case up, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored }
    let pixelBuffer: CVPixelBuffer
    let imageOrientation: Orientation

    init(pixelBuffer: CVPixelBuffer, imageOrientation: Orientation = .up) {
        self.pixelBuffer = pixelBuffer
        self.imageOrientation = imageOrientation
    }
}

extension CIImage {
    /// Core Image's `CIImage(image:)`, for the `UIImage` stand-in.
    convenience init?(image: UIImage) {
        self.init(cvPixelBuffer: image.pixelBuffer)
    }
}

extension CGImagePropertyOrientation {
    /// The sample project's conversion: UIKit's orientation cases match ImageIO's one for one.
    init(_ orientation: UIImage.Orientation) {
        switch orientation {
        case .up: self = .up
        case .down: self = .down
        case .left: self = .left
        case .right: self = .right
        case .upMirrored: self = .upMirrored
        case .downMirrored: self = .downMirrored
        case .leftMirrored: self = .leftMirrored
        case .rightMirrored: self = .rightMirrored
        }
    }
}

/// A text label, as `UILabel` holds its text.
final class Label: @unchecked Sendable {
    var text: String?
}

// MARK: The book's view controller

final class ViewController: @unchecked Sendable {
    let resultsLabel = Label()
    /// The model file (the book uses the class Xcode generates from HealthySnacks.mlmodel).
    let modelURL: URL
    /// Signalled each time `processObservations` has run (the book shows the results view instead).
    let resultsShown = DispatchSemaphore(value: 0)

    init(modelURL: URL) {
        self.modelURL = modelURL
    }

    lazy var classificationRequest: VNCoreMLRequest = {
        do {
            let visionModel = try VNCoreMLModel(for: MLModel(contentsOf: modelURL))
            let request = VNCoreMLRequest(model: visionModel, completionHandler: { [weak self] request, error in
                self?.processObservations(for: request, error: error)
            })
            request.imageCropAndScaleOption = .centerCrop
            return request
        } catch {
            fatalError("Failed to create VNCoreMLModel: \(error)")
        }
    }()

    func classify(image: UIImage) {
        guard let ciImage = CIImage(image: image) else {
            print("Unable to create CIImage")
            return
        }
        let orientation = CGImagePropertyOrientation(image.imageOrientation)
        DispatchQueue.global(qos: .userInitiated).async {
            let handler = VNImageRequestHandler(ciImage: ciImage, orientation: orientation)
            do {
                try handler.perform([self.classificationRequest])
            } catch {
                print("Failed to perform classification: \(error)")
            }
        }
    }

    func processObservations(for request: VNRequest, error: Error?) {
        if let results = request.results as? [VNClassificationObservation] {
            if results.isEmpty {
                self.resultsLabel.text = "nothing found"
            } else {
                self.resultsLabel.text = "\(results[0].identifier) \(results[0].confidence)"
            }
        } else if let error = error {
            self.resultsLabel.text = "error: \(error.localizedDescription)"
        } else {
            self.resultsLabel.text = "???"
        }
        resultsShown.signal()
    }
}

// MARK: The tests

@Suite("The book's chapter 2 code")
struct BookChapter2Tests {
    /// Classifies `image` as the app does and returns what the label shows.
    static func label(after image: UIImage, on controller: ViewController) -> String? {
        controller.classify(image: image)
        guard controller.resultsShown.wait(timeout: .now() + 60) == .success else { return "timed out" }
        return controller.resultsLabel.text
    }

    @Test func classifiesPicturesByTheirDominantColour() throws {
        try withTemporaryDirectory { folder in
            let modelURL = folder.appendingPathComponent("HealthySnacks.mlmodel")
            try VisionTestModels.colourClassifier().write(to: modelURL)
            let controller = ViewController(modelURL: modelURL)
            let colours: [(name: String, colour: SIMD3<UInt8>)] = [("red", [230, 40, 30]), ("green", [20, 200, 60]), ("blue", [50, 70, 240])]
            for (name, colour) in colours {
                // A portrait photo, stored turned as a phone stores it.
                let grid = Grid(width: 30, height: 20) { _, _ in colour }
                let text = Self.label(after: UIImage(pixelBuffer: grid.pixelBuffer(), imageOrientation: .right), on: controller)
                let expected = VisionTestModels.expectedProbabilities((colour.x, colour.y, colour.z))[name]!
                let parts = try #require(text?.split(separator: " "))
                #expect(parts.first.map(String.init) == name, "label \(text ?? "nil")")
                #expect(abs(try #require(Float(parts.last!)) - expected) < 1e-4)
            }
            // A noisy picture: mostly blue, with red and green specks.
            var random = TestRandom(seed: 7)
            let noisy = Grid(width: 17, height: 23) { _, _ in
                SIMD3(UInt8(random.int(0..<120)), UInt8(random.int(0..<120)), UInt8(random.int(120..<256)))
            }
            #expect(Self.label(after: UIImage(pixelBuffer: noisy.pixelBuffer()), on: controller)?.hasPrefix("blue ") == true)
        }
    }
}
