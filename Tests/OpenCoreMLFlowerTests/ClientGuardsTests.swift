import Foundation
import Testing
@testable import OpenCoreMLFlower

/// Values from the server and local files that must not end the client.
@Suite("Client guards")
struct ClientGuardsTests {
    /// `server-round` comes from the server as a float64: whole numbers an Int holds name the round;
    /// NaN, infinities, fractions and values beyond Int's range (2^63 = 9223372036854775808) fall
    /// back to the message's group instead of trapping in `Int(_:)`.
    @Test func serverRoundThatIsNoIntFallsBackToTheGroup() {
        #expect(FlowerClient.roundLabel(3, groupID: "g") == "3")
        #expect(FlowerClient.roundLabel(-2, groupID: "g") == "-2")
        #expect(FlowerClient.roundLabel(nil, groupID: "g") == "g")
        for value in [Double.nan, .infinity, -.infinity, 2.5, 9_223_372_036_854_775_808.0, -1e19] {
            #expect(FlowerClient.roundLabel(value, groupID: "group 7") == "group 7", "server-round \(value)")
        }
    }

    /// A profile file that cannot be opened is a local configuration error naming the path, not an
    /// instruction error.
    @Test func profileFileThatCannotBeOpenedIsAConfigurationError() {
        let path = "/nonexistent-\(UUID().uuidString)/profile.jsonl"
        #expect(throws: ClientProfileError.self) { _ = try ClientProfile(path: path) }
        do {
            _ = try ClientProfile(path: path)
        } catch {
            #expect("\(error)".contains(path))
        }
    }

    /// Events are appended one JSON line each, after what the file held.
    @Test func profileAppendsOneLinePerEvent() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("old\n".utf8).write(to: url)
        do {
            let profile = try ClientProfile(path: url.path)
            profile.record("poll", at: Date(timeIntervalSince1970: 1.5), [("round", .string("3"))])
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text == "old\n{\"t\": 1.500000, \"event\": \"poll\", \"round\": \"3\"}\n")
    }
}
