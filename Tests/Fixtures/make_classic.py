#!/usr/bin/env python3
"""Parity fixtures for Core ML's classic model types, made by coremltools' own converters.

Trains small scikit-learn 1.5.1 and XGBoost models on data sets that ship inside scikit-learn
(iris, wine, breast cancer, diabetes, digits: no download), converts each with coremltools 9.0
(`coremltools.converters.sklearn.convert`, `coremltools.converters.xgboost.convert`), saves the
`.mlmodel` files to classic/ and records, for a handful of held-out rows, what the SOURCE library
itself predicts (`predict`, `predict_proba`, `transform`), not what Core ML would: OpenCoreML must
agree with scikit-learn and XGBoost. classic/classic.json lists every case:

  {"name", "file", "source": "sklearn 1.5.1 SVC(kernel='rbf', probability=True)" ...,
   "tolerance": relative tolerance on numbers (1e-5; 1e-4 for XGBoost's float32 arithmetic),
   "examples": [{"inputs": {feature: value}, "outputs": {feature: value}}]}

Values: a number; a string; a list of numbers (a multi-array, flattened); {"dictionary": [[key, value], ...]}
(keys as the model types them, strings or integers). A classifier's outputs are its predicted label
and its probability dictionary when the source library has `predict_proba` for the model.

Where coremltools' converter makes a different model from what the source library computes, the case
is set up so the two agree, and the comment says why (XGBoost's base_score, which the converter takes
as 0.5; scikit-learn's LogisticRegression, which the converter only takes one-vs-rest).

  python3 -m venv /tmp/classic-venv
  /tmp/classic-venv/bin/pip install coremltools==9.0 scikit-learn==1.5.1 xgboost==3.2.0 "numpy<2.3"
  /tmp/classic-venv/bin/python Tests/Fixtures/make_classic.py

(numpy 2.3 made converting a one-element array to a float an error, which coremltools 9.0's
converter for multi-class gradient boosting does.)

Two runs give identical files.
"""
import json
import os
import warnings

import numpy as np

warnings.filterwarnings("ignore")

import coremltools as ct  # noqa: E402
import sklearn  # noqa: E402
import xgboost as xgb  # noqa: E402
from sklearn import datasets, ensemble, feature_extraction, impute, linear_model, pipeline, preprocessing, svm, tree  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "classic")
EXAMPLES = 12
SEED = 7

cases = []


def split(X, y, examples=EXAMPLES):
    """Shuffled data, with the last `examples` rows held out (features as float32-exact doubles)."""
    rng = np.random.RandomState(SEED)
    order = rng.permutation(len(X))
    X = np.asarray(X, dtype=np.float32).astype(np.float64)[order]
    y = np.asarray(y)[order]
    return X[:-examples], y[:-examples], X[-examples:], y[-examples:]


def value(v):
    if isinstance(v, (np.floating, float)):
        return float(v)
    if isinstance(v, (np.integer, int)) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, (np.str_, str)):
        return str(v)
    if isinstance(v, np.ndarray):
        return [float(x) for x in v.ravel()]
    if isinstance(v, dict):
        return {"dictionary": [[value(k), float(x)] for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))]}
    raise TypeError(type(v))


def model_types(spec):
    """The spec's model type and those of every model inside its pipelines."""
    kind = spec.WhichOneof("Type")
    inner = getattr(spec, kind).pipeline.models if kind in ("pipelineClassifier", "pipelineRegressor") else (
        spec.pipeline.models if kind == "pipeline" else [])
    return [kind] + [t for model in inner for t in model_types(model)]


def add(name, mlmodel, source, examples, tolerance=1e-5):
    spec = mlmodel.get_spec()
    spec.description.metadata.shortDescription = f"OpenCoreML parity fixture: {source}"
    path = os.path.join(OUT, name + ".mlmodel")
    with open(path, "wb") as file:  # deterministic: map entries (metadata) in key order
        file.write(spec.SerializeToString(deterministic=True))
    cases.append({"name": name, "file": name + ".mlmodel", "modelTypes": model_types(spec), "source": source,
                  "tolerance": tolerance, "examples": examples})


def array_inputs(X, name="input"):
    return [{name: value(row)} for row in X]


def classifier(name, model, X, y, source, proba=True, labels=None, input_name="input", **convert):
    Xtr, ytr, Xte, _ = split(X, y)
    model.fit(Xtr, ytr)
    mlmodel = ct.converters.sklearn.convert(model, input_name, "label", **convert)
    predicted = model.predict(Xte)
    probabilities = model.predict_proba(Xte) if proba else None
    examples = []
    for i, row in enumerate(Xte):
        outputs = {"label": value(predicted[i])}
        if proba:
            outputs["classProbability"] = value({c: p for c, p in zip(model.classes_, probabilities[i])})
        examples.append({"inputs": {input_name: value(row)}, "outputs": outputs})
    add(name, mlmodel, source, examples)


def regressor(name, model, X, y, source, input_name="input"):
    Xtr, ytr, Xte, _ = split(X, y)
    model.fit(Xtr, ytr)
    mlmodel = ct.converters.sklearn.convert(model, input_name, "target")
    predicted = model.predict(Xte)
    examples = [{"inputs": {input_name: value(row)}, "outputs": {"target": value(predicted[i])}} for i, row in enumerate(Xte)]
    add(name, mlmodel, source, examples)


def transformer(name, model, X, source, fit_rows=None, inputs=None):
    Xtr = X if fit_rows is None else fit_rows
    model.fit(Xtr)
    mlmodel = ct.converters.sklearn.convert(model, [("input", ct.models.datatypes.Array(X.shape[1]))], "output")
    rows = X[-EXAMPLES:]
    transformed = model.transform(rows)
    if hasattr(transformed, "toarray"):
        transformed = transformed.toarray()
    examples = []
    for i in range(len(rows)):
        examples.append({"inputs": (inputs[i] if inputs else {"input": value(rows[i])}), "outputs": {"output": value(np.asarray(transformed[i]))}})
    add(name, mlmodel, source, examples)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".mlmodel"):
            os.remove(os.path.join(OUT, f))
    v = f"sklearn {sklearn.__version__}"
    iris = datasets.load_iris(return_X_y=True)
    wine = datasets.load_wine(return_X_y=True)
    cancer = datasets.load_breast_cancer(return_X_y=True)
    diabetes = datasets.load_diabetes(return_X_y=True)
    digits = datasets.load_digits(return_X_y=True)
    wine_std = (preprocessing.StandardScaler().fit_transform(wine[0]), wine[1])
    cancer_std = (preprocessing.StandardScaler().fit_transform(cancer[0]), cancer[1])
    iris_names = (iris[0], np.array(["setosa", "versicolor", "virginica"])[iris[1]])

    # Generalized linear models. coremltools converts LogisticRegression only one-vs-rest.
    classifier("logistic_ovr_iris", linear_model.LogisticRegression(multi_class="ovr", max_iter=1000), *iris_names,
               f"{v} LogisticRegression(multi_class='ovr') on iris, string labels")
    classifier("logistic_binary_cancer", linear_model.LogisticRegression(multi_class="ovr", max_iter=2000), *cancer_std,
               f"{v} LogisticRegression on standardized breast cancer (binary)")
    classifier("linear_svc_wine", svm.LinearSVC(dual=True, max_iter=20000, random_state=0), *wine_std,
               f"{v} LinearSVC on standardized wine", proba=False)
    regressor("linear_regression_diabetes", linear_model.LinearRegression(), *diabetes, f"{v} LinearRegression on diabetes")
    regressor("ridge_diabetes", linear_model.Ridge(alpha=0.5), *diabetes, f"{v} Ridge(alpha=0.5) on diabetes")
    regressor("linear_svr_diabetes", svm.LinearSVR(C=10, dual=True, max_iter=50000, random_state=0), *diabetes,
              f"{v} LinearSVR(C=10) on diabetes")

    # Support vector machines: every kernel, probabilities, nu variants.
    classifier("svc_rbf_iris", svm.SVC(kernel="rbf", gamma=0.5), *iris_names, f"{v} SVC(kernel='rbf', gamma=0.5) on iris", proba=False)
    classifier("svc_rbf_proba_wine", svm.SVC(kernel="rbf", probability=True, random_state=0), *wine_std,
               f"{v} SVC(kernel='rbf', probability=True) on standardized wine")
    classifier("svc_linear_cancer", svm.SVC(kernel="linear", C=0.1), *cancer_std, f"{v} SVC(kernel='linear', C=0.1) on standardized breast cancer", proba=False)
    classifier("svc_poly_iris", svm.SVC(kernel="poly", degree=3, gamma=0.3, coef0=1.0), *iris, f"{v} SVC(kernel='poly', degree=3) on iris", proba=False)
    classifier("svc_sigmoid_wine", svm.SVC(kernel="sigmoid", gamma=0.01, coef0=0.5), *wine_std, f"{v} SVC(kernel='sigmoid') on standardized wine", proba=False)
    classifier("svc_poly_proba_cancer", svm.SVC(kernel="poly", degree=2, probability=True, random_state=0), *cancer_std,
               f"{v} SVC(kernel='poly', degree=2, probability=True) on standardized breast cancer (binary)")
    classifier("nusvc_iris", svm.NuSVC(nu=0.3), *iris, f"{v} NuSVC(nu=0.3) on iris", proba=False)
    regressor("svr_rbf_diabetes", svm.SVR(kernel="rbf", C=50, gamma=0.5), *diabetes, f"{v} SVR(kernel='rbf', C=50) on diabetes")
    regressor("svr_poly_diabetes", svm.SVR(kernel="poly", degree=2, C=100, gamma=1.0), *diabetes, f"{v} SVR(kernel='poly') on diabetes")
    regressor("nusvr_diabetes", svm.NuSVR(nu=0.4, C=30), *diabetes, f"{v} NuSVR(nu=0.4, C=30) on diabetes")

    # Trees.
    classifier("decision_tree_wine", tree.DecisionTreeClassifier(max_depth=4, random_state=0), *wine, f"{v} DecisionTreeClassifier(max_depth=4) on wine")
    classifier("random_forest_iris", ensemble.RandomForestClassifier(n_estimators=8, max_depth=4, random_state=0), *iris_names,
               f"{v} RandomForestClassifier(8 trees, depth 4) on iris")
    classifier("random_forest_binary_cancer", ensemble.RandomForestClassifier(n_estimators=6, max_depth=5, random_state=0), *cancer,
               f"{v} RandomForestClassifier(6 trees, depth 5) on breast cancer (binary)")
    classifier("gradient_boosting_binary_cancer", ensemble.GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0), *cancer,
               f"{v} GradientBoostingClassifier(10 trees) on breast cancer (binary)")
    classifier("gradient_boosting_wine", ensemble.GradientBoostingClassifier(n_estimators=6, max_depth=2, random_state=0), *wine,
               f"{v} GradientBoostingClassifier(6 rounds × 3 classes) on wine")
    regressor("decision_tree_diabetes", tree.DecisionTreeRegressor(max_depth=5, random_state=0), *diabetes, f"{v} DecisionTreeRegressor(max_depth=5) on diabetes")
    regressor("random_forest_diabetes", ensemble.RandomForestRegressor(n_estimators=6, max_depth=5, random_state=0), *diabetes,
              f"{v} RandomForestRegressor(6 trees, depth 5) on diabetes")
    regressor("gradient_boosting_diabetes", ensemble.GradientBoostingRegressor(n_estimators=12, max_depth=3, random_state=0), *diabetes,
              f"{v} GradientBoostingRegressor(12 trees) on diabetes")

    # XGBoost. The converter sets the base prediction to 0.5 (a regressor) or 0 (a classifier's
    # margin), XGBoost 1.x's defaults; XGBoost 3 estimates base_score from the data unless given, so it is given.
    xv = f"xgboost {xgb.__version__}"
    names = [f"f{i}" for i in range(diabetes[0].shape[1])]
    Xtr, ytr, Xte, _ = split(*diabetes)
    model = xgb.XGBRegressor(n_estimators=20, max_depth=4, learning_rate=0.3, base_score=0.5, random_state=0, n_jobs=1).fit(Xtr, ytr)
    mlmodel = ct.converters.xgboost.convert(model.get_booster(), feature_names=names, target="target")
    # Every row of the data set as scikit-learn gives it (doubles, not the float32-exact values it
    # was trained on): XGBoost's split thresholds are training values rounded to float32, so a
    # row whose double value lies between its float32 rounding and a threshold takes the other
    # branch when compared in double precision; XGBoost rounds inputs to float32 first.
    rows = np.asarray(diabetes[0], dtype=np.float64)
    predicted = model.predict(rows)
    add("xgboost_regressor_diabetes", mlmodel, f"{xv} XGBRegressor(20 trees, depth 4) on diabetes, ten number inputs",
        [{"inputs": {n: float(x) for n, x in zip(names, row)}, "outputs": {"target": float(predicted[i])}} for i, row in enumerate(rows)], 1e-4)
    for name, data, rounds in [("xgboost_binary_cancer", cancer, 10), ("xgboost_iris", iris, 8)]:
        names = [f"f{i}" for i in range(data[0].shape[1])]
        Xtr, ytr, Xte, _ = split(*data)
        model = xgb.XGBClassifier(n_estimators=rounds, max_depth=3, base_score=0.5, random_state=0, n_jobs=1).fit(Xtr, ytr)
        classes = sorted(set(int(c) for c in ytr))
        mlmodel = ct.converters.xgboost.convert(model.get_booster(), feature_names=names, target="label", mode="classifier",
                                                class_labels=classes)
        spec = mlmodel.get_spec()
        predicted = model.predict(Xte)
        probabilities = model.predict_proba(Xte)
        examples = [{"inputs": {n: float(x) for n, x in zip(names, row)},
                     "outputs": {"label": int(predicted[i]),
                                 spec.description.predictedProbabilitiesName: value({c: p for c, p in zip(classes, probabilities[i])})}}
                    for i, row in enumerate(Xte)]
        add(name, mlmodel, f"{xv} XGBClassifier({rounds} rounds, depth 3) on {name.split('_')[-1]}", examples, 1e-4)

    # Feature engineering.
    transformer("standard_scaler_wine", preprocessing.StandardScaler(), np.asarray(wine[0], dtype=np.float32).astype(np.float64),
                f"{v} StandardScaler on wine")
    for norm in ["l1", "l2", "max"]:
        transformer(f"normalizer_{norm}_iris", preprocessing.Normalizer(norm=norm), np.asarray(iris[0], dtype=np.float64),
                    f"{v} Normalizer(norm='{norm}') on iris")
    rng = np.random.RandomState(SEED)
    holes = np.asarray(diabetes[0][:60], dtype=np.float32).astype(np.float64)
    holes[rng.rand(*holes.shape) < 0.2] = np.nan
    for strategy in ["mean", "median"]:
        model = impute.SimpleImputer(strategy=strategy).fit(holes[:-EXAMPLES])
        mlmodel = ct.converters.sklearn.convert(model, "input", "output")
        rows = holes[-EXAMPLES:]
        # JSON has no NaN: a missing value is written as null.
        examples = [{"inputs": {"input": [None if np.isnan(x) else float(x) for x in row]},
                     "outputs": {"output": value(model.transform(row[None, :])[0])}} for row in rows]
        add(f"imputer_{strategy}_diabetes", mlmodel, f"{v} SimpleImputer(strategy='{strategy}') on diabetes with 20 % holes", examples)
    # coremltools' converter takes each column's categories to be 0, 1, …, n − 1 (label-encoded
    # integers), whatever categories_ holds: the columns here are such codes, of 3, 4 and 5 values.
    categories = np.stack([rng.randint(0, n, size=80) for n in (3, 4, 5)], axis=1).astype(np.int64)
    model = preprocessing.OneHotEncoder(handle_unknown="ignore").fit(categories[:-EXAMPLES])
    mlmodel = ct.converters.sklearn.convert(model, [("a", ct.models.datatypes.Int64()), ("b", ct.models.datatypes.Int64()),
                                                    ("c", ct.models.datatypes.Int64())], "output")
    rows = categories[-EXAMPLES:].copy()
    rows[0, 1] = 999  # a category never seen in training: ignored (all zeros)
    examples = [{"inputs": {"a": int(r[0]), "b": int(r[1]), "c": int(r[2])},
                 "outputs": {"output": value(np.asarray(model.transform(r[None, :]).toarray()[0]))}} for r in rows]
    add("one_hot_encoder_ints", mlmodel, f"{v} OneHotEncoder(handle_unknown='ignore') on three integer columns", examples)
    words = ["apple", "banana", "cherry", "date", "elder", "fig", "grape"]
    dicts = [{words[j]: float(np.float32(rng.normal())) for j in rng.choice(len(words), size=3, replace=False)} for _ in range(40)]
    model = feature_extraction.DictVectorizer(sparse=False).fit(dicts[:-EXAMPLES])
    mlmodel = ct.converters.sklearn.convert(model, "input", "output")
    rows = dicts[-EXAMPLES:]
    examples = [{"inputs": {"input": value(d)}, "outputs": {"output": value(model.transform([d])[0])}} for d in rows]
    add("dict_vectorizer_words", mlmodel, f"{v} DictVectorizer on string-keyed dictionaries", examples)

    # Pipelines, as the converter makes them: the scikit-learn Pipeline's steps become a Core ML
    # pipeline; several named number inputs become a feature vectorizer in front.
    Xtr, ytr, Xte, _ = split(*diabetes)
    model = pipeline.Pipeline([("impute", impute.SimpleImputer()), ("scale", preprocessing.StandardScaler()),
                               ("svr", svm.SVR(C=100, gamma=0.05))]).fit(Xtr, ytr)
    names = [f"x{i}" for i in range(Xtr.shape[1])]
    mlmodel = ct.converters.sklearn.convert(model, names, "target")
    predicted = model.predict(Xte)
    add("pipeline_impute_scale_svr_diabetes", mlmodel, f"{v} Pipeline(SimpleImputer, StandardScaler, SVR) on diabetes, ten number inputs",
        [{"inputs": {n: float(x) for n, x in zip(names, row)}, "outputs": {"target": float(predicted[i])}} for i, row in enumerate(Xte)])
    Xtr, ytr, Xte, _ = split(*digits)
    model = pipeline.Pipeline([("scale", preprocessing.StandardScaler()),
                               ("logistic", linear_model.LogisticRegression(multi_class="ovr", C=0.05, max_iter=2000))]).fit(Xtr, ytr)
    mlmodel = ct.converters.sklearn.convert(model, "input", "label")
    predicted, probabilities = model.predict(Xte), model.predict_proba(Xte)
    add("pipeline_scale_logistic_digits", mlmodel, f"{v} Pipeline(StandardScaler, LogisticRegression(ovr)) on digits, 10 classes",
        [{"inputs": {"input": value(row)}, "outputs": {"label": int(predicted[i]),
                                                       "classProbability": value({int(c): p for c, p in zip(model.classes_, probabilities[i])})}}
         for i, row in enumerate(Xte)])

    # A pipeline of two ML Programs in one .mlpackage (coremltools' make_pipeline), whose programs
    # keep their weights in the pipeline package's weight file: numpy's x·W1ᵀ·W2ᵀ is the reference.
    from coremltools.converters.mil import Builder as mb
    from coremltools.converters.mil.mil import Function, Program

    def linear_program(input_name, width, output_name, outputs, weight):
        program = Program()
        with Function({input_name: mb.placeholder(shape=(width,))}) as function:
            function.set_outputs([mb.linear(x=function.inputs[input_name], weight=weight, name=output_name)])
            program.add_function("main", function)
        return ct.convert(program, convert_to="mlprogram", compute_precision=ct.precision.FLOAT32)

    w1 = rng.normal(size=(10, 20)).astype(np.float32)
    w2 = rng.normal(size=(2, 10)).astype(np.float32)
    pipeline_model = ct.utils.make_pipeline(linear_program("x", 20, "y1", 10, w1), linear_program("y1", 10, "y2", 2, w2))
    pipeline_model.short_description = "OpenCoreML parity fixture: coremltools' make_pipeline of two ML Programs"
    path = os.path.join(OUT, "pipeline_of_programs.mlpackage")
    if os.path.exists(path):
        import shutil
        shutil.rmtree(path)
    pipeline_model.save(path)
    # Deterministic bytes: the spec's map entries in key order, the manifest's random item ids
    # replaced by fixed ones.
    spec_path = os.path.join(path, "Data", "com.apple.CoreML", "model.mlmodel")
    with open(spec_path, "wb") as file:
        file.write(pipeline_model.get_spec().SerializeToString(deterministic=True))
    manifest_path = os.path.join(path, "Manifest.json")
    with open(manifest_path) as file:
        package_manifest = json.load(file)
    renamed = {old: f"00000000-0000-4000-8000-{index:012d}" for index, old in enumerate(sorted(package_manifest["itemInfoEntries"], key=lambda k: package_manifest["itemInfoEntries"][k]["path"]))}
    package_manifest["itemInfoEntries"] = {renamed[k]: v for k, v in package_manifest["itemInfoEntries"].items()}
    package_manifest["rootModelIdentifier"] = renamed[package_manifest["rootModelIdentifier"]]
    with open(manifest_path, "w") as file:
        json.dump(package_manifest, file, indent=4, sort_keys=True)
    rows = rng.normal(size=(EXAMPLES, 20)).astype(np.float32)
    cases.append({"name": "pipeline_of_programs", "file": "pipeline_of_programs.mlpackage", "modelTypes": model_types(pipeline_model.get_spec()),
                  "source": f"coremltools {ct.__version__} make_pipeline of two float32 ML Programs (linear 20 → 10 → 2), against numpy",
                  "tolerance": 1e-5,
                  "examples": [{"inputs": {"x": value(row.astype(np.float64))},
                                "outputs": {"y2": value((row.astype(np.float64) @ w1.T.astype(np.float64)) @ w2.T.astype(np.float64))}}
                               for row in rows]})

    manifest = {"generator": "Tests/Fixtures/make_classic.py",
                "versions": {"coremltools": ct.__version__, "scikit-learn": sklearn.__version__, "xgboost": xgb.__version__,
                             "numpy": np.__version__},
                "cases": cases}
    with open(os.path.join(OUT, "classic.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, c["file"])) for c in cases if c["file"].endswith(".mlmodel"))
    print(f"{len(cases)} cases, {total / 1024:.0f} KB of models")


if __name__ == "__main__":
    main()
