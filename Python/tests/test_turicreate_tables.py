"""opencoreml.turicreate's tables (SFrame, SArray, aggregate) against pandas and hand-worked values."""

import array
import os

import numpy as np
import pandas as pd
import pytest

tc = pytest.importorskip("opencoreml.turicreate")


@pytest.fixture
def people():
    return tc.SFrame({"name": ["ann", "bob", "cy", "dee", "ed"], "age": [31, 25, None, 40, 25],
                      "score": [0.5, 1.5, 2.5, None, 4.0], "team": ["a", "b", "a", "b", "a"]})


def test_sarray_types_and_values():
    assert tc.SArray([1, 2, 3]).dtype is int
    assert tc.SArray([1, 2.5]).dtype is float
    assert tc.SArray(["x", None]).dtype is str
    assert tc.SArray([[1, 2], [3]]).dtype is array.array
    assert tc.SArray(np.arange(4)).dtype is int
    values = tc.SArray([3, 1, None, 2])
    assert list(values) == [3, 1, None, 2]
    assert values[1] == 1 and values[-1] == 2
    assert list(values[1:3]) == [1, None]
    assert list(values.sort()) == [1, 2, 3, None]
    assert list(values.sort(ascending=False)) == [3, 2, 1, None]
    assert values.sum() == 6 and values.min() == 1 and values.max() == 3 and values.mean() == 2
    assert values.std() == pytest.approx(np.std([3, 1, 2]))
    assert values.countna() == 1
    with pytest.raises(tc.ToolkitError):
        tc.SArray([1, "a"])
    with pytest.raises(TypeError):
        tc.SArray(["a", 2])


def test_sarray_arithmetic_comparisons_and_masks():
    a, b = tc.SArray([1, 2, 3, 4]), tc.SArray([4, 3, 2, 1])
    assert list(a + b) == [5, 5, 5, 5]
    assert list(a * 2) == [2, 4, 6, 8]
    assert list(10 - a) == [9, 8, 7, 6]
    assert list(a / 2) == [0.5, 1.0, 1.5, 2.0]
    assert list(a > 2) == [0, 0, 1, 1]
    assert list((a > 1) & (b > 1)) == [0, 1, 1, 0]
    assert list((a == 1) | (b == 1)) == [1, 0, 0, 1]
    assert list(a[a >= 3]) == [3, 4]
    assert list(tc.SArray(["a", "b"]) + "!") == ["a!", "b!"]
    with pytest.raises(ValueError):
        a + tc.SArray([1, 2])


def test_sarray_apply_unique_and_value_counts():
    paths = tc.SArray(["/data/train/apple/1.jpg", "/data/train/banana/2.jpg", "/data/train/apple/3.jpg"])
    labels = paths.apply(lambda path: os.path.basename(os.path.split(path)[0]))
    assert labels.dtype is str and list(labels) == ["apple", "banana", "apple"]
    assert sorted(labels.unique()) == ["apple", "banana"]
    assert list(labels.unique().sort()) == ["apple", "banana"]
    counts = labels.value_counts()
    assert counts.column_names() == ["value", "count"]
    assert list(counts["value"]) == ["apple", "banana"] and list(counts["count"]) == [2, 1]
    summary = labels.summary()
    assert summary.size == 3 and summary.num_unique == 2 and summary.frequent_items[0] == ("apple", 2)
    assert "most frequent items" in repr(summary)
    assert list(tc.SArray([1, None, 3]).apply(lambda x: x * 10)) == [10, None, 30]
    assert list(tc.SArray(["1", "x"]).astype(int, undefined_on_failure=True)) == [1, None]


def test_sframe_construction_and_indexing(people):
    assert len(people) == 5 and people.num_columns() == 4
    assert people.column_names() == ["name", "age", "score", "team"]
    assert people.column_types() == [str, int, float, str]
    assert people[0] == {"name": "ann", "age": 31, "score": 0.5, "team": "a"}
    assert people[-1]["name"] == "ed"
    assert list(people["name"][1:3]) == ["bob", "cy"]
    assert people[["name", "team"]].column_names() == ["name", "team"]
    assert list(people[people["team"] == "a"]["name"]) == ["ann", "cy", "ed"]
    assert list(people[1:4]["name"]) == ["bob", "cy", "dee"]
    frame = tc.SFrame(pd.DataFrame({"x": [1, 2], "y": ["p", "q"]}))
    assert frame.column_types() == [int, str] and frame[1] == {"x": 2, "y": "q"}
    with pytest.raises(tc.ToolkitError, match="missing"):
        people["missing"]
    with pytest.raises(ValueError):
        tc.SFrame({"a": [1, 2], "b": [1]})


def test_sframe_column_changes(people):
    people["double"] = people["age"] * 2
    people["constant"] = 7
    assert list(people["double"]) == [62, 50, None, 80, 50]
    assert list(people["constant"]) == [7] * 5
    renamed = people.rename({"double": "twice"})
    assert "twice" in renamed.column_names() and "double" in people.column_names()
    removed = renamed.remove_column("twice")
    assert "twice" not in removed.column_names()
    added = removed.add_column(tc.SArray([1, 2, 3, 4, 5]), "rank")
    assert list(added["rank"]) == [1, 2, 3, 4, 5]
    with pytest.raises(ValueError):
        people["short"] = [1, 2]


def test_sframe_filter_sort_groupby_against_pandas(people):
    frame = people.to_dataframe()
    assert list(people.filter_by(["a"], "team")["name"]) == list(frame[frame.team == "a"].name)
    assert list(people.filter_by("a", "team", exclude=True)["name"]) == list(frame[frame.team != "a"].name)
    by_age = people.sort("age")
    assert list(by_age["name"]) == ["bob", "ed", "ann", "dee", "cy"]  # missing last, ties in row order
    by_team_score = people.sort([("team", True), ("score", False)])
    assert list(by_team_score["name"]) == ["ed", "cy", "ann", "bob", "dee"]
    grouped = people.groupby("team", {"n": tc.aggregate.COUNT(), "total": tc.aggregate.SUM("score"),
                                      "mean_age": tc.aggregate.MEAN("age"), "oldest": tc.aggregate.MAX("age"),
                                      "names": tc.aggregate.CONCAT("name")}).sort("team")
    expected = frame.groupby("team").agg(n=("name", "size"), total=("score", "sum"), mean_age=("age", "mean"),
                                         oldest=("age", "max")).sort_index()
    assert list(grouped["n"]) == list(expected.n)
    assert list(grouped["total"]) == pytest.approx(list(expected.total))
    assert list(grouped["mean_age"]) == pytest.approx(list(expected.mean_age))
    assert list(grouped["oldest"]) == list(expected.oldest)
    assert list(grouped["names"]) == [["ann", "cy", "ed"], ["bob", "dee"]]


def test_sframe_random_split_apply_append_unique(people):
    first, second = people.random_split(0.6, seed=5)
    assert len(first) + len(second) == 5
    assert sorted(list(first["name"]) + list(second["name"])) == sorted(people["name"])
    assert set(first["name"]).isdisjoint(second["name"])
    again = people.random_split(0.6, seed=5)[0]
    assert list(again["name"]) == list(first["name"])
    exact, _ = people.random_split(0.4, seed=1, exact=True)
    assert len(exact) == 2
    with pytest.raises(ValueError):
        people.random_split(1.5)
    assert list(people.apply(lambda row: row["name"].upper())) == ["ANN", "BOB", "CY", "DEE", "ED"]
    doubled = people.append(people)
    assert len(doubled) == 10
    assert len(doubled.unique()) == 5
    with pytest.raises(ValueError):
        people.append(people[["name"]])


def test_sframe_save_load_and_csv(people, tmp_path):
    people["vector"] = tc.SArray([[1.0, 2.0]] * 5)
    folder = tmp_path / "people.sframe"
    people.save(str(folder))
    loaded = tc.SFrame(str(folder))
    assert loaded.column_names() == people.column_names()
    assert list(loaded["age"]) == list(people["age"])
    assert list(loaded[0]["vector"]) == [1.0, 2.0]
    assert tc.load_sframe(str(folder)).num_rows() == 5
    # Saving again over the folder replaces it whole.
    people[["name"]].save(str(folder))
    assert tc.SFrame(str(folder)).column_names() == ["name"]
    csv = tmp_path / "people.csv"
    people[["name", "age", "score"]].save(str(csv), format="csv")
    back = tc.SFrame.read_csv(str(csv), verbose=False)
    assert back.column_types() == [str, int, float]
    assert list(back["age"]) == [31, 25, None, 40, 25]
    assert list(tc.SFrame(str(csv))["name"]) == ["ann", "bob", "cy", "dee", "ed"]


def test_read_csv_options(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("# a comment line\nid;size;kind\n1;2.5;x\n2;-;y\n3;4;z\n")
    frame = tc.SFrame.read_csv(str(path), delimiter=";", skiprows=1, na_values=["-"], verbose=False)
    assert frame.column_names() == ["id", "size", "kind"] and list(frame["size"]) == [2.5, None, 4.0]
    hinted = tc.SFrame.read_csv(str(path), delimiter=";", skiprows=1, na_values=["-"], column_type_hints={"id": float},
                                usecols=["id", "kind"], nrows=2, verbose=False)
    assert hinted.column_names() == ["id", "kind"] and hinted.column_types() == [float, str] and len(hinted) == 2
    headless = tc.SFrame.read_csv(str(path), delimiter=";", skiprows=2, header=False, verbose=False)
    assert headless.column_names() == ["X1", "X2", "X3"] and len(headless) == 3
    with pytest.raises(ValueError, match="no file"):
        tc.SFrame.read_csv(str(tmp_path / "absent.csv"))


def test_corrupt_saved_sframes_are_errors(tmp_path):
    folder = tmp_path / "broken.sframe"
    folder.mkdir()
    with pytest.raises(tc.ToolkitError, match="not a saved SFrame"):
        tc.SFrame(str(folder))
    (folder / "sframe.json").write_text('{"format": "opencoreml-sframe", "version": 1, "rows": 3}')
    (folder / "data.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(tc.ToolkitError, match="not a readable saved SFrame"):
        tc.SFrame(str(folder))


def test_printing_and_html(people, capsys):
    people.print_rows(num_rows=2)
    printed = capsys.readouterr().out
    assert "| name" in printed and "ann" in printed and "cy" not in printed
    assert "Rows: 5" in repr(people)
    assert "<table>" in people._repr_html_() and "&lt;" in tc.SFrame({"x": ["<b>"]})._repr_html_()


def test_dict_columns_round_trip_and_refuse_mixed_keys(tmp_path):
    counts = tc.SArray(["a b a", "c", None]).apply(lambda text: {w: text.split().count(w) for w in text.split()})
    assert counts.dtype is dict
    assert list(counts) == [{"a": 2, "b": 1}, {"c": 1}, None]
    frame = tc.SFrame({"counts": counts, "n": [1, 2, 3]})
    assert frame[0]["counts"] == {"a": 2, "b": 1}
    frame.save(str(tmp_path / "dicts"))
    assert list(tc.SFrame(str(tmp_path / "dicts"))["counts"]) == list(counts)
    assert list(frame.filter_by([2], "n")["counts"]) == [{"c": 1}]
    assert tc.SArray([{1: 0.5}, {2: 1}])[1] == {2: 1.0}
    with pytest.raises(TypeError, match="keys must be all str or all int"):
        tc.SArray([{"a": 1}, {2: "x"}])
    with pytest.raises(TypeError, match="values must be all numbers or all str"):
        tc.SArray([{"a": 1}, {"b": "x"}])
    with pytest.raises(tc.ToolkitError, match="holds map"):
        tc.logistic_classifier.create(tc.SFrame({"counts": counts, "y": ["p", "q", "p"]}), "y", verbose=False)
