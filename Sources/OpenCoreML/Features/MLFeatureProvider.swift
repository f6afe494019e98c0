/// A set of named feature values: a model's inputs for one prediction, or its outputs.
public protocol MLFeatureProvider {
    var featureNames: Set<String> { get }
    func featureValue(for featureName: String) -> MLFeatureValue?
}
