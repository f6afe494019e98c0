import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

// The book's chapter 8, the GestureIt game: its Core ML part written the way the book writes it —
// `makeMLMultiArray`, the motion buffer that holds every sample twice so that four overlapping
// windows can be copied out with one `memcpy`, and `predictGesture(window:)`, which passes the
// window's previous `hiddenOut` / `cellOut` (nil for its first prediction) and acts on a probability
// above the threshold. Only `import CoreML` (and UIKit, CoreMotion) differ. `GestureClassifier` is
// the class the OpenCoreMLCodeGen plugin generated from Models/GestureClassifier.mlmodel, which
// `opencoreml activity-classifier train` made (Models/make_gestureclassifier.sh).

// MARK: Test-only stand-in for Core Motion

/// The two readings of `CMDeviceMotion` the game uses.
struct CMDeviceMotion {
    struct Vector { var x, y, z: Double }
    var rotationRate: Vector
    var userAcceleration: Vector
}

// MARK: The game's Core ML part

final class GestureGame {
    struct Config {
        static let chopItValue = "chop_it"
        static let driveItValue = "drive_it"
        static let shakeItValue = "shake_it"
        static let restItValue = "rest_it"

        static let doubleSize = MemoryLayout<Double>.stride
        static let samplesPerSecond = 25.0
        static let numFeatures = 6
        static let windowSize = 20
        static let windowOffset = 5
        static let numWindows = windowSize / windowOffset
        static let bufferSize = windowSize + windowOffset * (numWindows - 1)
        static let windowSizeAsBytes = doubleSize * numFeatures * windowSize
        static let windowOffsetAsBytes = doubleSize * numFeatures * windowOffset
        static let predictionThreshold = 0.9
    }

    let gestureClassifier = GestureClassifier()
    let modelInput: MLMultiArray! = GestureGame.makeMLMultiArray(numSamples: Config.windowSize)
    let dataBuffer: MLMultiArray! = GestureGame.makeMLMultiArray(numSamples: Config.bufferSize)
    var bufferIndex = 0
    var isDataAvailable = false
    var modelOutputs = [GestureClassifierOutput?](repeating: nil, count: Config.numWindows)

    var expectedGesture: String?
    var score = 0
    var wrongGesture: String?
    /// For the test: whether each prediction was given a state, in order.
    var passedState: [Bool] = []

    static func makeMLMultiArray(numSamples: Int) -> MLMultiArray? {
        try? MLMultiArray(shape: [1, numSamples, Config.numFeatures] as [NSNumber], dataType: .double)
    }

    func startGesture(_ gesture: String) {
        resetPredictionWindows()
        expectedGesture = gesture
    }

    func processMotionData(_ motionData: CMDeviceMotion) {
        guard expectedGesture != nil else { return }
        bufferMotionData(motionData)
        bufferIndex = (bufferIndex + 1) % Config.windowSize
        if bufferIndex == 0 { isDataAvailable = true }
        if isDataAvailable && bufferIndex % Config.windowOffset == 0 && bufferIndex + Config.windowOffset <= Config.windowSize {
            let window = bufferIndex / Config.windowOffset
            memcpy(modelInput.dataPointer, dataBuffer.dataPointer.advanced(by: window * Config.windowOffsetAsBytes), Config.windowSizeAsBytes)
            predictGesture(window: window)
        }
    }

    @inline(__always) func addToBuffer(_ sample: Int, _ feature: Int, _ value: Double) {
        dataBuffer[[0, sample, feature] as [NSNumber]] = value as NSNumber
    }

    /// Each sample goes in twice, `windowSize` apart, so every window is contiguous.
    func bufferMotionData(_ motionData: CMDeviceMotion) {
        for offset in [0, Config.windowSize] {
            let index = bufferIndex + offset
            if index >= Config.bufferSize { continue }
            addToBuffer(index, 0, motionData.rotationRate.x)
            addToBuffer(index, 1, motionData.rotationRate.y)
            addToBuffer(index, 2, motionData.rotationRate.z)
            addToBuffer(index, 3, motionData.userAcceleration.x)
            addToBuffer(index, 4, motionData.userAcceleration.y)
            addToBuffer(index, 5, motionData.userAcceleration.z)
        }
    }

    func predictGesture(window: Int) {
        let previousOutput = modelOutputs[window]
        passedState.append(previousOutput != nil)
        let modelOutput = try? gestureClassifier.prediction(features: modelInput, hiddenIn: previousOutput?.hiddenOut, cellIn: previousOutput?.cellOut)
        modelOutputs[window] = modelOutput
        if let prediction = modelOutput?.activity, let probability = modelOutput?.activityProbability[prediction] {
            if prediction == Config.restItValue { return }
            if probability > Config.predictionThreshold {
                if prediction == expectedGesture { score += 1 } else { wrongGesture = prediction }
                expectedGesture = nil
            }
        }
    }

    func resetPredictionWindows() {
        bufferIndex = 0
        isDataAvailable = false
        for i in 0..<modelOutputs.count { modelOutputs[i] = nil }
    }
}

// MARK: The test

@Suite("Book chapter 8: GestureIt")
struct BookChapter8GestureItTests {
    /// The made-up motion the fixture was trained on (make_gestureclassifier.sh), sample `t` at 25 Hz.
    static func motion(_ gesture: String, _ t: Int, phase: Double, random: inout TestRandom) -> CMDeviceMotion {
        let x = 2 * Double.pi * Double(t) / 25 + phase
        var r = (x: 0.0, y: 0.0, z: 0.0), a = (x: 0.0, y: 0.0, z: 0.0)
        switch gesture {
        case "chop_it": a.y = 1.5 * sin(2 * x); r.x = 0.5 * cos(2 * x)
        case "drive_it": r.z = 2 * sin(x); a.x = 0.3 * cos(x)
        case "shake_it": a.x = 1.2 * sin(5 * x); r.y = 0.4 * sin(5 * x)
        default: break
        }
        func noise() -> Double { Double.random(in: -0.15...0.15, using: &random) }
        return CMDeviceMotion(rotationRate: .init(x: r.x + noise(), y: r.y + noise(), z: r.z + noise()),
                              userAcceleration: .init(x: a.x + noise(), y: a.y + noise(), z: a.z + noise()))
    }

    @Test(arguments: ["chop_it", "drive_it", "shake_it"])
    func aGestureScoresWithinTheGameTimeout(gesture: String) {
        let game = GestureGame()
        var random = TestRandom(seed: UInt64(gesture.count))
        game.startGesture(gesture)
        // The game allows 1.5 s (37 samples at 25 Hz).
        for t in 0..<37 where game.expectedGesture != nil {
            game.processMotionData(Self.motion(gesture, t, phase: 0.4, random: &random))
        }
        #expect(game.score == 1, "wrong: \(game.wrongGesture ?? "none"), predictions: \(game.passedState.count)")
        #expect(game.wrongGesture == nil)
        // The first prediction of each window had no state to pass.
        #expect(game.passedState.first == false)
    }

    @Test func restingNeitherScoresNorEndsTheGameAndStateIsCarriedPerWindow() {
        let game = GestureGame()
        var random = TestRandom(seed: 11)
        game.startGesture("shake_it")
        for t in 0..<100 { game.processMotionData(Self.motion("rest_it", t, phase: 0, random: &random)) }
        #expect(game.score == 0 && game.wrongGesture == nil && game.expectedGesture == "shake_it")
        // 100 samples: the buffer fills after 20, then windows 0…3 every 5 samples; each window's
        // first prediction has no state, later ones pass the previous hiddenOut / cellOut.
        #expect(game.passedState.count == 17)
        #expect(game.passedState.prefix(4).allSatisfy { !$0 } && game.passedState.dropFirst(4).allSatisfy { $0 })
        #expect(game.modelOutputs.allSatisfy { $0 != nil })
        game.resetPredictionWindows()
        #expect(game.modelOutputs.allSatisfy { $0 == nil })
    }
}
