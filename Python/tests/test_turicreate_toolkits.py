"""opencoreml.turicreate's toolkits, trained by the Swift library: accuracy against scikit-learn and
XGBoost on scikit-learn's real data sets (independent references), same seed ⇒ same model, save /
load / export round trips (the exported model read by coremltools and predicting through
opencoreml.MLModel as the Turi-API model does), Ctrl-C keeping the model so far, and bad input."""

import os
import signal
import threading

import numpy as np
import pytest

tc = pytest.importorskip("opencoreml.turicreate")
sklearn_datasets = pytest.importorskip("sklearn.datasets")

import opencoreml  # noqa: E402


def frame_from(x, y, names=None, target="target"):
    names = names or [f"f{i}" for i in range(x.shape[1])]
    columns = {name: x[:, i] for i, name in enumerate(names)}
    columns[target] = y
    return tc.SFrame(columns)


def split(frame, seed=0):
    return frame.random_split(0.8, seed=seed)


@pytest.fixture(scope="module")
def cancer():
    data = sklearn_datasets.load_breast_cancer()
    frame = frame_from(data.data, data.target.astype(np.int64))
    return split(frame)


@pytest.fixture(scope="module")
def diabetes():
    data = sklearn_datasets.load_diabetes()
    return split(frame_from(data.data, data.target.astype(np.float64)))


def as_xy(frame, target="target"):
    names = [n for n in frame.column_names() if n != target]
    return np.column_stack([frame[n].to_numpy() for n in names]), frame[target].to_numpy()


@pytest.fixture(scope="module")
def classification():
    """20,000 training and 5,000 test rows of scikit-learn's make_classification (20 features, 10
    informative, seed 1): large enough that 0.5 points is 25 test rows."""
    x, y = sklearn_datasets.make_classification(n_samples=25000, n_features=20, n_informative=10, random_state=1)
    return (x[:20000], y[:20000]), (x[20000:], y[20000:])


def test_tabular_toolkits_within_half_a_point_of_scikit_learn_and_xgboost(classification):
    xgboost = pytest.importorskip("xgboost")
    ensemble = pytest.importorskip("sklearn.ensemble")
    tree = pytest.importorskip("sklearn.tree")
    linear_model = pytest.importorskip("sklearn.linear_model")
    preprocessing = pytest.importorskip("sklearn.preprocessing")
    (x, y), (tx, ty) = classification
    train, test = frame_from(x, y.astype(np.int64)), frame_from(tx, ty.astype(np.int64))
    scaler = preprocessing.StandardScaler().fit(x)
    cases = [
        (tc.boosted_trees_classifier.create(train, "target", max_iterations=100, max_depth=6, validation_set=None, verbose=False),
         xgboost.XGBClassifier(n_estimators=100, max_depth=6, learning_rate=0.3, tree_method="hist", min_child_weight=0.1, n_jobs=2).fit(x, y), None),
        (tc.random_forest_classifier.create(train, "target", max_iterations=100, max_depth=12, validation_set=None, verbose=False),
         ensemble.RandomForestClassifier(n_estimators=100, max_depth=12, random_state=0, n_jobs=2).fit(x, y), None),
        (tc.decision_tree_classifier.create(train, "target", max_depth=8, validation_set=None, verbose=False),
         tree.DecisionTreeClassifier(max_depth=8, random_state=0).fit(x, y), None),
        (tc.logistic_classifier.create(train, "target", max_iterations=100, validation_set=None, verbose=False),
         linear_model.LogisticRegression(max_iter=5000).fit(scaler.transform(x), y), scaler),
    ]
    for ours, peer, transform in cases:
        theirs = float((peer.predict(transform.transform(tx) if transform else tx) == ty).mean())
        accuracy = ours.evaluate(test, metric="accuracy")["accuracy"]
        assert accuracy >= theirs - 0.005, (type(ours).__name__, accuracy, theirs)


def test_boosted_trees_match_xgboost_accuracy(cancer):
    xgboost = pytest.importorskip("xgboost")
    train, test = cancer
    model = tc.boosted_trees_classifier.create(train, "target", max_iterations=50, max_depth=4, validation_set=None, verbose=False)
    ours = model.evaluate(test)["accuracy"]
    x, y = as_xy(train)
    tx, ty = as_xy(test)
    peer = xgboost.XGBClassifier(n_estimators=50, max_depth=4, learning_rate=0.3, tree_method="hist", min_child_weight=0.1,
                                 reg_lambda=1.0, n_jobs=2).fit(x, y)
    theirs = float((peer.predict(tx) == ty).mean())
    assert ours >= theirs - 0.005 - 1.0 / len(ty), (ours, theirs)
    assert set(model.classes) == {0, 1} and model.num_classes == 2


def test_logistic_classifier_matches_scikit_learn_accuracy(cancer):
    linear_model = pytest.importorskip("sklearn.linear_model")
    preprocessing = pytest.importorskip("sklearn.preprocessing")
    train, test = cancer
    model = tc.logistic_classifier.create(train, "target", max_iterations=200, l2_penalty=0.01, validation_set=None, verbose=False)
    metrics = model.evaluate(test)
    x, y = as_xy(train)
    tx, ty = as_xy(test)
    scaler = preprocessing.StandardScaler().fit(x)
    peer = linear_model.LogisticRegression(max_iter=5000).fit(scaler.transform(x), y)
    theirs = float((peer.predict(scaler.transform(tx)) == ty).mean())
    assert metrics["accuracy"] >= theirs - 0.005 - 1.0 / len(ty), (metrics["accuracy"], theirs)
    # The metrics agree with their definitions on the model's own predictions.
    predicted = np.array(model.predict(test))
    assert metrics["accuracy"] == pytest.approx(float((predicted == ty).mean()))
    probability = model.predict(test, output_type="probability").to_numpy()
    metrics_mod = pytest.importorskip("sklearn.metrics")
    assert metrics["auc"] == pytest.approx(metrics_mod.roc_auc_score(ty, probability), abs=1e-9)
    assert metrics["log_loss"] == pytest.approx(metrics_mod.log_loss(ty, np.clip(probability, 1e-15, 1 - 1e-15)), rel=1e-6)
    assert metrics["precision"] == pytest.approx(metrics_mod.precision_score(ty, predicted))
    assert metrics["recall"] == pytest.approx(metrics_mod.recall_score(ty, predicted))
    matrix = metrics["confusion_matrix"]
    assert sorted(matrix.column_names()) == ["count", "predicted_label", "target_label"]
    assert sum(matrix["count"]) == len(ty)


def test_random_forest_and_decision_tree_are_close_to_scikit_learn(cancer):
    ensemble = pytest.importorskip("sklearn.ensemble")
    tree = pytest.importorskip("sklearn.tree")
    train, test = cancer
    x, y = as_xy(train)
    tx, ty = as_xy(test)
    forest = tc.random_forest_classifier.create(train, "target", max_iterations=50, max_depth=6, validation_set=None, verbose=False,
                                                random_seed=3)
    peer = ensemble.RandomForestClassifier(n_estimators=50, max_depth=6, random_state=0).fit(x, y)
    assert forest.evaluate(test)["accuracy"] >= float((peer.predict(tx) == ty).mean()) - 0.03
    single = tc.decision_tree_classifier.create(train, "target", max_depth=4, validation_set=None, verbose=False)
    peer_tree = tree.DecisionTreeClassifier(max_depth=4, random_state=0).fit(x, y)
    assert single.evaluate(test)["accuracy"] >= float((peer_tree.predict(tx) == ty).mean()) - 0.03


def test_linear_regression_matches_scikit_learn(diabetes):
    linear_model = pytest.importorskip("sklearn.linear_model")
    train, test = diabetes
    model = tc.linear_regression.create(train, "target", l2_penalty=0.0, max_iterations=100, convergence_threshold=1e-8,
                                        validation_set=None, verbose=False)
    x, y = as_xy(train)
    tx, ty = as_xy(test)
    peer = linear_model.LinearRegression().fit(x, y)
    ours = model.predict(test).to_numpy()
    np.testing.assert_allclose(ours, peer.predict(tx), rtol=1e-3, atol=0.5)
    metrics = model.evaluate(test)
    coefficients = model.coefficients
    assert list(coefficients["name"])[0] == "(intercept)" and len(coefficients) == 11
    np.testing.assert_allclose(list(coefficients["value"])[1:], peer.coef_, rtol=1e-3, atol=0.5)
    assert list(coefficients["value"])[0] == pytest.approx(peer.intercept_, rel=1e-3)
    assert metrics["rmse"] == pytest.approx(float(np.sqrt(np.mean((ours - ty) ** 2))))
    assert metrics["max_error"] == pytest.approx(float(np.abs(ours - ty).max()))


def test_boosted_regression_is_close_to_xgboost(diabetes):
    xgboost = pytest.importorskip("xgboost")
    train, test = diabetes
    model = tc.boosted_trees_regression.create(train, "target", max_iterations=40, max_depth=3, validation_set=None, verbose=False)
    x, y = as_xy(train)
    tx, ty = as_xy(test)
    peer = xgboost.XGBRegressor(n_estimators=40, max_depth=3, learning_rate=0.3, tree_method="hist", min_child_weight=0.1).fit(x, y)
    theirs = float(np.sqrt(np.mean((peer.predict(tx) - ty) ** 2)))
    assert model.evaluate(test)["rmse"] <= theirs * 1.05


def test_same_seed_same_model_and_the_automatic_choice(cancer, tmp_path):
    train, test = cancer
    first = tc.random_forest_classifier.create(train, "target", max_iterations=5, random_seed=7, validation_set=None, verbose=False)
    second = tc.random_forest_classifier.create(train, "target", max_iterations=5, random_seed=7, validation_set=None, verbose=False)
    other = tc.random_forest_classifier.create(train, "target", max_iterations=5, random_seed=8, validation_set=None, verbose=False)
    first.export_coreml(str(tmp_path / "a.mlmodel"))
    second.export_coreml(str(tmp_path / "b.mlmodel"))
    other.export_coreml(str(tmp_path / "c.mlmodel"))
    a, b, c = ((tmp_path / name).read_bytes() for name in ("a.mlmodel", "b.mlmodel", "c.mlmodel"))
    assert a == b and a != c
    chosen = tc.classifier.create(train, "target", verbose=False)
    assert type(chosen).__name__ in {"BoostedTreesClassifier", "RandomForestClassifier", "DecisionTreeClassifier", "LogisticClassifier"}
    assert chosen.evaluate(test)["accuracy"] > 0.9


def test_strings_arrays_and_missing_values():
    rng = np.random.default_rng(0)
    n = 400
    color = rng.choice(["red", "green", "blue"], n)
    vector = rng.normal(size=(n, 3))
    size = rng.normal(size=n)
    label = np.where(1.5 * (color == "red") + vector[:, 0] + 0.5 * size > 0.75, "yes", "no")
    size_with_gaps = [None if i % 17 == 0 else float(v) for i, v in enumerate(size)]
    frame = tc.SFrame({"color": list(color), "vector": vector, "size": size_with_gaps, "label": list(label)})
    train, test = frame.random_split(0.75, seed=1)
    for create in (tc.boosted_trees_classifier.create, tc.logistic_classifier.create):
        model = create(train, "label", validation_set=None, verbose=False)
        assert model.evaluate(test)["accuracy"] > 0.85, create.__module__
        assert model.features == ["color", "vector", "size"]
        if hasattr(model, "coefficients"):
            table = model.coefficients
            # The intercept, 3 colours, 3 vector elements, the size; for the second class.
            assert len(table) == 8 and set(table["class"]) == {"yes"}
            assert sorted(i for i in table["index"] if i is not None) == ["0", "1", "2", "blue", "green", "red"]
        topk = model.predict_topk(test, k=2)
        assert len(topk) == 2 * len(test) and set(topk.column_names()) == {"id", "class", "probability"}
        classified = model.classify(test)
        assert list(classified["class"]) == list(model.predict(test))


def test_validation_set_auto_none_and_table(cancer, capsys):
    train, test = cancer
    auto = tc.logistic_classifier.create(train, "target", verbose=True)
    printed = capsys.readouterr().out
    assert "Validation Accuracy" in printed and "Iteration" in printed
    assert auto.validation_accuracy is not None and auto.validation_set_size > 0
    none = tc.logistic_classifier.create(train, "target", validation_set=None, verbose=False)
    assert none.validation_accuracy is None
    table = tc.logistic_classifier.create(train, "target", validation_set=test, verbose=False)
    assert table.validation_set_size == len(test)
    assert table.validation_accuracy == pytest.approx(table.evaluate(test)["accuracy"], abs=1e-9)


def test_save_load_export_round_trip(cancer, tmp_path):
    ct = pytest.importorskip("coremltools")
    train, test = cancer
    model = tc.boosted_trees_classifier.create(train, "target", max_iterations=5, validation_set=None, verbose=False)
    model.save(str(tmp_path / "trees"))
    loaded = tc.load_model(str(tmp_path / "trees"))
    assert type(loaded).__name__ == "BoostedTreesClassifier" and loaded.classes == model.classes
    assert list(loaded.predict(test, output_type="probability")) == list(model.predict(test, output_type="probability"))
    assert "Class                          : BoostedTreesClassifier" in repr(loaded)
    model.save(str(tmp_path / "trees"))  # replaces a saved model
    path = str(tmp_path / "trees.mlmodel")
    model.export_coreml(path)
    spec = ct.utils.load_spec(path)
    assert spec.description.predictedFeatureName == "target"
    exported = opencoreml.MLModel(path)
    row = {name: float(test[0][name]) for name in model.features}
    out = exported.predict(row)
    assert out["targetProbability"][1] == pytest.approx(model.predict(test[0:1], output_type="probability")[0], abs=1e-12)


def test_ctrl_c_keeps_the_model_trained_so_far(capsys):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20000, 20))
    y = (x[:, 0] + np.sin(3 * x[:, 1]) + rng.normal(scale=0.5, size=len(x)) > 0).astype(np.int64)
    frame = frame_from(x, y)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        model = tc.boosted_trees_classifier.create(frame, "target", max_iterations=100000, validation_set=None, verbose=False)
    finally:
        timer.cancel()
    assert model.interrupted
    assert 0 < model.training_iterations < 100000
    assert model.evaluate(frame)["accuracy"] > 0.7
    assert "keeping the model so far" in capsys.readouterr().err


def test_bad_input_gives_one_toolkit_error(cancer, tmp_path):
    train, _ = cancer
    with pytest.raises(tc.ToolkitError, match="'nope'"):
        tc.boosted_trees_classifier.create(train, "nope", verbose=False)
    with pytest.raises(ValueError, match="features: column 'missing'"):
        tc.logistic_classifier.create(train, "target", features=["missing"], verbose=False)
    one_class = tc.SFrame({"x": [1.0, 2.0, 3.0], "y": ["a", "a", "a"]})
    with pytest.raises(tc.ToolkitError, match="one class"):
        tc.logistic_classifier.create(one_class, "y", verbose=False)
    with pytest.raises(tc.ToolkitError, match="no rows"):
        tc.boosted_trees_classifier.create(train[0:0], "target", verbose=False)
    with pytest.raises(ValueError, match="max_depth"):
        tc.boosted_trees_classifier.create(train, "target", max_depth=0, verbose=False)
    with pytest.raises(ValueError, match="row_subsample"):
        tc.random_forest_classifier.create(train, "target", row_subsample=1.5, verbose=False)
    with pytest.raises(ValueError, match="validation_set"):
        tc.logistic_classifier.create(train, "target", validation_set="sometimes", verbose=False)
    with pytest.raises(tc.ToolkitError, match="not a saved model"):
        tc.load_model(str(tmp_path))
    model = tc.decision_tree_classifier.create(train, "target", verbose=False, validation_set=None)
    model.save(str(tmp_path / "m"))
    (tmp_path / "m" / "state.json").write_text("{ not json")
    with pytest.raises(tc.ToolkitError, match="cannot be read"):
        tc.load_model(str(tmp_path / "m"))
    model.save(str(tmp_path / "n"))
    (tmp_path / "n" / "model.mlmodel").write_bytes(b"garbage")
    with pytest.raises(tc.ToolkitError, match="cannot be loaded"):
        tc.load_model(str(tmp_path / "n"))
    with pytest.raises(tc.ToolkitError, match="column 'f0'"):
        model.predict(train.remove_column("f0"))
    # A failed save leaves no half-written folder.
    with pytest.raises(tc.ToolkitError):
        model.save(str(tmp_path / "no-such-folder" / "m"))
    assert not (tmp_path / "no-such-folder").exists()


# Image classifier and feature extraction, on generated pictures (three kinds of colour field).

def _pictures(count, seed):
    PIL = pytest.importorskip("PIL.Image")
    import io

    rng = np.random.default_rng(seed)
    images, labels = [], []
    for i in range(count):
        label = ["red", "green", "blue"][i % 3]
        base = np.zeros((224, 224, 3))
        base[:, :, i % 3] = 200
        noisy = np.clip(base + rng.normal(scale=40, size=base.shape), 0, 255).astype(np.uint8)
        buffer = io.BytesIO()
        PIL.fromarray(noisy).save(buffer, format="PNG")
        images.append(tc.Image(_bytes=buffer.getvalue()))
        labels.append(label)
    return tc.SFrame({"image": tc.SArray(images), "label": labels})


def test_image_classifier_trains_predicts_saves_and_exports(tmp_path, monkeypatch):
    ct = pytest.importorskip("coremltools")
    PIL = pytest.importorskip("PIL.Image")
    monkeypatch.setenv("OPENCOREML_FEATURE_CACHE", str(tmp_path / "cache"))
    train, test = _pictures(24, 0), _pictures(9, 1)
    model = tc.image_classifier.create(train, "label", max_iterations=20, verbose=False)
    assert model.evaluate(test)["accuracy"] == 1.0
    assert model.model == "EfficientNet-Lite0" and model.classes == ["blue", "green", "red"]
    # The cache holds one file per picture; a second create reads them.
    cached = len(os.listdir(tmp_path / "cache"))
    assert cached == 24 + 9
    again = tc.image_classifier.create(train, "label", max_iterations=20, verbose=False)
    assert len(os.listdir(tmp_path / "cache")) == cached
    assert list(again.predict(test, output_type="probability_vector")) == list(model.predict(test, output_type="probability_vector"))
    model.save(str(tmp_path / "ic.model"))
    loaded = tc.load_model(str(tmp_path / "ic.model"))
    assert list(loaded.predict(test)) == list(model.predict(test))
    path = str(tmp_path / "ic.mlmodel")
    model.export_coreml(path)
    assert ct.utils.load_spec(path).WhichOneof("Type") == "pipelineClassifier"
    exported = opencoreml.MLModel(path)
    vectors = model.predict(test, output_type="probability_vector")
    for i in range(len(test)):
        picture = PIL.open(__import__("io").BytesIO(test["image"][i]._bytes))
        out = exported.predict({"image": picture})
        assert [out["labelProbability"][c] for c in model.classes] == pytest.approx(list(vectors[i]), abs=1e-6)


def test_chapter_5_internals_build_the_same_classifier(tmp_path, monkeypatch):
    from opencoreml.turicreate.toolkits import _image_feature_extractor, _pre_trained_models
    from opencoreml.turicreate.toolkits.image_classifier import ImageClassifier

    monkeypatch.setenv("OPENCOREML_FEATURE_CACHE", str(tmp_path / "cache"))
    train, test = _pictures(24, 2), _pictures(9, 3)
    with pytest.warns(tc.ModelSubstitutionWarning, match="squeezenet_v1.1"):
        pt_model = _pre_trained_models.MODELS["squeezenet_v1.1"]()
    assert pt_model.name == "EfficientNet-Lite0" and pt_model.input_image_shape == (3, 224, 224)
    extractor = _image_feature_extractor.MXFeatureExtractor(pt_model)
    features = extractor.extract_features(train, "image", verbose=False)
    assert len(features) == 24 and len(features[0]) == 672
    deep = tc.image_analysis.get_deep_features(train["image"], "EfficientNet-Lite0", verbose=False)
    assert np.array_equal(np.array(list(deep[0])), np.array(list(features[0])))
    frame = tc.SFrame({"label": train["label"], "__image_features__": features})
    frame.save(str(tmp_path / "features.sframe"))
    frame = tc.SFrame(str(tmp_path / "features.sframe"))
    lr_model = tc.logistic_classifier.create(frame, features=["__image_features__"], target="label", validation_set=None,
                                             max_iterations=50, seed=None, verbose=False, l2_penalty=10.0, l1_penalty=0.0,
                                             convergence_threshold=1e-8)
    state = {"classifier": lr_model, "model": pt_model.name, "max_iterations": lr_model.max_iterations,
             "feature_extractor": extractor, "input_image_shape": pt_model.input_image_shape, "target": lr_model.target,
             "feature": "image", "num_features": 1, "num_classes": lr_model.num_classes, "classes": lr_model.classes,
             "num_examples": lr_model.num_examples, "training_time": lr_model.training_time, "training_loss": None}
    model = ImageClassifier(state)
    assert model.evaluate(test)["accuracy"] == 1.0
    model.save(str(tmp_path / "regularized.model"))
    model.export_coreml(str(tmp_path / "regularized.mlmodel"))
    assert tc.load_model(str(tmp_path / "regularized.model")).classifier.num_classes == 3
    with pytest.raises(tc.ToolkitError, match="not available"):
        tc.image_classifier.create(train, "label", model="alexnet", verbose=False)


def test_image_classifier_bad_input(tmp_path):
    frame = _pictures(6, 4)
    with pytest.raises(tc.ToolkitError, match="target"):
        tc.image_classifier.create(frame, "nope", verbose=False)
    with pytest.raises(TypeError, match="not images"):
        tc.image_classifier.create(frame, "image", feature="label", verbose=False)
    one = tc.SFrame({"image": frame["image"], "label": ["a"] * 6})
    with pytest.raises(tc.ToolkitError, match="one class"):
        tc.image_classifier.create(one, "label", verbose=False)


# Activity classifier, on generated motion: each activity a sine of its own frequency.

def _motion(sessions, seed, length=240):
    rng = np.random.default_rng(seed)
    rows = {"session": [], "x": [], "y": [], "activity": []}
    for s in range(sessions):
        for part, activity in enumerate(["slow", "fast"] if s % 2 == 0 else ["fast", "slow"]):
            frequency = 0.05 if activity == "slow" else 0.3
            t = np.arange(length // 2)
            rows["session"] += [f"s{seed}-{s}"] * len(t)
            rows["x"] += list(np.sin(frequency * t) + rng.normal(scale=0.1, size=len(t)))
            rows["y"] += list(np.cos(frequency * t) + rng.normal(scale=0.1, size=len(t)))
            rows["activity"] += [activity] * len(t)
    return tc.SFrame(rows)


def test_activity_classifier_trains_predicts_saves_and_exports(tmp_path):
    ct = pytest.importorskip("coremltools")
    train, test = _motion(12, 0), _motion(4, 1)
    first, rest = tc.activity_classifier.util.random_split_by_session(train, "session", fraction=0.75, seed=3)
    assert len(first) + len(rest) == len(train)
    assert not set(first["session"].unique()) & set(rest["session"].unique())
    model = tc.activity_classifier.create(train, session_id="session", target="activity", features=["x", "y"], prediction_window=20,
                                          validation_set=rest, max_iterations=15, verbose=False, random_seed=0)
    metrics = model.evaluate(test)
    assert metrics["accuracy"] > 0.85
    per_row = model.predict(test)
    assert len(per_row) == len(test)
    per_window = model.predict(test, output_frequency="per_window")
    assert set(per_window.column_names()) == {"session", "prediction_id", "class"}
    assert len(per_window) == sum((n + 19) // 20 for n in [120 * 2] * 4)
    model.save(str(tmp_path / "GestureClassifier"))
    assert list(tc.load_model(str(tmp_path / "GestureClassifier")).predict(test)) == list(per_row)
    model.export_coreml(str(tmp_path / "GestureClassifier.mlmodel"))
    spec = ct.utils.load_spec(str(tmp_path / "GestureClassifier.mlmodel"))
    assert [i.name for i in spec.description.input][:1] == ["features"]


def test_activity_batchnorm_statistics_bias_corrected_by_default_are_more_confident():
    train, test = _motion(12, 0), _motion(4, 1)
    confidence = {}
    for statistics in ("bias-corrected", "moving-average"):
        model = tc.activity_classifier.create(train, session_id="session", target="activity", prediction_window=20,
                                              validation_set=None, max_iterations=3, verbose=False, random_seed=0,
                                              batchnorm_statistics=statistics)
        probabilities = np.array(list(model.predict(test, output_type="probability_vector")))
        confidence[statistics] = float(probabilities.max(axis=1).mean())
    # Three iterations are 3 moving-average steps: Turi's statistics are still ≈ (0, 1).
    assert confidence["bias-corrected"] > confidence["moving-average"]


def test_activity_classifier_bad_input():
    train = _motion(4, 0)
    with pytest.raises(tc.ToolkitError, match="prediction_window"):
        tc.activity_classifier.create(train, "session", "activity", prediction_window=1000, verbose=False)
    with pytest.raises(tc.ToolkitError, match="session_id"):
        tc.activity_classifier.create(train, "nope", "activity", verbose=False)
    with pytest.raises(ValueError, match="fraction"):
        tc.activity_classifier.util.random_split_by_session(train, "session", fraction=1.5)
    with pytest.raises(ValueError, match="batchnorm_statistics"):
        tc.activity_classifier.create(train, "session", "activity", prediction_window=20, batchnorm_statistics="turi", verbose=False)
