@testable import OpenCreateML
import Testing

/// The automatic validation split: Turi Create 6's thresholds (its C++ `init_data`: none below 50
/// sessions, 10 % from 50, 5 % from 200, 10,000 sessions from 200,000), whole sessions, drawn from
/// the model parameters' seed.
@Suite("Activity classifier: automatic validation split")
struct ActivityValidationSplitTests {
    static func sessions(_ count: Int) -> [ActivitySession] {
        (0..<count).map { ActivitySession(id: "s\($0)", rows: [$0], samples: [[Float($0)]], labels: [0]) }
    }

    @Test func turiCreate6Thresholds() {
        #expect(MLActivityClassifier.automaticValidationFraction(sessions: 1) == nil)
        #expect(MLActivityClassifier.automaticValidationFraction(sessions: 49) == nil)
        #expect(MLActivityClassifier.automaticValidationFraction(sessions: 50) == 0.10)
        #expect(MLActivityClassifier.automaticValidationFraction(sessions: 199) == 0.10)
        #expect(MLActivityClassifier.automaticValidationFraction(sessions: 200) == 0.05)
        #expect(MLActivityClassifier.automaticValidationFraction(sessions: 199_999) == 0.05)
        // 10,000 of 200,000 sessions is 5 %, of 400,000 2.5 %.
        #expect(MLActivityClassifier.automaticValidationFraction(sessions: 200_000) == 0.05)
        #expect(MLActivityClassifier.automaticValidationFraction(sessions: 400_000) == 0.025)
    }

    @Test func automaticSplitCountsAndSeed() throws {
        let none = try MLActivityClassifier.split(Self.sessions(49), .automatic, seed: 0)
        #expect(none.training.count == 49 && none.validation.isEmpty && none.note?.contains("50") == true)

        // 60 sessions: 10 % = 6; 300 sessions: 5 % = 15.
        let sixty = try MLActivityClassifier.split(Self.sessions(60), .automatic, seed: 0)
        #expect(sixty.training.count == 54 && sixty.validation.count == 6 && sixty.note == nil)
        let three = try MLActivityClassifier.split(Self.sessions(300), .automatic, seed: 0)
        #expect(three.training.count == 285 && three.validation.count == 15)
        #expect(Set(three.training.map(\.id)).isDisjoint(with: three.validation.map(\.id)))

        // The parameters' seed draws the automatic split; a fixed split draws from its own seed.
        let ids = { (sessions: [ActivitySession]) in Set(sessions.map(\.id)) }
        let again = try MLActivityClassifier.split(Self.sessions(300), .automatic, seed: 0)
        let other = try MLActivityClassifier.split(Self.sessions(300), .automatic, seed: 1)
        #expect(ids(again.validation) == ids(three.validation))
        #expect(ids(other.validation) != ids(three.validation))
        let fixedA = try MLActivityClassifier.split(Self.sessions(300), .fixed(ratio: 0.05, seed: 7), seed: 0)
        let fixedB = try MLActivityClassifier.split(Self.sessions(300), .fixed(ratio: 0.05, seed: 7), seed: 1)
        #expect(ids(fixedA.validation) == ids(fixedB.validation))
    }
}
