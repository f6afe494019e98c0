#!/usr/bin/env python3
"""Parity fixture for OpenCoreML's multinomial logistic regression (scikit-learn as the reference).

Makes a small deterministic data set (5 overlapping Gaussian classes in 6 dimensions, 300 training
rows and 100 test rows, values rounded to float32 so both sides see the same numbers) and fits
scikit-learn's LogisticRegression on it, converged tightly, in these cases:

  l2             solver="lbfgs", C=0.5                      (penalty (1/(2C))·||W||^2 on the summed loss)
  l2_standardized StandardScaler then solver="lbfgs", C=0.5  (coefficients mapped back to raw features)
  none           solver="lbfgs", C=inf                      (no penalty; the classes overlap, so a minimum exists)
  l1             solver="saga", l1_ratio=1, C=0.05          (penalty (1/C)·||W||_1 on the summed loss)

For each case it records the coefficients (K x D), intercepts (K), the objective in OpenCoreML's
convention -- mean cross-entropy + (lambda/2)||W||^2 or lambda*||W||_1 with lambda = 1/(C*N),
computed here in float64 numpy -- and the train and test accuracy. scikit-learn's multinomial
intercepts are only defined up to a common shift; all solvers start from zeros, where the gradient
keeps them summing to zero, and the script checks that.

It checks every solution independently of the solver with the optimality conditions in float64
numpy (largest gradient component below 1e-6 for L2/none; for L1: |dL/dw| <= lambda at zeros, dL/dw = -lambda*sign(w)
elsewhere), and for the L1 case that the zero pattern is robust -- every zero has |dL/dw| at most
0.9*lambda and every nonzero is at least 1e-3 in size -- so a float32 solver must find the same zeros.

Writes logreg/logreg.json. Two runs give identical files.

  /work/tools/venv/bin/pip install scikit-learn
  /work/tools/venv/bin/python Tests/Fixtures/make_logreg.py
"""
import json
import os
import warnings

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "logreg", "logreg.json")

N_TRAIN, N_TEST, D, K = 300, 100, 6, 5


def make_data():
    rng = np.random.RandomState(20240601)
    centers = rng.normal(0, 1.2, (K, D))
    scales = np.array([1.0, 2.0, 0.5, 3.0, 1.0, 0.2])  # uneven feature scales for standardization
    offsets = np.array([0.0, 1.0, -2.0, 5.0, 0.0, 0.3])

    def draw(n):
        y = np.arange(n) % K
        rng.shuffle(y)
        x = (centers[y] + rng.normal(0, 1.0, (n, D))) * scales + offsets
        return x.astype(np.float32).astype(np.float64), y

    x_train, y_train = draw(N_TRAIN)
    x_test, y_test = draw(N_TEST)
    return x_train, y_train, x_test, y_test


def softmax_loss_grad(W, b, X, y):
    """Mean cross-entropy and its gradients (float64)."""
    z = X @ W.T + b
    z -= z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    n = X.shape[0]
    loss = -logp[np.arange(n), y].mean()
    g = np.exp(logp)
    g[np.arange(n), y] -= 1
    g /= n
    return loss, g.T @ X, g.sum(axis=0)


def fit_case(name, x, y, C, solver, l1):
    kwargs = dict(C=C, solver=solver, tol=1e-12, max_iter=200000)
    if l1:
        kwargs.update(l1_ratio=1.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ConvergenceWarning must fail the script
        warnings.filterwarnings("ignore", category=FutureWarning)
        model = LogisticRegression(**kwargs).fit(x, y)
    return model.coef_.astype(np.float64), model.intercept_.astype(np.float64), int(model.n_iter_[0])


def check_optimality(name, W, b, X, y, lam, l1):
    loss, gW, gb = softmax_loss_grad(W, b, X, y)
    assert abs(b.sum()) < 1e-8 * max(1, np.abs(b).max()), f"{name}: intercepts do not sum to zero"
    assert np.abs(gb).max() < 1e-6, f"{name}: intercept gradient {np.abs(gb).max()}"
    if not l1:
        worst = np.abs(gW + lam * W).max()
        assert worst < 1e-6, f"{name}: gradient {worst}"
        return loss + 0.5 * lam * (W ** 2).sum(), None
    zero = W == 0
    assert zero.any() and not zero.all(), f"{name}: want some zeros and some nonzeros"
    kkt_zero = np.abs(gW[zero]).max() / lam
    kkt_nonzero = np.abs(gW[~zero] + lam * np.sign(W[~zero])).max()
    assert kkt_zero <= 0.9, f"{name}: a zero coefficient is near the threshold ({kkt_zero:.3f} of lambda)"
    assert kkt_nonzero < 1e-6, f"{name}: nonzero coefficients not stationary ({kkt_nonzero})"
    assert np.abs(W[~zero]).min() >= 1e-3, f"{name}: a nonzero coefficient is tiny ({np.abs(W[~zero]).min()})"
    return loss + lam * np.abs(W).sum(), float(kkt_zero)


def main():
    x_train, y_train, x_test, y_test = make_data()
    cases = []
    for name, C, solver, l1, standardize in [
        ("l2", 0.5, "lbfgs", False, False),
        ("l2_standardized", 0.5, "lbfgs", False, True),
        ("none", np.inf, "lbfgs", False, False),
        ("l1", 0.05, "saga", True, False),
    ]:
        lam = 0.0 if np.isinf(C) else 1.0 / (C * N_TRAIN)
        if standardize:
            scaler = StandardScaler().fit(x_train)
            xs = scaler.transform(x_train)
            W, b, iters = fit_case(name, xs, y_train, C, solver, l1)
            objective, _ = check_optimality(name, W, b, xs, y_train, lam, l1)
            # Back to raw features: z = W (x - mu)/sigma + b.
            W_raw = W / scaler.scale_
            b_raw = b - W_raw @ scaler.mean_
        else:
            W, b, iters = fit_case(name, x_train, y_train, C, solver, l1)
            objective, margin = check_optimality(name, W, b, x_train, y_train, lam, l1)
            W_raw, b_raw = W, b

        def accuracy(x, y):
            return float(((x @ W_raw.T + b_raw).argmax(axis=1) == y).mean())

        case = {
            "name": name,
            "penalty": "l1" if l1 else ("none" if np.isinf(C) else "l2"),
            "C": None if np.isinf(C) else C,
            "lambda": lam,
            "standardize": standardize,
            "solver": solver,
            "sklearnIterations": iters,
            "objective": float(objective),
            "coefficients": [[float(v) for v in row] for row in W_raw],
            "intercepts": [float(v) for v in b_raw],
            "trainAccuracy": accuracy(x_train, y_train),
            "testAccuracy": accuracy(x_test, y_test),
        }
        if l1:
            case["zeroCount"] = int((W == 0).sum())
            case["largestZeroGradientOverLambda"] = margin
        cases.append(case)
        print(f"{name:16s} iters {iters:6d}  objective {objective:.10f}  train {case['trainAccuracy']:.4f}  test {case['testAccuracy']:.4f}"
              + (f"  zeros {case['zeroCount']}/{W.size} (max |g|/lambda at zeros {margin:.3f})" if l1 else ""))

    fixture = {
        "generator": f"Tests/Fixtures/make_logreg.py, scikit-learn {sklearn.__version__}, numpy {np.__version__}",
        "featureCount": D,
        "classCount": K,
        "train": {"features": [[float(v) for v in row] for row in x_train], "labels": [int(v) for v in y_train]},
        "test": {"features": [[float(v) for v in row] for row in x_test], "labels": [int(v) for v in y_test]},
        "cases": cases,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.relpath(OUT, HERE)}")


if __name__ == "__main__":
    main()
