"""The pytest plugin, run in a child pytest on a small test file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import opencoreml

pytest.importorskip("coremltools", reason="coremltools is not installed")

TESTS = textwrap.dedent('''
    import numpy as np
    import pytest
    import coremltools as ct
    from coremltools.models.utils import _is_macos, _macos_version
    from coremltools._deps import _IS_MACOS

    def test_platform_is_patched():
        import sys
        assert _is_macos() and _macos_version() == (15, 0) and _IS_MACOS
        assert sys.platform != "darwin"

    def test_predicts():
        model = ct.models.MLModel(PATH)
        x = np.ones((2, 3), np.float32)
        model.predict({"a": x, "b": x})

    def test_fails():
        model = ct.models.MLModel(PATH)
        model.predict({"a": np.ones((2, 3), np.float32)})

    @pytest.mark.skip(reason="nothing to see")
    def test_skipped():
        pass
''')


def test_plugin_patches_and_reports(tmp_path, program_fp32):
    test_file = tmp_path / "test_child.py"
    test_file.write_text(TESTS.replace("PATH", repr(program_fp32)))
    report = tmp_path / "report.jsonl"
    env = dict(os.environ)
    # The child imports the same opencoreml as this process (installed, or the source tree).
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(opencoreml.__file__)),
                                         env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "opencoreml.pytest_plugin", f"--opencoreml-report={report}",
         "-p", "no:cacheprovider", str(test_file)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert report.exists(), result.stdout + result.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert lines[-1]["session"]["collected"] == 4
    by_name = {line["nodeid"].split("::")[-1]: line for line in lines if "nodeid" in line}
    assert by_name["test_platform_is_patched"]["outcome"] == "passed", result.stdout
    predicted = by_name["test_predicts"]
    assert predicted["outcome"] == "passed", result.stdout
    assert predicted["loaded"] == 1 and predicted["predicted"] == 1
    assert predicted["models"][0]["type"] == "mlProgram"
    assert {"add", "relu", "matmul"} <= set(predicted["models"][0]["ops"])
    failed = by_name["test_fails"]
    assert failed["outcome"] == "failed" and failed["predicted"] == 0 and failed["predict_failed"] == 1
    assert "b" in failed["message"] and failed["predict_errors"][0].startswith("FeatureTypeError")
    assert by_name["test_skipped"]["outcome"] == "skipped"
    assert by_name["test_skipped"]["message"] == "nothing to see"


def test_plugin_samples_the_same_tests_every_time_and_summarises(tmp_path):
    from opencoreml.pytest_plugin import in_sample

    test_file = tmp_path / "test_many.py"
    test_file.write_text("import pytest\n\n@pytest.mark.parametrize('i', range(60))\ndef test_i(i):\n    pass\n")
    report = tmp_path / "report.jsonl"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(opencoreml.__file__)),
                                         env.get("PYTHONPATH", "")])
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "opencoreml.pytest_plugin", f"--opencoreml-report={report}",
         "--opencoreml-sample=4", "-p", "no:cacheprovider", str(test_file)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=True)
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    ran = {line["nodeid"] for line in lines if "nodeid" in line}
    expected = {f"test_many.py::test_i[{i}]" for i in range(60) if in_sample(f"test_many.py::test_i[{i}]", 4)}
    assert ran == expected and 0 < len(ran) < 60
    summary = lines[-1]["session"]
    assert summary["collected"] == 60 and summary["selected"] == len(ran) and summary["sample"] == 4


def test_shards_split_the_tests_and_resume_skips_reported_ones(tmp_path):
    from opencoreml.pytest_plugin import in_shard, reported_nodeids

    ids = [f"test_x.py::test_{i}" for i in range(300)]
    parts = [{i for i in ids if in_shard(i, k, 3)} for k in range(3)]
    assert set().union(*parts) == set(ids)
    assert sum(len(p) for p in parts) == len(ids) and all(parts)
    report = tmp_path / "suite.jsonl"
    report.write_text(json.dumps({"nodeid": ids[0]}) + "\n" + '{"nodeid": "cut sh')
    (tmp_path / "suite.jsonl.part1").write_text(json.dumps({"nodeid": ids[1]}) + "\n" + json.dumps({"session": {}}) + "\n")
    assert reported_nodeids(str(tmp_path / "suite.jsonl.part0")) == {ids[0], ids[1]}
