import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `predict` on the ML Programs of the second security round (`HostilePrograms`): each ends in exit
/// code 1 and one error line naming the operation and the limit — not gigabytes, not minutes.
struct HostileProgramCommandTests {
    /// Runs `predict` on `model` with x = [0.5, 0.5, 0.5, 0.5] and `options`.
    private func predict(_ model: CoreML_Specification_Model, _ options: [String]) throws -> CommandResult {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("Hostile.mlmodel")
            try model.write(to: url)
            let input = folder.appendingPathComponent("x.json")
            try Data("[0.5, 0.5, 0.5, 0.5]".utf8).write(to: input)
            return try CommandRunner.run(["predict", url.path, "--input", "x=\(input.path)"] + options)
        }
    }

    private func expectOneErrorLine(_ result: CommandResult, containing parts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "exit status \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        for part in parts { #expect(result.stderr.contains(part), "\(result.stderr)", sourceLocation: sourceLocation) }
    }

    @Test func tenThousandOperationsStayWithinTheMemoryLimit() throws {
        let chain = HostilePrograms.reluChain(10_000)
        // 10,000 steps are reckoned at 20 MB: more than 10 MB, well within 1 GB.
        expectOneErrorLine(try predict(chain, ["--memory-limit", "0.01"]),
                           containing: ["ML Program: operation 4882 (relu → v4882): needs 2.0 kB more", "passes the memory limit of 10.0 MB"])
        let fits = try predict(chain, ["--memory-limit", "1", "--json"])
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(fits.stdout.contains("0.5"), "\(fits.stdout)")
    }

    @Test func tensorsAliveTogetherStayWithinTheMemoryLimit() throws {
        // 24 fills of 4 MB each, concatenated: 96 MB alive, past a 64 MB limit.
        expectOneErrorLine(try predict(HostilePrograms.liveFills(24, size: 1 << 20), ["--memory-limit", "0.064"]),
                           containing: ["(fill → f", "passes the memory limit of 64.0 MB"])
    }

    @Test func aLoopOfLargeProductsStopsAtTheWorkLimit() throws {
        let loop = HostilePrograms.matmulLoop(size: 256, iterations: 100_000)
        expectOneErrorLine(try predict(loop, ["--loop-work-limit", "1e9"]),
                           containing: ["(matmul → product): the loops of one prediction did more than 1000000000 multiply-adds' worth of work"])
        let short = try predict(HostilePrograms.matmulLoop(size: 16, iterations: 3), ["--json"])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.stdout.contains("3"), "\(short.stdout)")
        let usage = try predict(loop, ["--loop-work-limit", "0"])
        #expect(usage.status == 2, "\(usage.stderr)")
    }
}
