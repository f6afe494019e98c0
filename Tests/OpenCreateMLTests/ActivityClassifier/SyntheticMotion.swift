import Foundation
import OpenCreateML
import CoreMLSpec

/// Motion recordings made up for tests: three features per sample; each activity is a sine of its
/// own frequency and axis mix plus noise. A session holds one or two activities in turn, so windows
/// at a change have mixed labels.
enum SyntheticMotion {
    static let activities = ["rest", "shake", "wave"]
    static let features = ["ax", "ay", "az"]

    /// `sessions` recordings of `length` samples each (seeded), as a long-format table with columns
    /// `session`, `t`, the features and `activity`.
    static func table(sessions: Int, length: Int, seed: UInt64, firstSession: Int = 0) -> MLDataTable {
        var generator = SplitMix64(seed: seed)
        var session: [String] = [], time: [Double] = [], activity: [String] = []
        var values: [[Double]] = [[], [], []]
        for s in 0..<sessions {
            let first = Int.random(in: 0..<3, using: &generator)
            let second = Int.random(in: 0..<3, using: &generator)
            let change = Int.random(in: length / 3..<length, using: &generator)
            let phase = Double.random(in: 0..<(2 * .pi), using: &generator)
            for t in 0..<length {
                let label = t < change ? first : second
                let x = 2 * Double.pi * Double(label + 1) * Double(t) / 10 + phase
                let amplitude = label == 0 ? 0.1 : 1.0
                session.append(String(format: "s%03d", firstSession + s))
                time.append(Double(t) / 25)
                activity.append(activities[label])
                values[0].append(amplitude * sin(x) + Double.random(in: -0.2...0.2, using: &generator))
                values[1].append(amplitude * (label == 2 ? cos(x) : 0.3 * sin(x)) + Double.random(in: -0.2...0.2, using: &generator))
                values[2].append(Double(label) * 0.2 + Double.random(in: -0.2...0.2, using: &generator))
            }
        }
        var table = try! MLDataTable(dictionary: ["session": session, "t": time, "activity": activity])
        for (index, name) in features.enumerated() { table.addColumn(MLDataColumn(values[index]), named: name) }
        return table
    }
}
