import Foundation
import OpenCoreML

/// A real Flower SuperLink and the Flower app of `Federated/flower-app` on loopback, from the venv
/// named by `OPENCOREML_FLOWER_VENV` (flwr 1.41.0 and coremltools 9.0; CI makes it).
final class LocalFederation: @unchecked Sendable {
    static let venv = ProcessInfo.processInfo.environment["OPENCOREML_FLOWER_VENV"]
    static let appFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Federated/flower-app")

    let folder: URL
    let port: Int
    private var superlink: Process?
    private var environment: [String: String]

    /// Starts a SuperLink on a free port, with a Flower home whose default connection is it.
    init() throws {
        guard let venv = Self.venv else { throw Failure("OPENCOREML_FLOWER_VENV is not set") }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("federation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("flwr-home"), withIntermediateDirectories: true)
        port = try Self.freePort()
        environment = ProcessInfo.processInfo.environment
        environment["PATH"] = "\(venv)/bin:" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["FLWR_HOME"] = folder.appendingPathComponent("flwr-home").path
        try """
            [superlink]
            default = "local-opencoreml"

            [superlink.local-opencoreml]
            address = "127.0.0.1:\(port)"
            insecure = true

            """.write(to: folder.appendingPathComponent("flwr-home/config.toml"), atomically: true, encoding: .utf8)
        try startSuperLink()
    }

    deinit {
        stopSuperLink()
        try? FileManager.default.removeItem(at: folder)
    }

    var superlinkLog: String { (try? String(contentsOf: folder.appendingPathComponent("superlink.log"), encoding: .utf8)) ?? "" }

    /// Starts (or restarts) the SuperLink and waits until it serves.
    func startSuperLink() throws {
        let log = folder.appendingPathComponent("superlink.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        superlink = try launch(["flower-superlink", "--insecure", "--host", "127.0.0.1", "--port", String(port),
                                "--disable-runtime-dependency-installation"], output: log)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if superlinkLog.contains("Uvicorn running") { return }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw Failure("the SuperLink did not start within 60 s:\n\(superlinkLog.suffix(2000))")
    }

    /// Stops the SuperLink (SIGTERM, then SIGKILL).
    func stopSuperLink() {
        guard let superlink, superlink.isRunning else { return }
        superlink.terminate()
        let deadline = Date().addingTimeInterval(10)
        while superlink.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        if superlink.isRunning { kill(superlink.processIdentifier, SIGKILL) }
        superlink.waitUntilExit()
    }

    /// Runs the Flower app with `config` (run-config keys) and waits until the run ends; returns its output.
    func runApp(_ config: [String: String], timeout: TimeInterval = 900) throws -> String {
        let log = folder.appendingPathComponent("run-\(UUID().uuidString.prefix(6)).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let text = config.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let run = try launch(["flwr", "run", Self.appFolder.path, "local-opencoreml", "--run-config", text, "--stream"], output: log)
        let deadline = Date().addingTimeInterval(timeout)
        while run.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        if run.isRunning {
            run.terminate()
            throw Failure("flwr run did not finish within \(Int(timeout)) s:\n\((try? String(contentsOf: log, encoding: .utf8))?.suffix(3000) ?? "")")
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard run.terminationStatus == 0 else { throw Failure("flwr run exited with \(run.terminationStatus):\n\(output.suffix(3000))") }
        return output
    }

    /// Runs `code` with the venv's Python and `arguments`; returns its exit status.
    func python(_ code: String, _ arguments: String...) throws -> Int32 {
        let log = folder.appendingPathComponent("python-\(UUID().uuidString.prefix(6)).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = try launch(["python", "-c", code] + arguments, output: log)
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func launch(_ arguments: [String], output: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = folder
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    static func freePort() throws -> Int {
        #if os(Linux)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let fd = socket(AF_INET, stream, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
