import ArgumentParser
import Testing
import _OpenCoreMLTestSupport
@testable import OpenCoreMLCLI

struct InputAssignmentTests {
    @Test func inputAssignments() throws {
        let plain = try parseInputAssignment("image=digits/7.npy")
        #expect(plain.name == "image" && plain.path == "digits/7.npy")
        let equalsInPath = try parseInputAssignment("input1=a=b.json")
        #expect(equalsInPath.name == "input1" && equalsInPath.path == "a=b.json")
        for bad in ["image", "=x.npy", "image="] {
            #expect(throws: ValidationError.self) { try parseInputAssignment(bad) }
        }
        expectMessage(errorMessage { _ = try parseInputAssignment("digit.npy") }, contains: ["digit.npy", "NAME=PATH"])
    }
}
