"""Benchmark: numeric's `gd` and `lm` against a plain PyTorch-autograd version of the same `gd`.

Run by hand (needs torch; `pip install torch==2.13.0` takes the CPU wheel on this machine):

    python3 bench/bench_torch.py [--sizes 10000 100000] [--models mha gated1 gated2] [--epochs 1000]

For each (model, n), K = 3, the shipped truth, seed 0, the same data and the same initial θ:

- torch-gd: the paper's protocol written the obvious way in PyTorch (float64, autograd for the
  gradient, the same projected backtracking line search from η = 0.05 and the same box);
- numpy-gd: `numeric`'s gd (analytic vector-Jacobian products);
- lm: `numeric`'s lm.

Both gd versions run the same number of epochs from the same start, and the script prints the
largest difference between their final iterates, so that the time ratio compares equal work.
Everything single-threaded (torch.set_num_threads(1), BLAS threads 1). Times exclude interpreter
start-up, imports and data generation.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

from numeric import HMoEParams, Model, load_truth, sample  # noqa: E402
from numeric.fitting.attention_fit import Box, initial_params  # noqa: E402
from numeric.fitting.optimizers import _gd, _lm  # noqa: E402

torch.set_num_threads(1)


def torch_model(kind, theta, X, H, N, K, d):
    """f(X) for the flat θ (numeric.model.attention_params layout), in torch."""
    p = d * (d + 1) // 2
    omega = theta[: H * K].reshape(H, K)
    m = theta[H * K : H * K + H * (N - 1) * p].reshape(H, N - 1, p)
    a = theta[H * K + H * (N - 1) * p :].reshape(H, N, K, d)
    j, l = np.triu_indices(d)
    w = torch.tensor(np.where(j == l, 1.0, 2.0), dtype=torch.float64)
    features = X[:, j] * X[:, l] * w  # (n, p)
    q = torch.einsum("np,hip->nhi", features, m)
    q = torch.cat([q, torch.zeros(X.shape[0], H, 1, dtype=torch.float64)], dim=2)
    sigma = torch.softmax(q, dim=2)
    s = torch.einsum("nd,hikd->nhik", X, a)
    if kind == "gated2":
        F = torch.einsum("nhi,nhik->nhk", sigma, s)
        return torch.einsum("hk,nhk->n", omega, torch.sigmoid(F))
    expert = s if kind == "mha" else torch.sigmoid(s)
    return torch.einsum("hk,nhi,nhik->n", omega, sigma, expert)


def torch_gd(kind, X, Y, theta0, shape, box, epochs, step=0.05):
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    lo, hi = torch.tensor(box.lo), torch.tensor(box.hi)
    theta = torch.tensor(theta0, requires_grad=True)

    def loss_of(t):
        return torch.mean((torch_model(kind, t, X, *shape) - Y) ** 2)

    loss = loss_of(theta)
    for _ in range(epochs):
        (grad,) = torch.autograd.grad(loss, theta)
        with torch.no_grad():
            t = step
            for _ in range(30):
                trial = torch.clamp(theta - t * grad, lo, hi)
                move = trial - theta
                trial_loss = loss_of(trial)
                if trial_loss <= loss + grad @ move + (move @ move) / (2 * t):
                    break
                t /= 2
        theta = trial.detach().requires_grad_(True)
        loss = loss_of(theta)
    return theta.detach().numpy(), float(loss.detach())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--models", nargs="+", default=["mha", "gated1", "gated2"])
    parser.add_argument("--epochs", type=int, default=1000)
    parser.add_argument("--K", type=int, default=3)
    args = parser.parse_args()
    truth = load_truth()
    P = truth.params
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"torch {torch.__version__}, 1 thread"
    )
    print(
        f"{'model':<7} {'n':>7} | {'torch-gd s':>10} {'mse':>9} | {'numpy-gd s':>10} {'mse':>9} {'ratio':>6} "
        f"{'max|dθ|':>8} | {'lm s':>6} {'mse':>9} {'vs torch':>8}"
    )
    for n in args.sizes:
        for kind in args.models:
            model = Model(kind, truth.phi)
            X, Y = sample(truth, model, n, 0)
            shape = (P.H, P.N, args.K, P.dim)
            box = Box.around(P, P.H, P.N, args.K)
            theta0 = initial_params(P, args.K, n, 0, box)

            start = time.perf_counter()
            theta_t, mse_t = torch_gd(kind, X, Y, theta0, shape, box, args.epochs)
            t_torch = time.perf_counter() - start

            start = time.perf_counter()
            theta_n, _, _ = _gd(model, X, Y, theta0, shape, box, max_epochs=args.epochs, rtol=-1.0)
            t_numpy = time.perf_counter() - start
            mse_n = float(np.mean((model.value(HMoEParams.from_vector(theta_n, *shape), X) - Y) ** 2))

            start = time.perf_counter()
            theta_l, _, _ = _lm(model, X, Y, theta0, shape, box)
            t_lm = time.perf_counter() - start
            mse_l = float(np.mean((model.value(HMoEParams.from_vector(theta_l, *shape), X) - Y) ** 2))
            print(
                f"{kind:<7} {n:>7} | {t_torch:>10.2f} {mse_t:>9.6f} | {t_numpy:>10.2f} {mse_n:>9.6f} "
                f"{t_torch / t_numpy:>6.1f} "
                f"{np.abs(theta_t - theta_n).max():>8.1e} | {t_lm:>6.2f} {mse_l:>9.6f} {t_torch / t_lm:>7.1f}x",
                flush=True,
            )


if __name__ == "__main__":
    main()
