#!/usr/bin/env python3
"""Tabular trainers: `opencoreml tabular train` against XGBoost and LightGBM (and scikit-learn for
forests and single trees), same data, same hyperparameters, one run.

usage: python Scripts/bench_tabular.py [--rows 1000000] [--features 50] [--only breast_cancer,wine,digits,iris,
           diabetes,synthetic_classification,synthetic_regression] [--algorithms boosted,forest,tree]
           [--iterations 100] [--depth 6] [--threads 2] [--binary .build/release/opencoreml]
           [--workdir /tmp/bench-tabular] [--repeat 1] [--json results.json]

Issue 43's case (200,000 training rows × 30 features, boosted trees only):
    python Scripts/bench_tabular.py --rows 250000 --features 30 \
        --only synthetic_classification,synthetic_regression --algorithms boosted --repeat 3

Builds nothing: run `swift build -c release --product opencoreml` first. Needs numpy, scikit-learn and
xgboost 3.x; lightgbm (pip install lightgbm) is compared too when it is installed, skipped when not.

Data: scikit-learn's bundled breast_cancer, wine, digits, iris (classification) and diabetes
(regression), split 80/20 with train_test_split(random_state=0, stratified for classes); and
synthetic make_classification(--rows, --features features (50), 20 informative, 10 redundant, seed 0)
and make_regression(--rows, --features features, 20 informative, noise 10, seed 0); --rows counts all
the rows of a synthetic set, the first 80 % train and the rest test (so `--rows 250000 --features 30`
is issue 43's case: 200,000 training rows × 30 features). With fewer than 30 features the informative
and redundant counts shrink (two fifths and one fifth of the features).
Features are float32 (every tool sees the same values: the CSV files hold them with 9 significant
digits, which read back exactly). The data is written once into --workdir as CSV (for our command
line) and .npy (for the peers) and reused.

Models (boosted): --iterations rounds, max depth --depth, learning rate 0.3, 256 bins, L2 λ = 1,
min child weight 0.1 (Create ML's default), no row or column subsampling, no validation, no early
stopping, --threads threads each:
  ours      opencoreml tabular train --algorithm boosted-tree --validation none --max-iterations N
            --max-depth D --step-size 0.3 --min-child-weight 0.1 --threads T
  XGBoost   XGB{Classifier,Regressor}(tree_method="hist", n_estimators=N, max_depth=D, learning_rate=0.3,
            max_bin=256, reg_lambda=1, min_child_weight=0.1, n_jobs=T)
  LightGBM  LGBM{Classifier,Regressor}(n_estimators=N, max_depth=D, num_leaves=2**D, learning_rate=0.3,
            max_bin=255 (+1 bin for missing values = 256), reg_lambda=1, min_child_weight=0.1,
            min_child_samples=1, n_jobs=T)
Forest (bundled sets): ours --algorithm random-forest (N trees, depth D, Create ML's row and column
subsample 0.8 per tree) against sklearn RandomForest{Classifier,Regressor}(n_estimators=N, max_depth=D,
n_jobs=T) and XGBoost's XGBRF{Classifier,Regressor}(n_estimators=N, max_depth=D, subsample=0.8,
colsample_bynode=0.8, n_jobs=T). Tree (bundled sets): ours --algorithm decision-tree against sklearn
DecisionTree{Classifier,Regressor}(max_depth=D).

Timed: ours = the fit time `tabular train` reports in its --log summary (the trainer, from the loaded
table to the trained model, including binning and the training metrics; not reading the CSV file,
which is reported on its own, nor writing the model); the peers = their fit() call (binning and
DMatrix/Dataset construction included) on in-memory float32 arrays. Wall = the whole process.
Peak memory = the RSS high-water mark of each run's own process (os.wait4's ru_maxrss): ours counts
the whole command (reading the CSV into an MLDataTable, training, writing the model); a peer's
counts Python, the library, the train and test arrays loaded from .npy, fitting and predicting.
CPU seconds (in --json only, and the last table column): ours = the whole command's user + system time
(reading, training, the final metrics, writing the model); a peer's = its fit() call's process time. On a
machine shared with other work these move less than wall times, but a peer's OpenMP threads count
their spinning while they wait for each other; with --threads 1 the two are comparable.
Accuracy/RMSE: on the test rows; ours from `opencoreml tabular evaluate --json` on the written model.
Ratios: "ours/peer 1" is our fit time over XGBoost's (LightGBM's when XGBoost is not a peer); "(read+fit)/
XGBoost" counts our CSV read too (issue 43's goal: the command's reading and training against XGBoost's
fit on arrays already in memory).
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLED = {"breast_cancer": "classification", "wine": "classification", "digits": "classification",
           "iris": "classification", "diabetes": "regression"}
SYNTHETIC = {"synthetic_classification": "classification", "synthetic_regression": "regression"}


# ---------------------------------------------------------------- data

def informative_counts(features):
    """make_classification's informative and redundant feature counts: 20 and 10, fewer for narrow sets."""
    if features >= 30:
        return 20, 10
    return max(1, features * 2 // 5), features // 5


def make_data(name, rows, features=50):
    import numpy as np
    from sklearn.model_selection import train_test_split
    if name in BUNDLED:
        import sklearn.datasets as datasets
        x, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        stratify = y if BUNDLED[name] == "classification" else None
        x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2, random_state=0, stratify=stratify)
    elif name == "synthetic_classification":
        from sklearn.datasets import make_classification
        informative, redundant = informative_counts(features)
        x, y = make_classification(n_samples=rows, n_features=features, n_informative=informative, n_redundant=redundant,
                                   random_state=0)
        cut = rows * 4 // 5
        x_train, x_test, y_train, y_test = x[:cut], x[cut:], y[:cut], y[cut:]
    else:
        from sklearn.datasets import make_regression
        x, y = make_regression(n_samples=rows, n_features=features, n_informative=min(20, features), noise=10.0,
                               random_state=0)
        cut = rows * 4 // 5
        x_train, x_test, y_train, y_test = x[:cut], x[cut:], y[:cut], y[cut:]
    x_train, x_test = x_train.astype(np.float32), x_test.astype(np.float32)
    if BUNDLED.get(name, SYNTHETIC.get(name)) == "classification":
        y_train, y_test = y_train.astype(np.int64), y_test.astype(np.int64)
    else:
        y_train, y_test = y_train.astype(np.float32), y_test.astype(np.float32)
    return x_train, x_test, y_train, y_test


def write_csv(path, x, y, task):
    """Header f0…fN,target; features with 9 significant digits (float32 round-trips); class targets as integers."""
    import numpy as np
    header = ",".join([f"f{i}" for i in range(x.shape[1])] + ["target"])
    target_format = "%d" if task == "classification" else "%.9g"
    temporary = path + ".partial"
    with open(temporary, "w") as file:
        file.write(header + "\n")
        chunk = 50_000
        for start in range(0, len(x), chunk):
            block = np.column_stack([x[start:start + chunk].astype(np.float64), y[start:start + chunk]])
            np.savetxt(file, block, fmt=["%.9g"] * x.shape[1] + [target_format], delimiter=",")
    os.replace(temporary, path)


def prepare(name, rows, workdir, features=50):
    """The data set's folder with train/test .csv and .npy files (made once, in a child process: a
    child's ru_maxrss starts at its parent's RSS when it was spawned, so this process stays small)."""
    folder = os.path.join(workdir, name if name in BUNDLED else f"{name}_{rows}" + ("" if features == 50 else f"x{features}"))
    if not os.path.exists(os.path.join(folder, "done")):
        subprocess.run([sys.executable, os.path.abspath(__file__), "--prepare", name, "--rows", str(rows), "--features",
                        str(features), "--workdir", workdir], check=True)
    return folder


def prepare_main(name, rows, workdir, features):
    import numpy as np
    folder = os.path.join(workdir, name if name in BUNDLED else f"{name}_{rows}" + ("" if features == 50 else f"x{features}"))
    done = os.path.join(folder, "done")
    os.makedirs(folder, exist_ok=True)
    task = BUNDLED.get(name, SYNTHETIC.get(name))
    x_train, x_test, y_train, y_test = make_data(name, rows, features)
    for part, x, y in (("train", x_train, y_train), ("test", x_test, y_test)):
        np.save(os.path.join(folder, f"x_{part}.npy"), x)
        np.save(os.path.join(folder, f"y_{part}.npy"), y)
        write_csv(os.path.join(folder, f"{part}.csv"), x, y, task)
    open(done, "w").close()
    return folder


# ---------------------------------------------------------------- one measured process

def run_measured(command):
    """Runs `command` (an absolute path first); its stdout, wall seconds, peak RSS in MB and CPU
    seconds (user + system): the child's own rusage from os.wait4 (subprocess would reap the child
    itself and lose it)."""
    start = time.perf_counter()
    out_path = f"/tmp/bench-tabular-{os.getpid()}.out"
    err_path = f"/tmp/bench-tabular-{os.getpid()}.err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        pid = os.posix_spawn(command[0], command, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
        _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    output, errors = open(out_path).read(), open(err_path).read()
    os.remove(out_path)
    os.remove(err_path)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({code}):\n{errors[-3000:]}")
    return output, wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def ours(args, folder, task, algorithm):
    model = os.path.join(folder, f"ours-{algorithm}.mlmodel")
    log = os.path.join(folder, f"ours-{algorithm}.jsonl")
    command = [args.binary, "tabular", "train", os.path.join(folder, "train.csv"), "--target", "target",
               "--task", task, "--algorithm", algorithm, "--validation", "none", "--max-depth", str(args.depth),
               "--min-child-weight", "0.1", "--threads", str(args.threads), "--output", model, "--log", log]
    if algorithm != "decision-tree":
        command += ["--max-iterations", str(args.iterations)]
    if algorithm == "boosted-tree":
        command += ["--step-size", "0.3"]
    _, wall, peak, cpu = run_measured(command)
    summary = [json.loads(line) for line in open(log) if '"fitSeconds"' in line][-1]
    evaluated = subprocess.run([args.binary, "tabular", "evaluate", model, os.path.join(folder, "test.csv"),
                                "--target", "target", "--json"], check=True, capture_output=True, text=True)
    metrics = json.loads(evaluated.stdout)
    score = metrics["accuracy"] if task == "classification" else metrics["rootMeanSquaredError"]
    return {"score": score, "fit": summary["fitSeconds"], "load": summary["loadSeconds"], "wall": wall, "peak_mb": peak, "cpu": cpu,
            "peak_mb_after_read": summary.get("peakMBAfterRead"), "resident_mb_after_read": summary.get("residentMBAfterRead")}


def peer(args, folder, task, name):
    command = [sys.executable, os.path.abspath(__file__), "--peer", name, "--folder", folder, "--task", task,
               "--iterations", str(args.iterations), "--depth", str(args.depth), "--threads", str(args.threads)]
    out, wall, peak, _ = run_measured(command)
    result = json.loads(out.strip().splitlines()[-1])
    result.update({"wall": wall, "peak_mb": peak})
    return result


def peer_main(args):
    """In the peer's own process: load the arrays, fit, score; print one JSON line."""
    import numpy as np
    folder = args.folder
    x_train, y_train = np.load(os.path.join(folder, "x_train.npy")), np.load(os.path.join(folder, "y_train.npy"))
    x_test, y_test = np.load(os.path.join(folder, "x_test.npy")), np.load(os.path.join(folder, "y_test.npy"))
    classify = args.task == "classification"
    n, depth, threads = args.iterations, args.depth, args.threads
    if args.peer == "xgboost":
        import xgboost
        kind = xgboost.XGBClassifier if classify else xgboost.XGBRegressor
        model = kind(tree_method="hist", n_estimators=n, max_depth=depth, learning_rate=0.3, max_bin=256, reg_lambda=1.0,
                     min_child_weight=0.1, n_jobs=threads, random_state=0)
    elif args.peer == "lightgbm":
        import lightgbm
        kind = lightgbm.LGBMClassifier if classify else lightgbm.LGBMRegressor
        model = kind(n_estimators=n, max_depth=depth, num_leaves=2 ** depth, learning_rate=0.3, max_bin=255, reg_lambda=1.0,
                     min_child_weight=0.1, min_child_samples=1, n_jobs=threads, random_state=0, verbose=-1)
    elif args.peer == "xgboost-rf":
        import xgboost
        kind = xgboost.XGBRFClassifier if classify else xgboost.XGBRFRegressor
        model = kind(tree_method="hist", n_estimators=n, max_depth=depth, subsample=0.8, colsample_bynode=0.8, max_bin=256,
                     n_jobs=threads, random_state=0)
    elif args.peer == "sklearn-rf":
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
        kind = RandomForestClassifier if classify else RandomForestRegressor
        model = kind(n_estimators=n, max_depth=depth, n_jobs=threads, random_state=0)
    elif args.peer == "sklearn-tree":
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
        kind = DecisionTreeClassifier if classify else DecisionTreeRegressor
        model = kind(max_depth=depth, random_state=0)
    else:
        raise SystemExit(f"unknown peer {args.peer}")
    start, start_cpu = time.perf_counter(), time.process_time()
    model.fit(x_train, y_train)
    fit, fit_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    predicted = model.predict(x_test)
    score = float(np.mean(predicted == y_test)) if classify else float(np.sqrt(np.mean((predicted - y_test) ** 2)))
    print(json.dumps({"score": score, "fit": fit, "fit_cpu": fit_cpu}))


# ---------------------------------------------------------------- table

def installed(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


PEERS = {"boosted-tree": ["xgboost", "lightgbm"], "random-forest": ["sklearn-rf", "xgboost-rf"], "decision-tree": ["sklearn-tree"]}
PEER_NAMES = {"xgboost": "XGBoost", "lightgbm": "LightGBM", "sklearn-rf": "sklearn RF", "xgboost-rf": "XGBRF", "sklearn-tree": "sklearn tree"}


def score_text(task, value):
    return f"{value * 100:.2f} %" if task == "classification" else f"{value:.4g}"


def table(rows):
    lines = ["| data set (train/test rows) | algorithm | metric | ours | peer 1 | peer 2 | fit s: ours | peer 1 | peer 2 | ours/peer 1 "
             "| peak MB: ours | peer 1 | peer 2 | ours: CSV read s, wall s | (read+fit)/XGBoost | CPU s: ours (whole command) / XGBoost fit |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        task, o, peers = row["task"], row["ours"], row["peers"]
        names = list(peers)
        cells = [f"{row['dataset']} ({row['train_rows']:,}/{row['test_rows']:,})", row["algorithm"],
                 "accuracy" if task == "classification" else "RMSE", score_text(task, o["score"])]
        cells += [f"{score_text(task, peers[p]['score'])} ({PEER_NAMES[p]})" for p in names] + [""] * (2 - len(names))
        cells += [f"{o['fit']:.3f}"] + [f"{peers[p]['fit']:.3f}" for p in names] + [""] * (2 - len(names))
        cells += [f"{o['fit'] / peers[names[0]]['fit']:.2f}×"]
        after_read = o.get("peak_mb_after_read")
        cells += [f"{o['peak_mb']:.0f}" + (f" ({after_read:.0f} after reading)" if after_read else "")]
        cells += [f"{peers[p]['peak_mb']:.0f}" for p in names] + [""] * (2 - len(names))
        cells += [f"{o['load']:.2f}, {o['wall']:.2f}"]
        cells += [f"**{(o['load'] + o['fit']) / peers['xgboost']['fit']:.2f}×**" if "xgboost" in peers else ""]
        cells += [f"{o['cpu']:.2f} / {peers['xgboost']['fit_cpu']:.2f}" if "xgboost" in peers else ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of each synthetic set (the first 80 %% train)")
    parser.add_argument("--features", type=int, default=50, help="features of each synthetic set")
    parser.add_argument("--repeat", type=int, default=1, help="run each measurement this many times (a table per run)")
    parser.add_argument("--only", default=",".join(list(BUNDLED) + list(SYNTHETIC)), help="comma-separated data sets")
    parser.add_argument("--algorithms", default="boosted,forest,tree",
                        help="boosted (all sets), forest and tree (bundled sets only)")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/opencoreml"))
    parser.add_argument("--workdir", default="/tmp/bench-tabular")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--peer", help=argparse.SUPPRESS)
    parser.add_argument("--prepare", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--task", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.binary = os.path.abspath(args.binary)
    if args.peer:
        return peer_main(args)
    if args.prepare:
        return prepare_main(args.prepare, args.rows, args.workdir, args.features)

    names = [name.strip() for name in args.only.split(",") if name.strip()]
    for name in names:
        if name not in BUNDLED and name not in SYNTHETIC:
            raise SystemExit(f"unknown data set {name}; known: {', '.join(list(BUNDLED) + list(SYNTHETIC))}")
    algorithms = {"boosted": "boosted-tree", "forest": "random-forest", "tree": "decision-tree"}
    chosen = [algorithms[a.strip()] for a in args.algorithms.split(",") if a.strip()]
    os.makedirs(args.workdir, exist_ok=True)
    peer_modules = {"xgboost": "xgboost", "xgboost-rf": "xgboost", "lightgbm": "lightgbm", "sklearn-rf": "sklearn",
                    "sklearn-tree": "sklearn"}
    missing = sorted({p for peers in PEERS.values() for p in peers if not installed(peer_modules[p])})
    if missing:
        print(f"not installed, skipped: {', '.join(missing)}", file=sys.stderr)
    runs = []
    for run in range(max(1, args.repeat)):
        load_before = os.getloadavg()
        rows = []
        for name in names:
            task = BUNDLED.get(name, SYNTHETIC.get(name))
            folder = prepare(name, args.rows, args.workdir, args.features)
            import numpy as np
            train_rows = len(np.load(os.path.join(folder, "y_train.npy"), mmap_mode="r"))
            test_rows = len(np.load(os.path.join(folder, "y_test.npy"), mmap_mode="r"))
            for algorithm in chosen:
                if algorithm != "boosted-tree" and name in SYNTHETIC:
                    continue
                print(f"{name}: {algorithm} …", file=sys.stderr, flush=True)
                row = {"dataset": name, "task": task, "algorithm": algorithm, "train_rows": train_rows, "test_rows": test_rows,
                       "ours": ours(args, folder, task, algorithm), "peers": {}}
                for peer_name in PEERS[algorithm]:
                    if peer_name not in missing:
                        row["peers"][peer_name] = peer(args, folder, task, peer_name)
                print(json.dumps(row), file=sys.stderr, flush=True)
                rows.append(row)
        load_after = os.getloadavg()
        if run > 0:
            print()
        print(table(rows))
        print(f"\nload average (1, 5, 15 min) before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
              f"after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}; {os.cpu_count()} cores; "
              f"{args.threads} threads each; {args.iterations} rounds, depth {args.depth}", flush=True)
        runs.append({"rows": rows, "load_before": load_before, "load_after": load_after})
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"runs": runs, "rows": runs[-1]["rows"], "load_before": runs[0]["load_before"],
                       "load_after": runs[-1]["load_after"], "threads": args.threads, "iterations": args.iterations,
                       "depth": args.depth, "features": args.features}, file, indent=1)

if __name__ == "__main__":
    main()
