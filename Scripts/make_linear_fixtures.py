#!/usr/bin/env python3
"""Parity fixtures for OpenCoreML's linear models (scikit-learn 1.5 as the reference).

Writes Tests/Fixtures/linear/:

solver.json -- `LinearRegression` (_OpenCoreMLLinear) against scikit-learn on 80 rows x 5 numeric
  features of very different scales (y = X.beta + 3 + noise, two true coefficients zero), each case
  converged tightly (tol 1e-12). OpenCoreML minimizes
      (1/2N)||y - Xw - b||^2 + l1*||w||_1 + (l2/2)*||w||^2
  and the cases record scikit-learn's parameters next to the l1/l2 they map to:
      ridge        Ridge(alpha=a)                    minimizes ||r||^2 + a||w||^2      -> l2 = a/N
      lasso        Lasso(alpha=a)                    minimizes (1/2N)||r||^2 + a||w||_1 -> l1 = a
      elasticnet   ElasticNet(alpha=a, l1_ratio=p)   adds a*p||w||_1 + a(1-p)/2||w||^2  -> l1 = a*p, l2 = a(1-p)
  each also "_standardized": StandardScaler then the model, coefficients divided by the scales and
  the intercept shifted, so they are in the data's units. The objective (in OpenCoreML's
  convention, float64) at scikit-learn's solution is recorded, and the script checks each solution's
  optimality conditions itself (gradient below 1e-8; for L1 terms the subgradient conditions) and
  that the zero pattern is robust (every zero's |gradient| at most 0.8*l1, every nonzero at least
  0.5 in standardized units), so another solver must find the same zeros.

table.csv + table.json -- the MLDataTable trainers against scikit-learn on a 150-row table with a
  numeric column with missing values ("size"), an integer column ("rooms"), a string column with
  missing values ("city", 3 categories) and three targets: "price" (regression), "sold" (yes/no)
  and "kind" (3 string classes). The encoding is OpenCoreML's for linear models: a missing number
  becomes its column's training mean, a string column becomes one indicator per category seen in
  training (a missing string: all indicators 0). Without feature rescaling:
      price  Ridge(alpha = l2Penalty*N)                                 -> predictions on every row
      sold   LogisticRegression(C = 1/(l2Penalty*N)), binary           -> P(yes) on every row
      kind   LogisticRegression(C = 1/(l2Penalty*N)), multinomial      -> the 3 probabilities per row
  and with feature rescaling (StandardScaler after the encoding) the same three again.

  /work/main/.build/suites-venv/bin/python Scripts/make_linear_fixtures.py
"""
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import ElasticNet, Lasso, LogisticRegression, Ridge
from sklearn.preprocessing import StandardScaler

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "linear")


def objective(X, y, w, b, l1, l2):
    r = X @ w + b - y
    return 0.5 * np.mean(r * r) + l1 * np.abs(w).sum() + 0.5 * l2 * (w @ w)


def check_optimal(X, y, w, b, l1, l2, name):
    n = len(y)
    r = X @ w + b - y
    g = X.T @ r / n + l2 * w
    assert abs(r.mean()) < 1e-8, (name, r.mean())
    for j in range(len(w)):
        if w[j] != 0:
            assert abs(w[j]) * X[:, j].std() >= 0.5 or l1 == 0, (name, j, w[j])  # robust nonzero
            assert abs(g[j] + l1 * np.sign(w[j])) < 1e-8, (name, j, g[j])
        else:
            assert abs(g[j]) <= 0.8 * l1, (name, j, g[j])  # robust zero


def solver_cases():
    rng = np.random.default_rng(30)
    n, d = 80, 5
    scales = np.array([1.0, 10.0, 0.1, 100.0, 1.0])
    X = rng.normal(size=(n, d)) * scales + np.array([0.5, -20.0, 0.3, 400.0, 0.0])
    beta = np.array([2.0, 0.3, 0.0, -0.01, 0.0])
    y = X @ beta + 3.0 + rng.normal(scale=0.5, size=n)
    X = np.round(X, 6)
    y = np.round(y, 6)
    cases = []
    specs = [
        ("ridge", lambda: Ridge(alpha=5.0, tol=1e-12, solver="cholesky"), 0.0, 5.0 / n),
        ("lasso", lambda: Lasso(alpha=0.2, tol=1e-12, max_iter=1_000_000), 0.2, 0.0),
        ("elasticnet", lambda: ElasticNet(alpha=0.4, l1_ratio=0.5, tol=1e-12, max_iter=1_000_000), 0.2, 0.2),
    ]
    for name, make, l1, l2 in specs:
        for standardize in (False, True):
            model = make()
            if standardize:
                scaler = StandardScaler().fit(X)
                Z = scaler.transform(X)
                model.fit(Z, y)
                check_optimal(Z, y, model.coef_, model.intercept_, l1, l2, name)
                value = objective(Z, y, model.coef_, model.intercept_, l1, l2)
                coef = model.coef_ / scaler.scale_
                intercept = model.intercept_ - coef @ scaler.mean_
            else:
                model.fit(X, y)
                check_optimal(X, y, model.coef_, model.intercept_, l1, l2, name)
                value = objective(X, y, model.coef_, model.intercept_, l1, l2)
                coef, intercept = model.coef_, model.intercept_
            params = {k: v for k, v in model.get_params().items() if k in ("alpha", "l1_ratio")}
            cases.append({
                "name": name + ("_standardized" if standardize else ""),
                "scikitLearn": type(model).__name__ + repr(params),
                "l1": l1, "l2": l2, "standardize": standardize,
                "objective": float(value),
                "coefficients": [float(c) for c in coef],
                "intercept": float(intercept),
                "zeroCount": int(np.sum(model.coef_ == 0)),
            })
    return {"sklearn": sklearn.__version__, "featureCount": d, "features": X.tolist(), "targets": y.tolist(), "cases": cases}


def table_cases():
    rng = np.random.default_rng(31)
    n = 150
    size = np.round(rng.normal(80, 25, size=n), 2)
    rooms = rng.integers(1, 6, size=n)
    cities = np.array(["Lyon", "Paris", "Nice"])
    city = cities[rng.integers(0, 3, size=n)]
    effect = {"Lyon": 20.0, "Paris": 90.0, "Nice": 45.0}
    price = 2.0 * size + 15.0 * rooms + np.array([effect[c] for c in city]) + rng.normal(0, 10, size=n)
    score = 0.03 * (size - 80) + 0.4 * (rooms - 3) + np.array([{"Lyon": -0.5, "Paris": 0.8, "Nice": 0.0}[c] for c in city])
    sold = np.where(score + rng.logistic(size=n) > 0, "yes", "no")
    kinds = np.array(["flat", "house", "studio"])
    kind_scores = np.stack([0.02 * (size - 80), 0.6 * (rooms - 3), -0.03 * (size - 80) - 0.3 * (rooms - 3)], axis=1)
    kind = kinds[np.argmax(kind_scores + rng.gumbel(size=(n, 3)), axis=1)]
    missing_size = rng.random(n) < 0.1
    missing_city = rng.random(n) < 0.08
    price = np.round(price, 3)

    # The CSV: an empty field is a missing value.
    lines = ["size,rooms,city,price,sold,kind"]
    for i in range(n):
        lines.append(",".join([
            "" if missing_size[i] else repr(float(size[i])), str(int(rooms[i])),
            "" if missing_city[i] else city[i], repr(float(price[i])), sold[i], kind[i]]))
    with open(os.path.join(OUT, "table.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")

    # OpenCoreML's encoding for linear models.
    mean_size = size[~missing_size].mean()
    imputed = np.where(missing_size, mean_size, size)
    categories = sorted(set(city[~missing_city]))
    onehot = np.stack([((city == c) & ~missing_city).astype(float) for c in categories], axis=1)
    X = np.column_stack([imputed, rooms.astype(float), onehot])
    l2 = 0.01
    out = {"rowCount": n, "l2Penalty": l2, "features": ["size", "rooms", "city"], "cases": []}
    for rescale in (False, True):
        Z = StandardScaler().fit_transform(X) if rescale else X
        ridge = Ridge(alpha=l2 * n, solver="cholesky").fit(Z, price)
        out["cases"].append({"target": "price", "featureRescaling": rescale, "predictions": ridge.predict(Z).tolist()})
        for target, labels in (("sold", sold), ("kind", kind)):
            clf = LogisticRegression(C=1 / (l2 * n), tol=1e-12, max_iter=100_000).fit(Z, labels)
            assert list(clf.classes_) == sorted(set(labels))
            out["cases"].append({"target": target, "featureRescaling": rescale, "classes": list(clf.classes_),
                                 "probabilities": clf.predict_proba(Z).tolist()})
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "solver.json"), "w") as f:
        json.dump(solver_cases(), f, indent=1)
    with open(os.path.join(OUT, "table.json"), "w") as f:
        json.dump(table_cases(), f, indent=1)


if __name__ == "__main__":
    main()
