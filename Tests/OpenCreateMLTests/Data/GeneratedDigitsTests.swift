@testable import OpenCreateML
import Testing

struct SyntheticDigitsTests {
    private static let area = SyntheticDigits.side * SyntheticDigits.side

    @Test func sameSeedSameBytesOtherSeedOtherBytes() {
        let first = SyntheticDigits(seed: 7).make(count: 300)
        let again = SyntheticDigits(seed: 7).make(count: 300)
        let other = SyntheticDigits(seed: 8).make(count: 300)
        #expect(first.pixels.count == 300 * Self.area && first.labels.count == 300)
        #expect(first.pixels == again.pixels)
        #expect(first.labels == again.labels)
        #expect(first.pixels != other.pixels)
        #expect(first.labels != other.labels)

        // A shorter run is the start of a longer one.
        let prefix = SyntheticDigits(seed: 7).make(count: 45)
        #expect(prefix.pixels[...] == first.pixels[..<(45 * Self.area)])
        #expect(prefix.labels[...] == first.labels[..<45])
    }

    /// Pins the bytes: rendering uses only exactly rounded arithmetic, so this holds on every platform
    /// (x86-64 and arm64, debug and release). Update it only when the glyphs or the recipe change on purpose.
    @Test func bytesArePinned() {
        let digits = SyntheticDigits(seed: 1).make(count: 20)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in digits.pixels { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        #expect(hash == 0x368e_be0d_2aec_6dd2)
        #expect(digits.labels == [6, 4, 7, 2, 9, 1, 5, 0, 8, 3, 0, 8, 9, 6, 3, 4, 1, 7, 5, 2])
    }

    @Test func labelsAreBalancedAndImagesLookLikeMNIST() throws {
        let count = 1003
        let digits = SyntheticDigits(seed: 11).make(count: count)
        var perClass = [Int](repeating: 0, count: 10)
        for label in digits.labels {
            try #require((0..<10).contains(label))
            perClass[label] += 1
        }
        for classCount in perClass { #expect(abs(Double(classCount) - Double(count) / 10) <= 1, "\(perClass)") }
        #expect(digits.labels.prefix(10).sorted() == Array(0..<10), "every ten from the start hold each digit once")

        for index in 0..<count {
            let image = digits.pixels[(index * Self.area)..<((index + 1) * Self.area)]
            let brightest = image.max() ?? 0
            let mean = Double(image.reduce(0) { $0 + Int($1) }) / Double(Self.area)
            #expect(brightest >= 200, "image \(index) (a \(digits.labels[index])) peaks at \(brightest)")
            #expect(mean > 10 && mean < 120, "image \(index) (a \(digits.labels[index])) has mean \(mean)")
            // Black background: the border rows are mostly dark.
            let top = image.prefix(SyntheticDigits.side)
            #expect(top.filter { $0 > 128 }.count < SyntheticDigits.side / 2, "image \(index) top row")
        }
    }

    @Test func classesAreLearnableButExamplesVary() {
        let area = Self.area
        let training = SyntheticDigits(seed: 1).make(count: 2000)
        var centroids = [Double](repeating: 0, count: 10 * area)
        var sizes = [Double](repeating: 0, count: 10)
        for (index, label) in training.labels.enumerated() {
            sizes[label] += 1
            for pixel in 0..<area { centroids[label * area + pixel] += Double(training.pixels[index * area + pixel]) }
        }
        for label in 0..<10 {
            for pixel in 0..<area { centroids[label * area + pixel] /= sizes[label] }
        }

        let test = SyntheticDigits(seed: 2).make(count: 1000)
        var correct = 0
        for (index, label) in test.labels.enumerated() {
            var best = -1
            var bestDistance = Double.infinity
            for candidate in 0..<10 {
                var distance = 0.0
                for pixel in 0..<area {
                    let difference = Double(test.pixels[index * area + pixel]) - centroids[candidate * area + pixel]
                    distance += difference * difference
                }
                if distance < bestDistance { (best, bestDistance) = (candidate, distance) }
            }
            if best == label { correct += 1 }
        }
        let accuracy = Double(correct) / Double(test.labels.count)
        #expect(accuracy >= 0.5, "nearest-centroid accuracy \(accuracy)")

        // Two examples of the same digit differ: mean absolute pixel difference over consecutive pairs.
        var previous = [Int](repeating: -1, count: 10)
        var total = 0.0
        var pairs = 0
        for (index, label) in test.labels.enumerated() {
            if previous[label] >= 0 {
                var sum = 0
                for pixel in 0..<area {
                    sum += abs(Int(test.pixels[index * area + pixel]) - Int(test.pixels[previous[label] * area + pixel]))
                }
                total += Double(sum) / Double(area)
                pairs += 1
            }
            previous[label] = index
        }
        #expect(pairs == 990)
        #expect(total / Double(pairs) > 10, "within-class mean absolute difference \(total / Double(pairs))")
    }

    @Test func emptyRequestGivesNothing() {
        let digits = SyntheticDigits(seed: 3).make(count: 0)
        #expect(digits.pixels.isEmpty && digits.labels.isEmpty)
    }
}
