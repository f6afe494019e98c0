import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport
@testable import OpenCreateML

// MARK: IDX

struct IDXDatasetTests {
    /// Three 2×4 images with labels, written plain (train) and gzipped (test).
    private struct Sample {
        var pixels: [UInt8]
        var labels: [UInt8]
        init(seed: UInt64) {
            var random = TestRandom(seed: seed)
            pixels = (0..<24).map { _ in UInt8(random.int(0..<256)) }
            pixels[0] = 255
            pixels[1] = 0
            labels = [7, 0, 9]
        }
    }

    @Test func plainAndGzipRoundTrip() throws {
        try withTemporaryDirectory { folder in
            let train = Sample(seed: 1), test = Sample(seed: 2)
            try idxImages(train.pixels, count: 3, rows: 2, columns: 4).write(to: folder.appendingPathComponent("train-images-idx3-ubyte"))
            try idxLabels(train.labels).write(to: folder.appendingPathComponent("train-labels-idx1-ubyte"))
            try writeGzip(idxImages(test.pixels, count: 3, rows: 2, columns: 4), to: folder.appendingPathComponent("t10k-images-idx3-ubyte.gz"))
            try writeGzip(idxLabels(test.labels), to: folder.appendingPathComponent("t10k-labels-idx1-ubyte.gz"))

            for (split, sample) in [(LabeledDataset.Split.train, train), (.test, test)] {
                let dataset = try LabeledDataset.idx(folder: folder.path, split: split)
                #expect(dataset.count == 3)
                #expect(dataset.featureCount == 8)
                #expect(dataset.sampleShape == [2, 4])
                #expect(dataset.labels == [7, 0, 9])
                #expect(dataset.values.count == 24)
                for (value, pixel) in zip(dataset.values, sample.pixels) {
                    #expect(abs(value - Float(pixel) / 255) < 1e-6)
                }
                #expect(dataset.values[0] == 1 && dataset.values[1] == 0)
                #expect(dataset.name.contains(split.rawValue))
                #expect(Array(dataset.row(2)) == Array(dataset.values[16..<24]))

                let unscaled = try LabeledDataset.idx(folder: folder.path, split: split, scale: 1)
                #expect(unscaled.values == sample.pixels.map(Float.init))
            }
        }
    }

    /// gzip is recognised by its magic bytes, not the name; several gzip members read as one.
    @Test func gzipWithoutSuffixAndInMembers() throws {
        try withTemporaryDirectory { folder in
            let sample = Sample(seed: 3)
            try writeGzip(idxImages(sample.pixels, count: 3, rows: 2, columns: 4), to: folder.appendingPathComponent("train-images-idx3-ubyte"))
            let labels = idxLabels(sample.labels)
            let first = folder.appendingPathComponent("a.gz"), second = folder.appendingPathComponent("b.gz")
            try writeGzip(labels.prefix(5), to: first)
            try writeGzip(labels.dropFirst(5), to: second)
            try (Data(contentsOf: first) + Data(contentsOf: second)).write(to: folder.appendingPathComponent("train-labels-idx1-ubyte.gz"))

            let dataset = try LabeledDataset.idx(folder: folder.path, split: .train, scale: 1)
            #expect(dataset.values == sample.pixels.map(Float.init))
            #expect(dataset.labels == [7, 0, 9])
        }
    }

    /// Every broken folder or file is one error naming the file and the problem.
    @Test func brokenFilesAreNamed() throws {
        try withTemporaryDirectory { folder in
            let images = folder.appendingPathComponent("train-images-idx3-ubyte")
            let labels = folder.appendingPathComponent("train-labels-idx1-ubyte")
            let pixels = Sample(seed: 4).pixels
            let good = idxImages(pixels, count: 3, rows: 2, columns: 4)
            func load() throws { _ = try LabeledDataset.idx(folder: folder.path, split: .train) }

            expectMessage(errorMessage { _ = try LabeledDataset.idx(folder: folder.appendingPathComponent("nope").path, split: .train) }, contains: ["nope", "no such folder"])

            try good.write(to: images)
            expectMessage(errorMessage(load), contains: [folder.path, "no train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"])

            try idxLabels([1, 2, 3]).write(to: labels)
            try load()  // the good pair loads

            try idxLabels([1, 2, 3]).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "wrong magic number 0x00000801", "expected 0x00000803"])

            try idxImages(pixels, count: 3, rows: 2, columns: 4, magic: 0x0000_0D03).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "wrong magic", "not unsigned bytes"])

            try Data("PK\u{3}\u{4} a zip file".utf8).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "not an IDX file"])

            try good.prefix(10).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "truncated", "16-byte"])

            try good.dropLast(5).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "truncated", "19 bytes", "expected 24"])

            try (good + Data([1, 2])).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "2 unexpected bytes"])

            try good.write(to: images)
            try idxLabels([1, 2]).write(to: labels)
            expectMessage(errorMessage(load), contains: [labels.path, "count mismatch", "2 labels for 3 images"])

            try idxLabels([1, 2], count: 3).write(to: labels)
            expectMessage(errorMessage(load), contains: [labels.path, "truncated"])

            // Huge dimensions in the header must not overflow.
            try idxImages(pixels, count: 0xFFFF_FFFF, rows: 0xFFFF_FFFF, columns: 0xFFFF_FFFF).write(to: images)
            try idxLabels([1, 2, 3], count: 0xFFFF_FFFF).write(to: labels)
            expectMessage(errorMessage(load), contains: [images.path, "truncated"])
            try idxLabels([1, 2, 3]).write(to: labels)

            try idxImages([], count: 3, rows: 0, columns: 4).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "0×4"])
        }
    }

    @Test func brokenGzipIsNamed() throws {
        try withTemporaryDirectory { folder in
            var random = TestRandom(seed: 5)
            let pixels = (0..<3000).map { _ in UInt8(random.int(0..<256)) }
            let images = folder.appendingPathComponent("t10k-images-idx3-ubyte.gz")
            try writeGzip(idxLabels([1, 2, 3]), to: folder.appendingPathComponent("t10k-labels-idx1-ubyte.gz"))
            try writeGzip(idxImages(pixels, count: 3, rows: 20, columns: 50), to: images)
            let compressed = try Data(contentsOf: images)
            func load() throws { _ = try LabeledDataset.idx(folder: folder.path, split: .test) }
            try load()

            try compressed.prefix(compressed.count / 2).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "truncated gzip"])

            var damaged = compressed
            for index in 20..<60 { damaged[index] ^= 0x5A }
            try damaged.write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "gzip"])

            try (compressed + Data("junk".utf8)).write(to: images)
            expectMessage(errorMessage(load), contains: [images.path, "unexpected bytes after the gzip data"])
        }
    }

    /// The real Fashion-MNIST when the system has it: 60,000 + 10,000 28×28 images, 10 balanced classes.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz")))
    func fashionMNISTWhenInstalled() throws {
        for (split, count) in [(LabeledDataset.Split.test, 10_000), (.train, 60_000)] {
            let dataset = try LabeledDataset.idx(folder: "/usr/share/datasets/fashion-mnist", split: split)
            #expect(dataset.count == count)
            #expect(dataset.featureCount == 784)
            #expect(dataset.sampleShape == [28, 28])
            #expect(dataset.classCount == 10)
            let perClass = Dictionary(grouping: dataset.labels, by: { $0 }).mapValues(\.count)
            #expect(perClass.values.allSatisfy { $0 == count / 10 })
            #expect(dataset.values.min() == 0 && dataset.values.max() == 1)
        }
    }
}

// MARK: CSV

struct CSVDatasetTests {
    private func parse(_ text: String, scale: Float = 1) throws -> LabeledDataset {
        try LabeledDataset.parseCSV(Data(text.utf8), path: "digits.csv", scale: scale, name: "digits")
    }

    @Test func headerCRLFAndScale() throws {
        let dataset = try parse("label,1x1,1x2,1x3\r\n3,0,255,51\r\n\r\n1,10,20,30\r\n\r\n", scale: 1 / 255)
        #expect(dataset.count == 2)
        #expect(dataset.featureCount == 3)
        #expect(dataset.labels == [3, 1])
        let expected: [Float] = [0, 1, 0.2, 10 / 255, 20 / 255, 30 / 255]
        #expect(zip(dataset.values, expected).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(dataset.values.count == 6)
    }

    @Test func noHeaderDecimalsAndSpaces() throws {
        let dataset = try parse("0, 0.5,1e-3 ,-2\n2,1,2,+3")
        #expect(dataset.labels == [0, 2])
        let expected: [Float] = [0.5, 0.001, -2, 1, 2, 3]
        #expect(zip(dataset.values, expected).allSatisfy { abs($0 - $1) < 1e-7 })
    }

    @Test func gzippedFileLoads() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("small.csv.gz")
            try writeGzip(Data("5,1,2\n4,3,4\n".utf8), to: url)
            let dataset = try LabeledDataset.csv(path: url.path, scale: 0.5)
            #expect(dataset.labels == [5, 4])
            #expect(dataset.values == [0.5, 1, 1.5, 2])
            #expect(dataset.name == "small.csv.gz")
        }
    }

    /// Errors name the file, the line (counting blank lines and the header) and the column.
    @Test func errorsNameLineAndColumn() throws {
        expectMessage(errorMessage { _ = try parse("label,a,b\n1,2,3\n\n1,2,x\n") }, contains: ["digits.csv", "line 4, column 3", "'x' is not a number"])
        expectMessage(errorMessage { _ = try parse("1,2,3\n1,nan,3\n") }, contains: ["line 2, column 2", "not a finite number"])
        expectMessage(errorMessage { _ = try parse("1,2,3\n1,2,-inf\n") }, contains: ["line 2, column 3", "not a finite number"])
        expectMessage(errorMessage { _ = try parse("1,2,3\n1,2,1e999\n") }, contains: ["line 2, column 3", "not a finite number"])
        expectMessage(errorMessage { _ = try parse("1,2,3\n1,2\n") }, contains: ["line 2: 2 columns, expected 3 like line 1"])
        expectMessage(errorMessage { _ = try parse("label,a,b\n1,2,3,4\n") }, contains: ["line 2: 4 columns, expected 3 like the header on line 1"])
        expectMessage(errorMessage { _ = try parse("1,2,3\n1.5,2,3\n") }, contains: ["line 2, column 1", "label '1.5'"])
        expectMessage(errorMessage { _ = try parse("1,2,3\n-1,2,3\n") }, contains: ["line 2, column 1", "label '-1'"])
        expectMessage(errorMessage { _ = try parse("1,,3\n") }, contains: ["line 1, column 2", "empty field"])
        expectMessage(errorMessage { _ = try parse("1,0x1p3,3\n") }, contains: ["line 1, column 2", "is not a number"])
        expectMessage(errorMessage { _ = try parse("7\n") }, contains: ["line 1", "no values"])
        expectMessage(errorMessage { _ = try parse("label,a\n") }, contains: ["only a header"])
        expectMessage(errorMessage { _ = try parse("") }, contains: ["digits.csv", "empty file"])
        expectMessage(errorMessage { _ = try LabeledDataset.csv(path: "/no/such/mnist_train.csv", scale: 1) }, contains: ["/no/such/mnist_train.csv", "no such file"])
    }

    /// Training features from `.npy` keep the finite rule (prediction inputs pass NaN as data):
    /// the error names the row and the value.
    @Test func npyTrainingFeaturesMustBeFinite() throws {
        try withTemporaryDirectory { folder in
            let features = try MLMultiArray(shape: [3, 2], dataType: .double)
            for index in 0..<6 { features[index] = NSNumber(value: Double(index)) }
            features[3] = NSNumber(value: Double.nan)
            let labels = try MLMultiArray(shape: [3], dataType: .double)
            for index in 0..<3 { labels[index] = 0 }
            let x = folder.appendingPathComponent("x.npy"), y = folder.appendingPathComponent("y.npy")
            try features.npyData().write(to: x)
            try labels.npyData().write(to: y)
            expectMessage(errorMessage { _ = try LabeledDataset(npyFeatures: x, labels: y) }, contains: ["x.npy", "row 1, value 1 is nan"])
            features[3] = 3
            try features.npyData().write(to: x)
            #expect(try LabeledDataset(npyFeatures: x, labels: y).count == 3)
        }
    }

    @Test func datasetHelpers() {
        let dataset = LabeledDataset(name: "d", count: 3, featureCount: 2, values: [1, 2, 3, 4, 5, 6], labels: [0, 4, 1])
        #expect(dataset.sampleShape == [2])
        #expect(dataset.classCount == 5)
        #expect(Array(dataset.row(1)) == [3, 4])
        let first = dataset.prefix(2)
        #expect(first.count == 2 && first.values == [1, 2, 3, 4] && first.labels == [0, 4])
        #expect(dataset.prefix(10).count == 3)
    }
}

/// Fuzzing found that a gzip trailer's claimed size went straight into a 2 GB reservation.
struct GzipTrailerTests {
    @Test func aLyingTrailerIsAnErrorNotAnAllocation() throws {
        try withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("lie.gz")
            try writeGzip(Data("0,1,2\n".utf8), to: file)
            var bytes = try Data(contentsOf: file)
            bytes.replaceSubrange((bytes.count - 4)..<bytes.count, with: [0, 0, 0, 0x80])  // ISIZE = 2³¹
            let start = OpenCoreMLRuntime.peakResidentBytes
            #expect(throws: CreateMLError.self) { _ = try Gzip.decompress(bytes, path: file.path) }
            #expect(OpenCoreMLRuntime.peakResidentBytes - start < 100_000_000)
        }
    }
}
