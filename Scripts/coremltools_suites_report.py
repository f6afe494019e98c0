#!/usr/bin/env python3
"""COMPATIBILITY.md from coremltools' own test suites run through OpenCoreML.

Reads the per-test JSON lines that `pytest -p opencoreml.pytest_plugin --opencoreml-report=FILE`
writes (schema: the plugin's docstring), one FILE per suite, named SUITE.jsonl in --results, and
writes a Markdown report: per suite, the tests collected and run, those that reached OpenCoreML
(a model given to it to load or predict), how many of those passed and failed, the failures
grouped by operation (the test class, which in coremltools' suites tests one operation or model
type) with their first error line, and the tests that failed before reaching OpenCoreML
(conversion, missing packages), counted apart with their reasons.

    python3 Scripts/coremltools_suites_report.py --results .build/coremltools-suites \
        --output COMPATIBILITY.md [--require SUITE=RATE ...]

`--require mil-ops=0.80` exits non-zero when fewer than 80 % of that suite's tests that reached
OpenCoreML passed (CI's guard against regressions).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import re
import sys

# Suites in report order: file stem -> (title, what it is).
SUITES = {
    "mil-ops": ("MIL operations (iOS14–iOS18)",
                "`coremltools/converters/mil/mil/ops/tests`: every MIL operation, built with the MIL builder, "
                "converted to an ML Program (fp16, iOS15–iOS18 opsets) and to a neural network (iOS14)"),
    "sklearn": ("scikit-learn converters",
                "`coremltools/test/sklearn_tests` with scikit-learn 1.5.1: trees, SVMs, linear models, "
                "scalers, encoders and pipelines converted and compared with scikit-learn"),
    "xgboost": ("XGBoost and tree converters",
                "`coremltools/test/xgboost_tests` with XGBoost 3 and scikit-learn 1.5.1: boosted trees, decision "
                "trees and forests converted and compared with their library"),
    "pipeline": ("Pipelines",
                 "`coremltools/test/pipeline`: scikit-learn pipelines and updatable pipelines"),
    "neural-network": ("Neural-network builder",
                       "`coremltools/test/neural_network`: layers built with `NeuralNetworkBuilder` and "
                       "compared with numpy"),
    "torch": ("PyTorch frontend",
              "`coremltools/converters/mil/frontend/torch/test` with torch 2.13.0+cpu: modules traced "
              "or exported, converted, and compared with PyTorch"),
}


def load(path: str) -> tuple[list[dict], dict]:
    tests, session = [], {}
    with open(path, encoding="utf-8") as file:
        for line in file:
            line = line.strip()
            if not line:
                continue
            try:
                entry = json.loads(line)
            except ValueError:  # a line cut short when a run was interrupted (it reruns on --resume)
                continue
            if "session" in entry:
                # One summary per pytest process: shards run side by side, and resumed runs, add up.
                part = entry["session"]
                errors = {e["nodeid"]: e for e in session.get("collection_errors", []) + part.get("collection_errors", [])}
                session = {"collected": max(session.get("collected", 0), part.get("collected", 0)),
                           "selected": session.get("selected", 0) + part.get("selected", 0),
                           "sample": part.get("sample", 1), "collection_errors": list(errors.values())}
            else:
                tests.append(entry)
    # A test rerun (appended) counts once, with its last result.
    latest = {test["nodeid"]: test for test in tests}
    return list(latest.values()), session


def reached(test: dict) -> bool:
    """Whether the test gave OpenCoreML a model to load or to predict with."""
    return (test.get("loaded", 0) + test.get("load_failed", 0) + test.get("predicted", 0)
            + test.get("predict_failed", 0)) > 0


def operation(nodeid: str) -> str:
    """The operation or model type a test is about: its file and class (`iOS17/test_conv.py::TestConv`)."""
    path, _, rest = nodeid.partition("::")
    parts = path.split("/")
    short = "/".join(parts[-2:]) if len(parts) > 1 and parts[-2].startswith("iOS") else parts[-1]
    test_class = rest.split("::")[0] if "::" in rest else ""
    return f"{short}::{test_class}" if test_class else short


UNSUPPORTED = [
    (re.compile(r"operation type '([^']+)' is not supported"), "MIL op `{}` not supported"),
    (re.compile(r"(\w+) layers are not supported"), "layer `{}` not supported"),
    (re.compile(r"prediction for (\w+) models is not supported"), "model type `{}` not supported"),
    (re.compile(r"(\w+) models \(field \d+\) are not supported"), "model type `{}` not supported"),
]


def cause(test: dict) -> str:
    """A short cause for a failure that reached OpenCoreML: the unsupported piece when the library
    named one, else the first error line with numbers blanked (so like failures group together)."""
    texts = list(test.get("load_errors") or []) + list(test.get("predict_errors") or []) + [test.get("message") or ""]
    for text in texts:
        for pattern, label in UNSUPPORTED:
            match = pattern.search(text)
            if match:
                return label.format(match.group(1))
    first = next((text for text in texts if text), "(no message)")
    return shorten(first)


def shorten(text: str, limit: int = 150) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = text.replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def blank_numbers(text: str) -> str:
    """`text` with its numbers as N, so that failures differing only in sizes group together;
    the names of unsupported pieces (`l2_norm`) are kept as they are."""
    if text.endswith("not supported") and "`" in text:
        return text
    return re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", text)


def summarize(tests: list[dict]) -> dict:
    counts = collections.Counter()
    for test in tests:
        outcome = test["outcome"]
        if outcome == "skipped":
            counts["skipped"] += 1
        elif reached(test):
            counts["reached"] += 1
            counts["passed" if outcome == "passed" else "failed"] += 1
        elif outcome == "passed":
            counts["passed without predicting"] += 1
        else:
            counts["failed before predicting"] += 1
    return counts


def backend(nodeid: str) -> str | None:
    """The Core ML backend a parametrized test converts to, with its opset when the id names one."""
    kind = "ML Program" if "mlprogram" in nodeid else "neural network" if "neuralnetwork" in nodeid else None
    if kind is None:
        return None
    opset = re.search(r"AvailableTarget\.(iOS\d+)", nodeid)
    return f"{kind}, {opset.group(1)}" if opset else kind


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "–"


def suite_section(name: str, tests: list[dict], session: dict) -> list[str]:
    title, what = SUITES.get(name, (name, ""))
    counts = summarize(tests)
    lines = [f"## {title}", "", what + ".", ""]
    if not session:
        lines += ["The run ended without its summary line (pytest was interrupted or crashed): the counts are "
                  "of the tests that reported.", ""]
    sample = session.get("sample", 1)
    if sample and sample > 1:
        lines += [f"A fixed sample: the {session.get('selected', len(tests))} of {session.get('collected', '?')} "
                  f"collected tests whose node id's CRC-32 is divisible by {sample} "
                  f"(`--opencoreml-sample={sample}`).", ""]
    for error in session.get("collection_errors", []):
        lines += [f"Not collected: `{error['nodeid']}` ({shorten(error['message'], 120)}).", ""]

    # Per backend (and opset): coremltools converts most tests to both kinds of model.
    by_backend = collections.defaultdict(collections.Counter)
    for test in tests:
        kind = backend(test["nodeid"])
        if kind and test["outcome"] != "skipped" and reached(test):
            by_backend[kind]["reached"] += 1
            by_backend[kind]["passed"] += test["outcome"] == "passed"
    if len(by_backend) > 1:
        lines += ["| Converted to | Reached OpenCoreML | Passed | Passed of reached |", "|---|---:|---:|---:|"]
        for kind, counts in sorted(by_backend.items()):
            lines.append(f"| {kind} | {counts['reached']} | {counts['passed']} | {percent(counts['passed'], counts['reached'])} |")
        lines.append("")

    # Per operation: tests that reached OpenCoreML, passed, failed, and the commonest cause.
    by_operation = collections.defaultdict(list)
    for test in tests:
        if test["outcome"] != "skipped" and reached(test):
            by_operation[operation(test["nodeid"])].append(test)
    failing = {op: group for op, group in by_operation.items() if any(t["outcome"] != "passed" for t in group)}
    lines += [f"### Failures by operation ({len(failing)} of {len(by_operation)} operations or model types with a failure)", ""]
    if failing:
        lines += ["| Test class (operation) | Reached | Passed | Failed | Commonest cause (first error line) |",
                  "|---|---:|---:|---:|---|"]
        for op, group in sorted(failing.items(), key=lambda item: (-sum(t["outcome"] != "passed" for t in item[1]), item[0])):
            failed = [t for t in group if t["outcome"] != "passed"]
            causes = collections.Counter(blank_numbers(cause(t)) for t in failed)
            commonest, times = causes.most_common(1)[0]
            example = next(cause(t) for t in failed if blank_numbers(cause(t)) == commonest)
            more = f" (+{len(causes) - 1} other causes)" if len(causes) > 1 else ""
            lines.append(f"| `{op}` | {len(group)} | {len(group) - len(failed)} | {len(failed)} | {example}{more} |")
        lines.append("")
    else:
        lines += ["None.", ""]

    # Causes across the suite.
    causes = collections.Counter()
    for test in tests:
        if test["outcome"] not in ("passed", "skipped") and reached(test):
            causes[blank_numbers(cause(test))] += 1
    if causes:
        lines += ["### Failures by cause", "", "| Failed tests | Cause |", "|---:|---|"]
        lines += [f"| {count} | {shorten(text)} |" for text, count in causes.most_common(40)]
        if len(causes) > 40:
            lines.append(f"| {sum(c for _, c in causes.most_common()[40:])} | ({len(causes) - 40} rarer causes) |")
        lines.append("")

    # Failed before reaching OpenCoreML.
    before = collections.Counter()
    for test in tests:
        if test["outcome"] in ("failed", "error") and not reached(test):
            before[shorten(blank_numbers(test.get("message") or "(no message)"), 140)] += 1
    if before:
        lines += ["### Failed before reaching OpenCoreML (conversion, test setup, packages)", "",
                  "| Tests | First error line |", "|---:|---|"]
        lines += [f"| {count} | {text} |" for text, count in before.most_common(25)]
        if len(before) > 25:
            lines.append(f"| {sum(c for _, c in before.most_common()[25:])} | ({len(before) - 25} rarer reasons) |")
        lines.append("")
    return lines


def core_operations() -> list[str]:
    """coremltools' MIL operation types (`SSAOpRegistry.core_ops`), or none when coremltools is not importable."""
    try:
        from coremltools.converters.mil.mil.ops.registry import SSAOpRegistry
    except Exception:
        return []
    return sorted(SSAOpRegistry.core_ops)


def operations_section(suites: dict) -> list[str]:
    """Every MIL operation type: the tests of the MIL operation suite whose ML Program used it, how
    many of those that reached OpenCoreML passed, and the test classes they belong to. A test's
    models are listed by the plugin with the operation types of their programs; a test counts for
    each type it used."""
    per_op = collections.defaultdict(lambda: {"reached": 0, "passed": 0, "classes": collections.Counter()})
    for name, (tests, _) in suites.items():
        if name != "mil-ops":
            continue
        for test in tests:
            if test["outcome"] == "skipped" or not reached(test):
                continue
            used = {op for model in test.get("models") or [] for op in model.get("ops") or []}
            for op in used:
                entry = per_op[op]
                entry["reached"] += 1
                entry["passed"] += test["outcome"] == "passed"
                entry["classes"][operation(test["nodeid"])] += 1
    core = core_operations()
    names = sorted(set(core) | set(per_op))
    if not names:
        return []
    lines = ["## Every MIL operation", "",
             f"Each of coremltools 9.0's {len(core) or len(names)} MIL operation types (`SSAOpRegistry.core_ops`) with the tests "
             "of the MIL operation suite whose ML Programs used it: how many reached OpenCoreML and passed. A test "
             "using several operations counts for each, so a failure may be another operation's. coremltools folds many of its tests' operations into constants before saving (its "
             "inputs are constants), so some operations reach no test here; those are tested by OpenCoreML's "
             "own tests (`Tests/OpenCoreMLEngineTests`, `MIL…OpsTests`).", "",
             "| Operation | Tests reached | Passed | Passed of reached | Test classes (most tests first) |",
             "|---|---:|---:|---:|---|"]
    for name in names:
        entry = per_op.get(name)
        if entry is None:
            lines.append(f"| `{name}` | 0 | 0 | – | (no test in these suites reached OpenCoreML with it) |")
            continue
        classes = ", ".join(f"`{c}`" for c, _ in entry["classes"].most_common(3))
        more = f" and {len(entry['classes']) - 3} more" if len(entry["classes"]) > 3 else ""
        lines.append(f"| `{name}` | {entry['reached']} | {entry['passed']} | "
                     f"{percent(entry['passed'], entry['reached'])} | {classes}{more} |")
    lines.append("")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True, help="folder of SUITE.jsonl files")
    parser.add_argument("--output", help="the Markdown file to write (default: print)")
    parser.add_argument("--command", default="Scripts/coremltools-suites.sh", help="the command that made the results")
    parser.add_argument("--library", default="", help="which OpenCoreML the results are of (a commit, a version)")
    parser.add_argument("--require", action="append", default=[], metavar="SUITE=RATE",
                        help="fail unless this share of the suite's tests that reached OpenCoreML passed")
    arguments = parser.parse_args()

    # The known suites in their order, then any other SUITE.jsonl.
    found = {name[: -len(".jsonl")] for name in os.listdir(arguments.results) if name.endswith(".jsonl")}
    order = [name for name in SUITES if name in found] + sorted(found - set(SUITES))
    suites = {name: load(os.path.join(arguments.results, f"{name}.jsonl")) for name in order}
    if not suites:
        print(f"no SUITE.jsonl files in {arguments.results}", file=sys.stderr)
        return 1

    lines = ["# Compatibility: coremltools' own test suites, predicting through OpenCoreML", "",
             "coremltools 9.0 ships its test suites in its wheel. On macOS they compare Core ML's predictions "
             "with numpy, scikit-learn and PyTorch; on Linux they stop before predicting. Run with "
             "`pytest -p opencoreml.pytest_plugin` (the `opencoreml` Python package), they take their macOS "
             "path and predict through OpenCoreML instead: thousands of cases written by Core ML's authors.", "",
             f"Made by `{arguments.command}` on {datetime.date.today().isoformat()}"
             + (f" with OpenCoreML {arguments.library}" if arguments.library else "") + " "
             "(results: `.build/coremltools-suites/`, table: `Scripts/coremltools_suites_report.py`). "
             "A test *reached* OpenCoreML when it gave it a model to load or predict with; a model OpenCoreML "
             "refuses to load (an operation it does not run) counts as a failure that reached it. Tests that "
             "failed before that (a conversion error, a package missing) are counted apart.", "",
             "| Suite | Collected | Run | Skipped | Reached OpenCoreML | Passed | Failed | Passed of reached | "
             "Passed without predicting | Failed before predicting |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    failures = []
    for name, (tests, session) in suites.items():
        counts = summarize(tests)
        title = SUITES.get(name, (name,))[0]
        collected = session.get("collected", len(tests))
        rate = counts["passed"] / counts["reached"] if counts["reached"] else 0.0
        lines.append(f"| {title} | {collected} | {len(tests)} | {counts['skipped']} | {counts['reached']} | "
                     f"{counts['passed']} | {counts['failed']} | **{percent(counts['passed'], counts['reached'])}** | "
                     f"{counts['passed without predicting']} | {counts['failed before predicting']} |")
        for requirement in arguments.require:
            suite, _, minimum = requirement.partition("=")
            if suite == name and rate < float(minimum):
                failures.append(f"{name}: {rate:.3f} of the tests that reached OpenCoreML passed; at least {minimum} required")
    lines.append("")
    lines += operations_section(suites)
    for name, (tests, session) in suites.items():
        lines += suite_section(name, tests, session)

    text = "\n".join(lines).rstrip() + "\n"
    if arguments.output:
        temporary = arguments.output + ".tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, arguments.output)
    else:
        sys.stdout.write(text)
    for failure in failures:
        print(f"coremltools suites: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
