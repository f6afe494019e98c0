import COpenCoreML
import Foundation
import Testing

/// The C interface's states and functions: a stateful decoder predicted token by token through one
/// `ocm_state` as PyTorch predicted it (stateful_facts.json), its buffers read and written; a
/// multifunction package's functions loaded by name.
@Suite("C interface: states and functions")
struct CStateAndFunctionTests {
    static let programs = CInterfaceTests.programs

    /// Step `index`'s inputs (token id and mask) and PyTorch's logits.
    static func step(_ index: Int) throws -> (token: Int32, mask: [Float], logits: [Double]) {
        let all = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: programs.appendingPathComponent("stateful_facts.json"))) as? [String: Any])
        let steps = try #require((all["TorchKVCache.mlpackage"] as? [String: Any])?["steps"] as? [[String: Any]])
        let step = steps[index]
        return (Int32(try #require(step["token"] as? Int)), try #require(step["mask"] as? [Double]).map { Float($0) },
                try #require(step["logits"] as? [Double]))
    }

    /// Predicts step `index` with `state` and returns the largest difference from PyTorch's logits
    /// over the largest logit.
    static func predict(_ model: OpaquePointer, _ state: OpaquePointer?, step index: Int) throws -> Double {
        let (token, mask, reference) = try step(index)
        let ids = CInterfaceTests.owned([token]), masks = CInterfaceTests.owned(mask)
        defer { ids.deallocate(); masks.deallocate() }
        let inputs = ocm_features_create()
        defer { ocm_features_free(inputs) }
        let idShape: [Int64] = [1, 1], maskShape: [Int64] = [1, 1, Int64(mask.count)]
        #expect(ocm_features_set_array(inputs, "ids", OCM_DTYPE_INT32, 2, idShape, nil, ids.baseAddress, nil) == OCM_OK)
        #expect(ocm_features_set_array(inputs, "mask", OCM_DTYPE_FLOAT32, 3, maskShape, nil, masks.baseAddress, nil) == OCM_OK)
        var error: OpaquePointer?
        guard let outputs = ocm_model_predict(model, inputs, state, &error) else {
            defer { ocm_error_free(error) }
            throw CInterfaceTests.LoadFailure(message: String(cString: ocm_error_message(error)))
        }
        defer { ocm_features_free(outputs) }
        let logits = try CInterfaceTests.floats(outputs, "logits").values
        #expect(logits.count == reference.count)
        return zip(logits, reference).map { abs(Double($0) - $1) }.max()! / max(reference.map(abs).max()!, 1)
    }

    /// `package` loaded and a new state made for it, both freed after `body`.
    static func withModelAndState(_ package: String, _ body: (OpaquePointer, OpaquePointer) throws -> Void) throws {
        let model = try CInterfaceTests.load(programs.appendingPathComponent(package).path)
        defer { ocm_model_free(model) }
        let state = try #require(ocm_model_make_state(model, nil))
        defer { ocm_state_free(state) }
        try body(model, state)
    }

    @Test func aStatefulModelPredictsTokenByTokenWithAState() throws {
        try Self.withModelAndState("TorchKVCache.mlpackage") { model, state in try Self.predictsTokenByToken(model, state) }
    }

    static func predictsTokenByToken(_ model: OpaquePointer, _ state: OpaquePointer) throws {
        #expect(ocm_state_count(state) == 2)
        #expect(String(cString: try #require(ocm_state_name(state, 0))) == "k_cache")
        for index in 0..<5 { #expect(try predict(model, state, step: index) <= 2e-3, "step \(index)") }

        // The buffer is the state's float16 cache, shaped as declared, no longer zero.
        var dtype = OCM_DTYPE_FLOAT32, rank = 0
        var shape: UnsafePointer<Int64>?, data: UnsafeRawPointer?
        #expect(ocm_state_read(state, "k_cache", &dtype, &rank, &shape, &data, nil) == OCM_OK)
        #expect(dtype == OCM_DTYPE_FLOAT16 && rank == 3)
        #expect(Array(UnsafeBufferPointer(start: try #require(shape), count: rank)) == [1, 8, 32])
        let bits = UnsafeBufferPointer(start: try #require(data).assumingMemoryBound(to: UInt16.self), count: 8 * 32)
        #expect(bits.contains { $0 & 0x7FFF != 0 })

        // Written back to zero, the state starts over: the first token predicts as at first.
        let zeros = CInterfaceTests.owned([Float](repeating: 0, count: 8 * 32))
        defer { zeros.deallocate() }
        let cacheShape: [Int64] = [1, 8, 32]
        for name in ["k_cache", "v_cache"] {
            #expect(ocm_state_write(state, name, OCM_DTYPE_FLOAT32, 3, cacheShape, nil, zeros.baseAddress, nil) == OCM_OK)
        }
        #expect(try predict(model, state, step: 0) <= 2e-3)

        // Without a state the prediction fails, naming the states.
        #expect(throws: CInterfaceTests.LoadFailure.self) { try predict(model, nil, step: 0) }
        do { _ = try predict(model, nil, step: 0) } catch let failure as CInterfaceTests.LoadFailure {
            #expect(failure.message.contains("k_cache"), "\(failure.message)")
        }
    }

    @Test func aMultifunctionPackageLoadsTheNamedFunction() throws {
        let path = Self.programs.appendingPathComponent("TorchMultifunction.mlpackage").path
        var error: OpaquePointer?
        let adapter = try #require(ocm_model_load(path, "adapter", 0, &error))
        defer { ocm_model_free(adapter) }
        let json = try #require(ocm_model_description_json(adapter, nil))
        defer { ocm_string_free(json) }
        let description = try #require(try JSONSerialization.jsonObject(with: Data(String(cString: json).utf8)) as? [String: Any])
        #expect((description["outputs"] as? [[String: Any]])?.map { $0["name"] as? String } == ["y", "scale"])
        #expect(ocm_model_load(path, "decoder", 0, &error) == nil)
        #expect(ocm_error_code(error) == OCM_ERROR_NOT_FOUND)
        #expect(String(cString: ocm_error_message(error)).contains("adapter"))
        ocm_error_free(error)
    }
}
