import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml bench logistic-regression`: runs on synthetic data and on a folder of .npy files,
/// rejects bad options and files. Timings are not asserted (they are benchmarks).
struct BenchLogisticRegressionCommandTests {
    static func json(_ result: CommandResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// A little-endian .npy file (format 1.0) of `values` with `shape`, as `descr` ('<f4' or '<i8').
    static func writeNPY(_ url: URL, descr: String, shape: [Int], values: [Double]) throws {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
        while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
        header += "\n"
        var data = Data([0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0])
        data.append(contentsOf: [UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        data.append(contentsOf: Array(header.utf8))
        for value in values {
            if descr == "<f4" {
                withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { data.append(contentsOf: $0) }
            } else {
                withUnsafeBytes(of: Int64(value).littleEndian) { data.append(contentsOf: $0) }
            }
        }
        try data.write(to: url)
    }

    /// Two well-separated classes in 3 features, `count` rows.
    static func writeSplit(_ folder: URL, _ split: String, count: Int, labels: [Double]? = nil) throws {
        var random = TestRandom(seed: split == "train" ? 1 : 2)
        let classes = labels ?? (0..<count).map { Double($0 % 2) }
        let features = classes.flatMap { label in (0..<3).map { _ in Double(random.float(-1, 1)) + 3 * label } }
        try writeNPY(folder.appendingPathComponent("\(split)-features.npy"), descr: "<f4", shape: [count, 3], values: features)
        try writeNPY(folder.appendingPathComponent("\(split)-labels.npy"), descr: "<i8", shape: [count], values: classes)
    }

    @Test func syntheticRunReportsTheFit() throws {
        let result = try CommandRunner.run(["bench", "logistic-regression", "--synthetic", "400,16,3", "--json", "--threads", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.json(result)
        #expect(report["trainRows"] as? Int == 400 && report["testRows"] as? Int == 100)
        #expect(report["features"] as? Int == 16 && report["classes"] as? Int == 3)
        #expect((report["iterations"] as? Int ?? 0) >= 1)
        #expect((report["lambda"] as? Double).map { abs($0 - 1.0 / 400) < 1e-15 } == true, "λ = 1/(C·N)")
        #expect((report["trainAccuracy"] as? Double ?? 0) > 0.4, "better than chance (1/3)")
        #expect((report["loss"] as? Double ?? 9) < log(3.0))

        let table = try CommandRunner.run(["bench", "logistic-regression", "--synthetic", "400,16,3", "--penalty", "l1", "--c", "0.5"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("OWL-QN") && table.stdout.contains("test accuracy"))
    }

    @Test func npyFolderIsRead() throws {
        try withTemporaryDirectory { folder in
            try Self.writeSplit(folder, "train", count: 60)
            try Self.writeSplit(folder, "test", count: 20)
            let result = try CommandRunner.run(["bench", "logistic-regression", "--data", folder.path, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let report = try Self.json(result)
            #expect(report["trainRows"] as? Int == 60 && report["testRows"] as? Int == 20 && report["features"] as? Int == 3)
            #expect(report["testAccuracy"] as? Double == 1)
        }
    }

    @Test func badLabelFileNamesTheFile() throws {
        try withTemporaryDirectory { folder in
            try Self.writeSplit(folder, "train", count: 4, labels: [0, 1, -1, 1])
            try Self.writeSplit(folder, "test", count: 2)
            let result = try CommandRunner.run(["bench", "logistic-regression", "--data", folder.path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("train-labels.npy: element 2 is -1.0"), "\(result.stderr)")
        }
    }

    @Test(arguments: [
        ["--synthetic", "10,5"], ["--synthetic", "10,5,1"], [], ["--synthetic", "10,5,2", "--data", "/tmp"],
        ["--synthetic", "10,5,2", "--c", "0"], ["--synthetic", "10,5,2", "--penalty", "elastic"],
        ["--synthetic", "10,5,2", "--max-iterations", "0"], ["--synthetic", "10,5,2", "--tol", "-1"],
    ])
    func badOptionsAreUsageErrors(_ options: [String]) throws {
        let result = try CommandRunner.run(["bench", "logistic-regression"] + options)
        #expect(result.status == 2, "\(options): \(result.stderr)")
    }
}
