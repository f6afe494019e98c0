extension CoreML_Specification_LinkedModel {
    /// Core ML's rules: a linked model is not updatable, says how it is linked, and names its file.
    /// (Where the file may be is checked when the model is loaded from a file, not here.)
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        if model.isUpdatable {
            context.fail("a linked model cannot be updatable")
        }
        guard case .linkedModelFile(let file)? = linkType else {
            context.fail("the linked model does not say how it is linked (linkedModelFile)")
            return
        }
        if file.linkedModelFileName.defaultValue.isEmpty {
            context.fail("the linked model's file name (linkedModelFileName) is empty")
        }
    }
}
