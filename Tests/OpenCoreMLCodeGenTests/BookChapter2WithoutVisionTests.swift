import OpenCoreML
import Testing

// The book's chapter 2, "Using Core ML without Vision": the view controller's code as written, with
// only `import CoreML` changed to `import OpenCoreML`. `HealthySnacks` is the class the
// OpenCoreMLCodeGen plugin generated from Models/HealthySnacks.mlmodel (a stand-in with the book
// model's interface that tells which colour dominates a picture).

// MARK: Test-only stand-ins for UIKit and the book's CoreMLHelpers

/// A solid-colour picture, as far as the book's code uses `UIImage`.
final class UIImage: @unchecked Sendable {
    let red: UInt8, green: UInt8, blue: UInt8
    init(red: UInt8, green: UInt8, blue: UInt8) { (self.red, self.green, self.blue) = (red, green, blue) }

    /// CoreMLHelpers' `UIImage.pixelBuffer(width:height:)`: the picture as a BGRA pixel buffer.
    func pixelBuffer(width: Int, height: Int) -> CVPixelBuffer? {
        var buffer: CVPixelBuffer?
        guard CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &buffer) == kCVReturnSuccess, let buffer else { return nil }
        _ = CVPixelBufferLockBaseAddress(buffer, [])
        let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
        let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = base + y * rowBytes + 4 * x
                (pixel[0], pixel[1], pixel[2], pixel[3]) = (blue, green, red, 255)
            }
        }
        _ = CVPixelBufferUnlockBaseAddress(buffer, [])
        return buffer
    }
}

/// What the view controller shows, recorded for the test.
final class ResultsLabel: @unchecked Sendable {
    var text: String?
}

// MARK: The book's code

final class ViewController: @unchecked Sendable {
    let healthySnacks = HealthySnacks()
    let resultsLabel = ResultsLabel()
    var onShow: (() -> Void)?

    func classify(image: UIImage) {
        DispatchQueue.global(qos: .userInitiated).async {
            if let pixelBuffer = image.pixelBuffer(width: 16, height: 16) {
                if let prediction = try? self.healthySnacks.prediction(image: pixelBuffer) {
                    DispatchQueue.main.async {
                        let results = self.top(1, prediction.labelProbability)
                        self.processObservations(results: results)
                    }
                }
            }
        }
    }

    func top(_ k: Int, _ prob: [String: Double]) -> [(String, Double)] {
        return Array(prob.map { x in (x.key, x.value) }
            .sorted(by: { a, b -> Bool in a.1 > b.1 })
            .prefix(through: min(k, prob.count) - 1))
    }

    func processObservations(results: [(identifier: String, confidence: Double)]) {
        if results[0].confidence < 0.8 {
            self.resultsLabel.text = "not sure"
        } else {
            self.resultsLabel.text = String(format: "%@ %.1f%%", results[0].identifier, results[0].confidence * 100)
        }
        onShow?()
    }
}

// MARK: The test

@Suite("Book chapter 2 without Vision")
struct BookChapter2WithoutVisionTests {
    /// softmax(0.1 · (mean − 128)) by hand, for a solid colour.
    static func confidence(_ colour: [Double], of index: Int) -> Double {
        let logits = colour.map { 0.1 * ($0 - 128) }
        let exps = logits.map { exp($0 - logits.max()!) }
        return exps[index] / exps.reduce(0, +)
    }

    @Test(arguments: [([250, 10, 10], "red"), ([10, 240, 20], "green"), ([30, 20, 255], "blue"), ([140, 130, 135], "not sure")])
    func classifiesAsTheBookShows(colour: [Int], expected: String) async throws {
        let controller = ViewController()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            controller.onShow = { done.resume() }
            controller.classify(image: UIImage(red: UInt8(colour[0]), green: UInt8(colour[1]), blue: UInt8(colour[2])))
        }
        let text = try #require(controller.resultsLabel.text)
        if expected == "not sure" {
            #expect(text == "not sure")
        } else {
            let index = ["red", "green", "blue"].firstIndex(of: expected)!
            let percent = Self.confidence(colour.map(Double.init), of: index) * 100
            #expect(text == String(format: "%@ %.1f%%", expected, percent), "\(text)")
        }
    }
}
