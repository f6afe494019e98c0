"""The arrays an OpenCoreML model exchanges, read from and written into its .mlmodel protobuf.

This is the convention the Swift client (OpenCoreMLFlower, `MLModel.updatableWeightKeys`) shares;
both sides must list the same arrays, in the same order, under the same names and shapes.

Networks: the model's `neuralNetwork`, `neuralNetworkClassifier` or `neuralNetworkRegressor`; for a
`pipeline`, `pipelineClassifier` or `pipelineRegressor`, the networks of its models, recursively,
in the pipeline's order.

Arrays: for every layer of those networks, in order, whose `isUpdatable` is set, each of the
layer's trainable blobs below, in the order shown, as a float32 array named `<layer.name>.<blob>`.
Shapes use the layer's own fields; "flat" means a 1-D array of the stored values.

  innerProduct         weights [outputChannels, inputChannels]; bias [outputChannels] if hasBias
  convolution          (only with at most one input)
                       weights [outputChannels, kernelChannels, kH, kW], or for isDeconvolution
                       [kernelChannels, outputChannels / max(nGroups, 1), kH, kW]
                       (kernelSize [kH, kW]; [3, 3] when empty); bias [outputChannels] if hasBias
  embedding            weights [outputChannels, inputDim]; bias [outputChannels] if hasBias
  batchnorm            gamma [channels], beta [channels] (mean and variance are not exchanged)
  uniDirectionalLSTM   h = outputVectorSize, x = inputVectorSize, blobs of weightParams:
                       inputGateWeightMatrix, forgetGateWeightMatrix, blockInputWeightMatrix,
                       outputGateWeightMatrix [h, x];
                       inputGateRecursionMatrix, forgetGateRecursionMatrix,
                       blockInputRecursionMatrix, outputGateRecursionMatrix [h, h];
                       if params.hasBiasVectors: inputGateBiasVector, forgetGateBiasVector,
                       blockInputBiasVector, outputGateBiasVector [h];
                       if params.hasPeepholeVectors: inputGatePeepholeVector,
                       forgetGatePeepholeVector, outputGatePeepholeVector [h]
  scale                scale flat; bias flat if hasBias
  bias                 bias flat
  batchedMatmul        (only with at most one input) weights flat; bias flat if hasBias
  activation           PReLU: alpha flat; parametricSoftplus: alpha flat, beta flat
  any other layer      nothing

Values: a blob's `floatValue`, or its `float16Value` (little-endian IEEE half floats) when
floatValue is empty. Written back, a blob holds floatValue only (float16Value cleared).

Packed form (`pack`, `unpack`): one 1-D float32 array named PACKED holding every array's values
(row-major) one after another, in the table's order. It travels as 2 Flower objects instead of
2 per array; FedAvg's weighted mean of packed arrays is the packed weighted mean. The Swift client
answers in the form it was sent.
"""

import hashlib

import numpy as np

_LSTM_GATES = ("inputGate", "forgetGate", "blockInput", "outputGate")
_LSTM_PEEPHOLE_GATES = ("inputGate", "forgetGate", "outputGate")

FLAT = None  # the shape of a blob exchanged as a 1-D array of its stored values
PACKED = "packed"  # the name of the packed form's one array (named arrays always hold a dot)


class WeightTableError(ValueError):
    """A model whose weights cannot be exchanged, or arrays that do not fit the model."""


def _inner_product(layer):
    p = layer.innerProduct
    yield "weights", p.weights, (p.outputChannels, p.inputChannels)
    if p.hasBias:
        yield "bias", p.bias, (p.outputChannels,)


def _convolution(layer):
    if len(layer.input) > 1:  # weights given as a second input, not stored in the layer
        return
    p = layer.convolution
    kernel = tuple(p.kernelSize) if len(p.kernelSize) == 2 else (3, 3)
    if p.isDeconvolution:
        shape = (p.kernelChannels, p.outputChannels // max(p.nGroups, 1)) + kernel
    else:
        shape = (p.outputChannels, p.kernelChannels) + kernel
    yield "weights", p.weights, shape
    if p.hasBias:
        yield "bias", p.bias, (p.outputChannels,)


def _embedding(layer):
    p = layer.embedding
    yield "weights", p.weights, (p.outputChannels, p.inputDim)
    if p.hasBias:
        yield "bias", p.bias, (p.outputChannels,)


def _batchnorm(layer):
    p = layer.batchnorm
    yield "gamma", p.gamma, (p.channels,)
    yield "beta", p.beta, (p.channels,)


def _lstm(layer):
    p = layer.uniDirectionalLSTM
    h, x = p.outputVectorSize, p.inputVectorSize
    w = p.weightParams
    for gate in _LSTM_GATES:
        yield gate + "WeightMatrix", getattr(w, gate + "WeightMatrix"), (h, x)
    for gate in _LSTM_GATES:
        yield gate + "RecursionMatrix", getattr(w, gate + "RecursionMatrix"), (h, h)
    if p.params.hasBiasVectors:
        for gate in _LSTM_GATES:
            yield gate + "BiasVector", getattr(w, gate + "BiasVector"), (h,)
    if p.params.hasPeepholeVectors:
        for gate in _LSTM_PEEPHOLE_GATES:
            yield gate + "PeepholeVector", getattr(w, gate + "PeepholeVector"), (h,)


def _scale(layer):
    yield "scale", layer.scale.scale, FLAT
    if layer.scale.hasBias:
        yield "bias", layer.scale.bias, FLAT


def _bias(layer):
    yield "bias", layer.bias.bias, FLAT


def _batched_matmul(layer):
    if len(layer.input) > 1:  # a product of two inputs: no stored weights
        return
    yield "weights", layer.batchedMatmul.weights, FLAT
    if layer.batchedMatmul.hasBias:
        yield "bias", layer.batchedMatmul.bias, FLAT


def _activation(layer):
    kind = layer.activation.WhichOneof("NonlinearityType")
    if kind == "PReLU":
        yield "alpha", layer.activation.PReLU.alpha, FLAT
    elif kind == "parametricSoftplus":
        yield "alpha", layer.activation.parametricSoftplus.alpha, FLAT
        yield "beta", layer.activation.parametricSoftplus.beta, FLAT


# The table: layer type (the NeuralNetworkLayer `layer` oneof) -> its exchanged blobs, each as
# (blob name, WeightParams message, shape or FLAT). Layer types not listed exchange nothing.
TABLE = {
    "innerProduct": _inner_product,
    "convolution": _convolution,
    "embedding": _embedding,
    "batchnorm": _batchnorm,
    "uniDirectionalLSTM": _lstm,
    "scale": _scale,
    "bias": _bias,
    "batchedMatmul": _batched_matmul,
    "activation": _activation,
}

_NETWORKS = ("neuralNetwork", "neuralNetworkClassifier", "neuralNetworkRegressor")
_PIPELINES = ("pipeline", "pipelineClassifier", "pipelineRegressor")


def _networks(spec):
    """The neural networks of a model, in order (inside pipelines too)."""
    kind = spec.WhichOneof("Type")
    if kind in _NETWORKS:
        yield getattr(spec, kind)
    elif kind in _PIPELINES:
        pipeline = spec.pipeline if kind == "pipeline" else getattr(spec, kind).pipeline
        for model in pipeline.models:
            yield from _networks(model)


def _entries(spec):
    """(array name, layer name, blob name, WeightParams, shape or FLAT) of every exchanged blob,
    in order."""
    for network in _networks(spec):
        for layer in network.layers:
            if not layer.isUpdatable:
                continue
            blobs = TABLE.get(layer.WhichOneof("layer"))
            if blobs is None:
                continue
            for blob, params, shape in blobs(layer):
                yield f"{layer.name}.{blob}", layer.name, blob, params, shape


def _stored_values(layer, blob, params):
    if len(params.floatValue):
        return np.asarray(params.floatValue, dtype=np.float32)
    if len(params.float16Value):
        raw = params.float16Value
        if len(raw) % 2:
            raise WeightTableError(
                f"layer '{layer}', blob '{blob}': float16Value holds {len(raw)} bytes, not a whole number of float16 values"
            )
        return np.frombuffer(raw, dtype="<f2").astype(np.float32)
    raise WeightTableError(
        f"layer '{layer}', blob '{blob}': no floatValue or float16Value "
        "(quantized or raw weights cannot be exchanged)"
    )


def _stored_count(params):
    return len(params.floatValue) if len(params.floatValue) else len(params.float16Value) // 2


def arrays_from_spec(spec):
    """[(name, float32 ndarray)] of the model's exchanged blobs, in the table's order."""
    result = []
    for name, layer, blob, params, shape in _entries(spec):
        values = _stored_values(layer, blob, params)
        if shape is not FLAT:
            needed = int(np.prod(shape))
            if values.size != needed:
                raise WeightTableError(
                    f"layer '{layer}', blob '{blob}': {values.size} values stored, "
                    f"but the layer declares shape {list(shape)} ({needed} values)"
                )
            values = values.reshape(shape)
        result.append((name, values))
    if not result:
        raise WeightTableError(
            "the model has no updatable layer with trainable weights; make it updatable first: "
            "opencoreml make-updatable MODEL … (then give the updatable .mlmodel)"
        )
    return result


def spec_with_arrays(spec, arrays):
    """A copy of `spec` whose exchanged blobs hold `arrays` (a mapping name -> array): exactly the
    table's names, each of the table's shape (flat blobs: the stored count) and finite. Each blob
    is stored as floatValue, with float16Value cleared; its isUpdatable flag is kept."""
    from coremltools.proto import Model_pb2

    copy = Model_pb2.Model()
    copy.CopyFrom(spec)
    arrays = dict(arrays)
    expected_names = []
    for name, layer, blob, params, shape in _entries(copy):
        expected_names.append(name)
        if name not in arrays:
            raise WeightTableError(f"no array '{name}' (layer '{layer}', blob '{blob}') among the arrays given")
        values = np.asarray(arrays[name], dtype=np.float32)
        expected = tuple(shape) if shape is not FLAT else (_stored_count(params),)
        if tuple(values.shape) != expected:
            raise WeightTableError(
                f"array '{name}' has shape {list(values.shape)}; layer '{layer}', blob '{blob}' needs {list(expected)}"
            )
        if not np.all(np.isfinite(values)):
            raise WeightTableError(f"array '{name}' holds values that are not finite")
        updatable = params.isUpdatable
        params.Clear()
        params.floatValue.extend(values.ravel().tolist())
        params.isUpdatable = updatable
    extra = sorted(set(arrays) - set(expected_names))
    if extra:
        raise WeightTableError(f"arrays {extra} name no exchanged blob of the model")
    if not expected_names:
        raise WeightTableError("the model has no updatable layer with trainable weights")
    return copy


def pack(arrays):
    """The packed form of [(name, array)]: every array's values, row-major, one after another,
    as one 1-D float32 array."""
    return np.concatenate([np.asarray(values, dtype=np.float32).ravel() for _, values in arrays])


def unpack(packed, arrays):
    """{name: array} from a packed array, with the names and shapes of [(name, array)] (the
    table's arrays of the model it was packed from)."""
    packed = np.asarray(packed, dtype=np.float32)
    total = sum(int(np.size(values)) for _, values in arrays)
    if packed.shape != (total,):
        raise WeightTableError(f"packed array has shape {list(packed.shape)}; the model's arrays hold {total} values together")
    result, start = {}, 0
    for name, values in arrays:
        shape = np.shape(values)
        count = int(np.size(values))
        result[name] = packed[start:start + count].reshape(shape)
        start += count
    return result


def received_arrays(received, arrays):
    """{name: array} in the table's order from arrays in either form ({PACKED: vector} alone, or
    the model's named arrays, every one and no other), with the names and shapes of
    [(name, array)]; anything else is a WeightTableError naming the keys received."""
    names = [name for name, _ in arrays]
    if list(received) == [PACKED]:
        return unpack(received[PACKED], arrays)
    if set(received) == set(names) and len(received) == len(names):
        return {name: received[name] for name in names}
    extra = [key for key in received if key not in names]
    missing = [name for name in names if name not in received]

    def listed(keys):
        return ", ".join(keys[:5]) + (f", … ({len(keys)} in all)" if len(keys) > 5 else "") if keys else "none"
    raise WeightTableError(f"the {len(received)} arrays received are neither the packed form ('{PACKED}' alone) "
                           f"nor the model's {len(names)} named arrays: not the model's: {listed(extra)}; "
                           f"missing: {listed(missing)}")


def run_config_flag(config, key, default):
    """A true/false run-config value: a bool, 0/1, or the strings "true"/"false" (any case); a
    string such as "false" is never taken for True. Anything else is a ValueError naming the key."""
    value = config.get(key, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"run config '{key}' is {value!r}; give true or false")


LAYOUT_KEY = "packed-layout"  # the config key of layout_digest, sent with packed instructions


def layout(arrays):
    """The packed form's layout: "name:d0xd1…" of each array of [(name, array)], in order, joined
    by ";" ("dense1.weights:24x784;dense1.bias:24"). The client computes the same from its model
    (ModelArrays.layout in Swift): the packed vector holds no names, so equal-size arrays in
    another order would otherwise be swapped silently."""
    return ";".join(f"{name}:{'x'.join(str(int(d)) for d in np.shape(values))}" for name, values in arrays)


def layout_digest(arrays):
    """SHA-256 (lowercase hex) of layout(arrays), UTF-8."""
    return hashlib.sha256(layout(arrays).encode("utf-8")).hexdigest()
