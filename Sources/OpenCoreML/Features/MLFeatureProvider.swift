/// A set of named feature values: a model's inputs for one prediction, or its outputs.
public protocol MLFeatureProvider {
    /// The names of the features the provider holds.
    var featureNames: Set<String> { get }
    /// The value of the feature named `featureName`, or nil if the provider has none.
    func featureValue(for featureName: String) -> MLFeatureValue?
}
