import CoreMLSpec

extension CoreML_Specification_Model {
    /// The model as its function `name` sees it (nil: the default function): for a multifunction
    /// ML Program (iOS 18), a copy whose description holds that function's inputs, outputs and
    /// states, and the function's name; any other model as it is, with `main`.
    ///
    /// - Throws: ``MLModelError`` naming a function the model does not have (and those it has).
    package func selectingFunction(_ name: String?) throws -> (model: CoreML_Specification_Model, function: String) {
        let main = CoreML_Specification_MILSpec_Program.mainFunctionName
        let functions = description_p.functions
        guard !functions.isEmpty else {
            guard name == nil || name == main else {
                throw MLModelError(.generic, "the model has no function '\(name ?? "")' (it is not a multifunction model; its one function is '\(main)')")
            }
            return (self, main)
        }
        let chosen = name ?? description_p.defaultFunctionName
        guard let function = functions.first(where: { $0.name == chosen }) else {
            throw MLModelError(.generic, "the model has no function '\(chosen)' (it has \(functions.map { "'\($0.name)'" }.joined(separator: ", ")))")
        }
        var model = self
        model.description_p.input = function.input
        model.description_p.output = function.output
        model.description_p.state = function.state
        model.description_p.predictedFeatureName = function.predictedFeatureName
        model.description_p.predictedProbabilitiesName = function.predictedProbabilitiesName
        return (model, chosen)
    }
}
