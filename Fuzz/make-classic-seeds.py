"""Writes FuzzModel seeds for the classic model types' checks: hostile-classic-*.mlmodel in the
folder given (Fuzz/corpus/model). Each is a small model that breaks one rule the validator checks
(sizes that disagree, unknown enums, indices past the input) or stresses evaluation within the
rules (a tree 300 levels deep, 40 nested pipelines, 200 models in one pipeline, large category
tables), so that mutations start next to each check. Built with coremltools' protobuf classes
(coremltools 9.0, as in Tests/Fixtures/make_classic.py); deterministic. Called by Fuzz/make-seeds.sh.
"""
import os
import sys

import coremltools.proto.FeatureTypes_pb2 as FT
import coremltools.proto.Model_pb2 as M

OUT = sys.argv[1] if len(sys.argv) > 1 else "Fuzz/corpus/model"
DOUBLE = FT.ArrayFeatureType.DOUBLE


def model(inputs, outputs, predicted=None):
    """A specification with multi-array (an int: its width), double ("double") or int64 ("int64") features."""
    spec = M.Model()
    spec.specificationVersion = 4
    for features, described in ((inputs, spec.description.input), (outputs, spec.description.output)):
        for name, kind in features:
            feature = described.add()
            feature.name = name
            if kind == "double":
                feature.type.doubleType.SetInParent()
            elif kind == "int64":
                feature.type.int64Type.SetInParent()
            elif kind == "string":
                feature.type.stringType.SetInParent()
            elif kind == "dict":
                feature.type.dictionaryType.stringKeyType.SetInParent()
            else:
                feature.type.multiArrayType.dataType = DOUBLE
                if kind:
                    feature.type.multiArrayType.shape.append(kind)
    if predicted:
        spec.description.predictedFeatureName = predicted
    return spec


def glm(rows, offsets, width=3):
    spec = model([("x", width)], [("y", "double")], "y")
    for row in rows:
        spec.glmRegressor.weights.add().value.extend(row)
    spec.glmRegressor.offset.extend(offsets)
    return spec


def svr(vectors, alphas, width=3, sparse=False):
    spec = model([("x", width)], [("y", "double")], "y")
    regressor = spec.supportVectorRegressor
    regressor.kernel.rbfKernel.gamma = 0.5
    for vector in vectors:
        if sparse:
            entry = regressor.sparseSupportVectors.vectors.add()
            for index, value in vector:
                node = entry.nodes.add()
                node.index, node.value = index, value
        else:
            regressor.denseSupportVectors.vectors.add().values.extend(vector)
    regressor.coefficients.alpha.extend(alphas)
    return spec


def chain_tree(depth):
    """A tree that is one long chain: branch i's true child a leaf, its false child branch i + 1."""
    spec = model([("x", 1)], [("y", "double")], "y")
    ensemble = spec.treeEnsembleRegressor.treeEnsemble
    ensemble.numPredictionDimensions = 1
    for i in range(depth):
        node = ensemble.nodes.add()
        node.treeId, node.nodeId, node.nodeBehavior = 0, i, M.TreeEnsembleParameters.TreeNode.BranchOnValueLessThan
        node.branchFeatureIndex, node.branchFeatureValue = 0, float(i)
        node.trueChildNodeId, node.falseChildNodeId = depth + i, (i + 1 if i + 1 < depth else 2 * depth)
        leaf = ensemble.nodes.add()
        leaf.treeId, leaf.nodeId, leaf.nodeBehavior = 0, depth + i, M.TreeEnsembleParameters.TreeNode.LeafNode
        value = leaf.evaluationInfo.add()
        value.evaluationIndex, value.evaluationValue = 0, float(i)
    leaf = ensemble.nodes.add()
    leaf.treeId, leaf.nodeId, leaf.nodeBehavior = 0, 2 * depth, M.TreeEnsembleParameters.TreeNode.LeafNode
    leaf.evaluationInfo.add().evaluationValue = -1.0
    return spec


def cyclic_tree():
    spec = chain_tree(3)
    spec.treeEnsembleRegressor.treeEnsemble.nodes[4].falseChildNodeId = 0  # branch 2 back to the root
    return spec


def identity(width=3):
    spec = model([("x", width)], [("x", width)])
    spec.identity.SetInParent()
    return spec


def nested(depth):
    spec = identity()
    for _ in range(depth):
        outer = model([("x", 3)], [("x", 3)])
        outer.pipeline.models.add().CopyFrom(spec)
        spec = outer
    return spec


def wide(count):
    spec = model([("x", 3)], [("x", 3)])
    for _ in range(count):
        spec.pipeline.models.add().CopyFrom(identity())
    return spec


def scaler(shift, scale):
    spec = model([("x", 3)], [("y", 3)])
    spec.scaler.shiftValue.extend(shift)
    spec.scaler.scaleValue.extend(scale)
    return spec


def imputer(values):
    spec = model([("x", 3)], [("y", 3)])
    spec.imputer.imputedDoubleArray.vector.extend(values)
    spec.imputer.replaceDoubleValue = float("nan")
    return spec


def one_hot(count, unknown=0):
    spec = model([("x", "int64")], [("y", None)])
    spec.oneHotEncoder.int64Categories.vector.extend(range(count))
    spec.oneHotEncoder.handleUnknown = unknown
    return spec


def extractor(indices):
    spec = model([("x", 3)], [("y", None)])
    spec.arrayFeatureExtractor.extractIndex.extend(indices)
    return spec


def vectorizer(dimensions):
    spec = model([("x", 3)], [("y", None)])
    column = spec.featureVectorizer.inputList.add()
    column.inputColumn, column.inputDimensions = "x", dimensions
    return spec


def dictionary(count):
    spec = model([("x", "dict")], [("y", None)])
    spec.dictVectorizer.stringToIndex.vector.extend(f"k{i}" for i in range(count))
    return spec


def mapping(count):
    spec = model([("x", "int64")], [("y", "string")])
    for i in range(count):
        spec.categoricalMapping.int64ToStringMap.map[i] = f"v{i % 7}"
    spec.categoricalMapping.strValue = "other"
    return spec


def normalizer(kind):
    spec = model([("x", 3)], [("y", 3)])
    spec.normalizer.normType = kind
    return spec


SEEDS = {
    "glm-ragged-rows": glm([[1, 2, 3], [1]], [0, 0]),
    "glm-narrow-rows": glm([[1]], [0]),
    "glm-offsets": glm([[1, 2, 3]], [0, 1, 2, 3, 4]),
    "svr-ragged": svr([[1, 2, 3], [1]], [1, 1]),
    "svr-wide": svr([[1] * 10], [1]),
    "svr-sparse-index": svr([[(2 ** 31 - 1, 1.0)]], [1], sparse=True),
    "svr-sparse-negative": svr([[(-5, 1.0)]], [1], sparse=True),
    "svr-alphas": svr([[1, 2, 3]] * 3, [1]),
    "tree-chain-300": chain_tree(300),
    "tree-cycle": cyclic_tree(),
    "pipeline-nested-40": nested(40),
    "pipeline-wide-200": wide(200),
    "scaler-sizes": scaler([1, 2], [1, 2, 3, 4, 5]),
    "imputer-width": imputer([1, 2, 3, 4, 5, 6]),
    "one-hot-1000": one_hot(1000),
    "one-hot-unknown-enum": one_hot(3, unknown=9),
    "extractor-past-width": extractor([1, 2 ** 62]),
    "vectorizer-huge": vectorizer(2 ** 40),
    "vectorizer-mismatch": vectorizer(7),
    "dict-vectorizer-1000": dictionary(1000),
    "categorical-mapping-1000": mapping(1000),
    "normalizer-enum": normalizer(9),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, spec in SEEDS.items():
        with open(os.path.join(OUT, f"hostile-classic-{name}.mlmodel"), "wb") as file:
            file.write(spec.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
