"""Hugging Face `transformers` encoders converted with a flexible sequence length, for
Tests/OpenCoreMLTests/TransformerFixtureTests.swift (issue #29: shapes computed at run time).

Each model is built from a tiny config (2 layers, hidden 32, 2 heads, vocabulary 100) with
seeded random weights, nothing downloaded, traced with torch.jit.trace at 8 tokens and converted
by coremltools 9.0 to an ML Program whose input `input_ids` is int32 [1, RangeDim(1, 128,
default 8)]: the program computes its shapes (attention heads, position ids, masks) from the
input's length while it runs. Each is saved in float32 and in float16 compute precision, with
PyTorch's `last_hidden_state` for seeded token ids at several lengths (transformer_facts.json).

    python3 -m venv .build/tf-venv && .build/tf-venv/bin/pip install coremltools==9.0 'numpy<2.3' \
        transformers 'torch==2.13.0+cpu' --extra-index-url https://download.pytorch.org/whl/cpu
    .build/tf-venv/bin/python Scripts/make_transformer_fixtures.py

- Bert: BertModel (absolute positions, token types, GELU, post-norm).
- GPT2: GPT2Model (learned positions, a causal mask, tanh GELU, pre-norm).
- DistilBert: DistilBertModel (absolute positions, no token types).
- T5Encoder: T5EncoderModel (relative position buckets computed from the length, RMS norm, ReLU).
"""
import json
import os
import shutil
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import coremltools as ct  # noqa: E402
import transformers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "Tests", "Fixtures", "transformers")
sys.path.insert(0, os.path.join(ROOT, "Tests", "Fixtures", "mlprogram"))
from make_torch_mlprograms import operation_counts  # noqa: E402  (the MIL operation types a package holds)

VOCABULARY, WIDTH, LAYERS, HEADS, LONGEST = 100, 32, 2, 2, 128
TRACED_LENGTH = 8
LENGTHS = [1, 5, 8, 17, 128]


def configs():
    common = dict(vocab_size=VOCABULARY, attn_implementation="eager")
    return {
        "Bert": (transformers.BertModel, transformers.BertConfig(
            hidden_size=WIDTH, num_hidden_layers=LAYERS, num_attention_heads=HEADS, intermediate_size=2 * WIDTH,
            max_position_embeddings=LONGEST, **common)),
        "GPT2": (transformers.GPT2Model, transformers.GPT2Config(
            n_embd=WIDTH, n_layer=LAYERS, n_head=HEADS, n_inner=2 * WIDTH, n_positions=LONGEST, **common)),
        "DistilBert": (transformers.DistilBertModel, transformers.DistilBertConfig(
            dim=WIDTH, n_layers=LAYERS, n_heads=HEADS, hidden_dim=2 * WIDTH, max_position_embeddings=LONGEST, **common)),
        "T5Encoder": (transformers.T5EncoderModel, transformers.T5Config(
            d_model=WIDTH, d_kv=WIDTH // HEADS, d_ff=2 * WIDTH, num_layers=LAYERS, num_heads=HEADS,
            relative_attention_num_buckets=8, relative_attention_max_distance=32, **common)),
    }


class LastHiddenState(torch.nn.Module):
    """The model's `last_hidden_state` for token ids alone (no mask: every token attends)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).last_hidden_state


def tokens(length, seed):
    return np.random.default_rng(seed).integers(0, VOCABULARY, size=(1, length)).astype(np.int32)


def main():
    torch.set_num_threads(1)
    os.makedirs(HERE, exist_ok=True)
    facts = {"coremltools": ct.__version__, "torch": torch.__version__, "transformers": transformers.__version__,
             "models": {}}
    for seed, (name, (kind, config)) in enumerate(configs().items(), start=40):
        torch.manual_seed(seed)
        model = LastHiddenState(kind(config).eval()).eval()
        example = torch.from_numpy(tokens(TRACED_LENGTH, seed).astype(np.int64))
        with torch.no_grad():
            traced = torch.jit.trace(model, example, strict=False)
            references = {}
            for length in LENGTHS:
                ids = tokens(length, seed + length)
                y = model(torch.from_numpy(ids.astype(np.int64))).numpy()
                references[str(length)] = {"input_ids": ids.ravel().tolist(), "shape": list(y.shape),
                                           "values": [round(float(v), 7) for v in y.ravel()]}
        for suffix, precision in (("", ct.precision.FLOAT32), ("16", ct.precision.FLOAT16)):
            package = f"{name}{suffix}.mlpackage"
            converted = ct.convert(
                traced, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS16, compute_precision=precision,
                inputs=[ct.TensorType(name="input_ids", shape=(1, ct.RangeDim(1, LONGEST, default=TRACED_LENGTH)), dtype=np.int32)],
                outputs=[ct.TensorType(name="last_hidden_state", dtype=np.float32)])
            path = os.path.join(HERE, package)
            shutil.rmtree(path, ignore_errors=True)
            converted.save(path)
            facts["models"][package] = {"precision": "float16" if suffix else "float32",
                                        "operationCounts": operation_counts(path), "lengths": references}
            print(package, facts["models"][package]["operationCounts"], file=sys.stderr)
    with open(os.path.join(HERE, "transformer_facts.json"), "w") as file:
        json.dump(facts, file, separators=(",", ":"), sort_keys=True)  # one line: 40,000 values
        file.write("\n")


if __name__ == "__main__":
    main()
