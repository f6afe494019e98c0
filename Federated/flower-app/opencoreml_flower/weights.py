"""The arrays an OpenCoreML model exchanges, read from and written into its .mlmodel protobuf.

The table below is the one the Swift client (OpenCoreMLFlower, `MLModel.updatableWeightKeys`)
uses: for every layer whose `isUpdatable` is set, in the order the network lists its layers (the
models of a pipeline in order), each trainable weight blob, named `<layer>.<blob>`, as a float32
array in its natural shape. A batch norm's stored mean and variance are not trained, so not
exchanged. Values come from `floatValue`, or `float16Value` when that is what the file stores.
"""

import numpy as np

_LSTM_MATRICES = ("inputGateWeightMatrix", "forgetGateWeightMatrix", "blockInputWeightMatrix", "outputGateWeightMatrix")
_LSTM_RECURSIONS = ("inputGateRecursionMatrix", "forgetGateRecursionMatrix", "blockInputRecursionMatrix", "outputGateRecursionMatrix")
_LSTM_BIASES = ("inputGateBiasVector", "forgetGateBiasVector", "blockInputBiasVector", "outputGateBiasVector")
_LSTM_PEEPHOLES = ("inputGatePeepholeVector", "forgetGatePeepholeVector", "outputGatePeepholeVector")


class WeightTableError(ValueError):
    """A model whose weights do not match what its layers declare."""


def _blobs(layer):
    """(blob name, WeightParams message, shape or None for flat) of a layer's exchanged blobs."""
    kind = layer.WhichOneof("layer")
    if kind == "innerProduct":
        p = layer.innerProduct
        yield "weights", p.weights, (p.outputChannels, p.inputChannels)
        if p.hasBias:
            yield "bias", p.bias, (p.outputChannels,)
    elif kind == "convolution" and len(layer.input) <= 1:
        p = layer.convolution
        kernel = tuple(p.kernelSize) if len(p.kernelSize) == 2 else (3, 3)
        if p.isDeconvolution:
            shape = (p.kernelChannels, p.outputChannels // max(p.nGroups, 1)) + kernel
        else:
            shape = (p.outputChannels, p.kernelChannels) + kernel
        yield "weights", p.weights, shape
        if p.hasBias:
            yield "bias", p.bias, (p.outputChannels,)
    elif kind == "embedding":
        p = layer.embedding
        yield "weights", p.weights, (p.outputChannels, p.inputDim)
        if p.hasBias:
            yield "bias", p.bias, (p.outputChannels,)
    elif kind == "batchnorm":
        yield "gamma", layer.batchnorm.gamma, (layer.batchnorm.channels,)
        yield "beta", layer.batchnorm.beta, (layer.batchnorm.channels,)
    elif kind == "uniDirectionalLSTM":
        p = layer.uniDirectionalLSTM
        h, x = p.outputVectorSize, p.inputVectorSize
        w = p.weightParams
        for name in _LSTM_MATRICES:
            yield name, getattr(w, name), (h, x)
        for name in _LSTM_RECURSIONS:
            yield name, getattr(w, name), (h, h)
        if p.params.hasBiasVectors:
            for name in _LSTM_BIASES:
                yield name, getattr(w, name), (h,)
        if p.params.hasPeepholeVectors:
            for name in _LSTM_PEEPHOLES:
                yield name, getattr(w, name), (h,)
    elif kind == "scale":
        yield "scale", layer.scale.scale, None
        if layer.scale.hasBias:
            yield "bias", layer.scale.bias, None
    elif kind == "bias":
        yield "bias", layer.bias.bias, None
    elif kind == "batchedMatmul" and len(layer.input) <= 1:
        yield "weights", layer.batchedMatmul.weights, None
        if layer.batchedMatmul.hasBias:
            yield "bias", layer.batchedMatmul.bias, None
    elif kind == "activation":
        which = layer.activation.WhichOneof("NonlinearityType")
        if which == "PReLU":
            yield "alpha", layer.activation.PReLU.alpha, None
        elif which == "parametricSoftplus":
            yield "alpha", layer.activation.parametricSoftplus.alpha, None
            yield "beta", layer.activation.parametricSoftplus.beta, None


def _networks(spec):
    """The neural networks of a model, in order (inside pipelines too)."""
    kind = spec.WhichOneof("Type")
    if kind in ("neuralNetwork", "neuralNetworkClassifier", "neuralNetworkRegressor"):
        yield getattr(spec, kind)
    elif kind in ("pipeline", "pipelineClassifier", "pipelineRegressor"):
        pipeline = spec.pipeline if kind == "pipeline" else getattr(spec, kind).pipeline
        for model in pipeline.models:
            yield from _networks(model)


def _entries(spec):
    """(name, WeightParams, shape or None) for every exchanged blob, in order."""
    for network in _networks(spec):
        for layer in network.layers:
            if not layer.isUpdatable:
                continue
            for blob, params, shape in _blobs(layer):
                yield f"{layer.name}.{blob}", params, shape


def _values(name, params):
    if len(params.floatValue):
        return np.asarray(params.floatValue, dtype=np.float32)
    if len(params.float16Value):
        return np.frombuffer(params.float16Value, dtype="<f2").astype(np.float32)
    raise WeightTableError(f"{name}: stored neither as floatValue nor as float16Value (quantized weights are not exchanged)")


def arrays_from_spec(spec):
    """[(name, float32 ndarray)] of the model's exchanged blobs, in the table's order."""
    result = []
    for name, params, shape in _entries(spec):
        values = _values(name, params)
        if shape is not None:
            if int(np.prod(shape)) != values.size:
                raise WeightTableError(f"{name}: {values.size} values stored, the layer declares {list(shape)}")
            values = values.reshape(shape)
        result.append((name, values))
    if not result:
        raise WeightTableError(
            "the model has no updatable layer with weights; make it updatable first "
            "(opencoreml make-updatable MODEL --layers … --output …)"
        )
    return result


def spec_with_arrays(spec, arrays):
    """A copy of `spec` whose exchanged blobs hold `arrays` (a name → ndarray mapping): every name
    of the table, no other, each of the table's shape and finite; stored as floatValue."""
    from coremltools.proto import Model_pb2

    copy = Model_pb2.Model()
    copy.CopyFrom(spec)
    arrays = dict(arrays)
    names = []
    for name, params, shape in _entries(copy):
        names.append(name)
        if name not in arrays:
            raise WeightTableError(f"no array '{name}' in the final arrays")
        values = np.asarray(arrays[name], dtype=np.float32)
        expected = tuple(shape) if shape is not None else (len(params.floatValue) or len(params.float16Value) // 2,)
        if tuple(values.shape) != expected:
            raise WeightTableError(f"array '{name}' has shape {list(values.shape)}, the model's is {list(expected)}")
        if not np.all(np.isfinite(values)):
            raise WeightTableError(f"array '{name}' holds values that are not finite")
        updatable = params.isUpdatable
        params.Clear()
        params.floatValue.extend(values.ravel().tolist())
        params.isUpdatable = updatable
    extra = sorted(set(arrays) - set(names))
    if extra:
        raise WeightTableError(f"arrays {extra} name no updatable weight of the model")
    return copy
