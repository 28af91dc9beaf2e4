"""Held-out outputs (group ``unseen-47``): a forty-seventh batch, machine-learning training and evaluation logs as an
agent runs them on CPU: PyTorch loops with tqdm progress bars (carriage-return frames), per-epoch metric lines,
scikit-learn searches with their warnings floods, LightGBM and XGBoost boosting logs, on small synthetic numpy data
made in the scenario's folder (the training code really runs; only the data is made up).

Failing runs: a PyTorch refunds forecaster whose uncapped learning-rate warm-up makes the loss non-finite after a
dozen epochs of tqdm bars (its guard raises ``FloatingPointError``), a shell loop training three PyTorch models where
the invoice-lines model streams its shards and hits a ``mat1 and mat2 shapes cannot be multiplied`` ``RuntimeError``
hundreds of steps in, because one shard has a new column, a PyTorch ledger autoencoder run as an unprivileged user whose
checkpoint folder is read-only (``torch.save`` fails, the run goes on and exits 1 at the end), a hyper-parameter sweep
of 14 trials of a shipping-delay model where one trial's dropout is out of range (its traceback in the middle, a summary
at the end), ``GridSearchCV`` of a coupons-fraud logistic regression with hundreds of ``ConvergenceWarning`` and
``FutureWarning`` blocks until an elasticnet grid meets the lbfgs solver, a 400-round XGBoost tax model whose hold-out
set has one feature less, and a shell loop of per-region LightGBM models where one region's labels are not binary.
Clean runs whose text talks about errors and failures: a LightGBM ``failed_payments`` classifier with
``binary_error`` and early stopping among ``No further splits`` warnings, a PyTorch ``error_rate_regressor`` on a
``failed_orders`` data set reporting ``val_error`` and ``mean_absolute_error``, scikit-learn cross-validation of an
``exceptions_triage`` classifier whose classes are ``retry``, ``failed`` and ``error`` with a ``failed_ratio`` metric,
an XGBoost ``retry_delay`` regressor that stops early, and a sweep of ``MLPClassifier`` trials for an
``errors_router`` that all finish among ``ConvergenceWarning`` lines. Labels were written with each scenario, before the
engine saw the output. Needs torch 2.13.0 (the CPU wheel), scikit-learn, LightGBM, XGBoost (``xgboost-cpu``), tqdm and
numpy from PyPI, installed once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs`` (with
the machine's pip configuration, whose wheel folder holds the CPU build of torch), and ``setpriv`` (util-linux) to
run one scenario as ``nobody``.
"""

from __future__ import annotations

import re
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-47"

_ML_REQS = (
    "torch==2.13.0 numpy==2.4.6 scikit-learn==1.9.1 scipy==1.17.1 lightgbm==4.7.0 xgboost-cpu==3.2.0 tqdm==4.70.1"
    " joblib==1.6.0 threadpoolctl==3.8.0"
)
#: The environment the training code runs in, made once and kept between runs.
_VENV = VENVS / "u47-ml"


def _ml(root: Path) -> str:
    """The environment prefix that runs the training scripts with the pinned ML stack (made once)."""
    make_venv(_VENV, _ML_REQS, pip_options="--only-binary :all:", isolated=False)
    return (
        f"PATH={_VENV}/bin:$PATH HOME={root} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1"
        " OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1"
    )


_TQDM_TIME = re.compile(rb"\[\d\d:\d\d(?::\d\d)?<(?:\d\d:\d\d(?::\d\d)?|\?), +\d+\.\d+(?:([A-Za-z]+)/s|s/([A-Za-z]+))")


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, tqdm's clocks, rates and padding, fit times."""
    out = _TQDM_TIME.sub(lambda m: b"[00:00<00:00, 25.00" + (m.group(1) or m.group(2)) + b"/s", scrub(out, root))
    out = re.sub(rb"\] +(?=[\r\n\x1b])", b"]", out)  # tqdm pads a frame to the length of the one before it
    return substitute(
        out,
        (r"total time=\s*\d+\.\d+s", "total time=   0.1s"),
        (r"overhead of testing was \d+\.\d+ seconds", "overhead of testing was 0.000100 seconds"),
        (r"took \d+\.\d+s", "took 1.00s"),
        (r"in \d+\.\d+ ?s\b", "in 1.00s"),
        (r"^(Binning .*|Time spent .*): *\d+\.\d+ ?s$", r"\1: 0.010s"),
    )


_TQDM = """
from tqdm import tqdm
tqdm.monitor_interval = 0  # no monitor thread: a frame for every step, the same frames on every run
"""

# ---------------------------------------------------------------- PyTorch: non-finite loss

_REFUNDS = (
    '''
"""Refunds forecaster: predicts the refund amount of an order from 24 order features."""
import argparse

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
'''
    + _TQDM
    + """

def load_refunds(seed: int):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(1920, 24)).astype("float32")
    w = rng.normal(size=(24,)).astype("float32")
    y = (x @ w * 40.0 + 310.0 + rng.normal(scale=12.0, size=1920)).astype("float32")
    return torch.from_numpy(x), torch.from_numpy(y)


def train_epoch(model, loader, opt, sched, epoch, epochs):
    model.train()
    total = 0.0
    bar = tqdm(loader, desc=f"epoch {epoch:02d}/{epochs}", unit="batch", mininterval=0, miniters=1)
    for step, (xb, yb) in enumerate(bar, 1):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb).squeeze(-1), yb)
        if not torch.isfinite(loss):
            raise FloatingPointError(
                f"loss is {loss.item()} at epoch {epoch} step {step} (lr={sched.get_last_lr()[0]:.3g})"
            )
        loss.backward()
        opt.step()
        total += loss.item()
        bar.set_postfix(loss=f"{loss.item():.3f}", lr=f"{sched.get_last_lr()[0]:.2e}")
    sched.step()
    return total / len(loader)


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    pred = model(x).squeeze(-1)
    return nn.functional.mse_loss(pred, y).item(), (pred - y).abs().mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--warmup-factor", type=float, default=1.5)
    args = parser.parse_args()
    torch.manual_seed(7)
    torch.set_num_threads(1)
    x, y = load_refunds(7)
    train = TensorDataset(x[:1600], y[:1600])
    loader = DataLoader(train, batch_size=50, shuffle=True, generator=torch.Generator().manual_seed(7))
    model = nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    # warm-up: the learning rate grows by warmup_factor every epoch (the cap was dropped in the refactor)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: args.warmup_factor**e)
    print(f"refunds_forecaster: {len(train)} train rows, {len(x) - 1600} validation rows, {args.epochs} epochs")
    for epoch in range(1, args.epochs + 1):
        train_loss = train_epoch(model, loader, opt, sched, epoch, args.epochs)
        val_loss, val_mae = evaluate(model, x[1600:], y[1600:])
        print(f"epoch {epoch:02d} train_loss={train_loss:.4f} val_loss={val_loss:.4f} val_mae={val_mae:.3f}")
    torch.save(model.state_dict(), "refunds_forecaster.pt")


if __name__ == "__main__":
    main()
"""
)


@case(
    "u47_torch_nan_loss",
    "pytorch training (tqdm)",
    clean=False,
    group=GROUP,
    decisive=["FloatingPointError: loss is inf at epoch 31 step 3", 'train_refunds.py", line 29, in train_epoch'],
)
def _torch_nan_loss(root: Path) -> bytes:
    write(root, {"train_refunds.py": _REFUNDS})
    return _settle(sh(f"{_ml(root)} python train_refunds.py --epochs 40", root), root)


# ---------------------------------------------------------------- PyTorch: a shard with one column more

_MAKE_SHARDS = '''
"""Writes the feature shards of each model: 8 shards of 640 rows; one shard of invoice_lines has a new column."""
import sys

import numpy as np

MODELS = [("ledger_entries", 28, 4), ("invoice_lines", 36, 5), ("tax_codes", 20, 3)]
for m, (model, width, classes) in enumerate(MODELS):
    rng = np.random.default_rng(100 + m)
    proj = rng.normal(size=(width, classes))
    for shard in range(8):
        cols = width + 1 if (model == "invoice_lines" and shard == 5) else width  # "discount_code" added upstream
        x = rng.normal(size=(640, cols)).astype("float32")
        y = np.argmax(x[:, :width] @ proj + rng.normal(scale=0.8, size=(640, classes)), axis=1)
        np.savez(f"data/{model}/shard-{shard:05d}-of-00008.npz", x=x, y=y)
    print(f"wrote 8 shards for {model} ({width} features, {classes} classes)")
'''

_TRAIN_SHARDS = '''
"""Trains a line-item classifier from streamed .npz shards, logging every step."""
import argparse
import glob
import logging

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, IterableDataset

log = logging.getLogger("trainer")
WIDTH = {"ledger_entries": 28, "invoice_lines": 36, "tax_codes": 20}
CLASSES = {"ledger_entries": 4, "invoice_lines": 5, "tax_codes": 3}


class ShardStream(IterableDataset):
    def __init__(self, pattern):
        self.files = sorted(glob.glob(pattern))

    def __iter__(self):
        for path in self.files:
            data = np.load(path)
            log.info("opened %s (%d rows)", path, len(data["y"]))
            for i in range(len(data["y"])):
                yield torch.from_numpy(data["x"][i]), int(data["y"][i])


class LineItemClassifier(nn.Module):
    def __init__(self, width, classes):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(width, 64), nn.GELU(), nn.Dropout(0.1), nn.Linear(64, 32), nn.GELU())
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s [" + args.model + "] %(message)s")
    torch.manual_seed(11)
    torch.set_num_threads(1)
    model = LineItemClassifier(WIDTH[args.model], CLASSES[args.model])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    loader = DataLoader(ShardStream(f"data/{args.model}/shard-*.npz"), batch_size=32)
    log.info("model %s: %d parameters", type(model).__name__, sum(p.numel() for p in model.parameters()))
    step = 0
    for epoch in range(1, args.epochs + 1):
        correct = seen = 0
        for xb, yb in loader:
            step += 1
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (logits.argmax(1) == yb).sum().item()
            seen += len(yb)
            log.info("epoch=%d step=%d loss=%.4f acc=%.3f lr=%.1e", epoch, step, loss.item(), correct / seen, 3e-3)
        log.info("epoch %d done: train_acc=%.4f over %d rows", epoch, correct / seen, seen)
    torch.save(model.state_dict(), f"models/{args.model}.pt")
    log.info("saved models/%s.pt", args.model)


if __name__ == "__main__":
    main()
'''


@case(
    "u47_torch_shape_mismatch_loop",
    "pytorch training (shell loop)",
    clean=False,
    group=GROUP,
    decisive=[
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x37 and 36x64)",
        'train_items.py", line 35, in forward',
        "!! invoice_lines exited with status 1",
    ],
)
def _torch_shape_mismatch(root: Path) -> bytes:
    write(root, {"make_shards.py": _MAKE_SHARDS, "train_items.py": _TRAIN_SHARDS})
    for model in ("ledger_entries", "invoice_lines", "tax_codes"):
        (root / "data" / model).mkdir(parents=True)
    (root / "models").mkdir()
    cmd = (
        "python make_shards.py && for m in ledger_entries invoice_lines tax_codes; do"
        ' echo "== training $m"; python train_items.py --model $m --epochs 2 || echo "!! $m exited with status $?";'
        " done"
    )
    return _settle(sh(f"{_ml(root)} bash -c '{cmd}'", root), root)


# ---------------------------------------------------------------- PyTorch: a read-only checkpoint folder

_LEDGER_AE = (
    '''
"""Ledger anomaly autoencoder: learns to reconstruct daily ledger entry vectors; checkpoints every 10 epochs."""
import logging
import os
import sys

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
'''
    + _TQDM
    + """
logging.basicConfig(level=logging.INFO, format="%(levelname)s:%(name)s:%(message)s")
log = logging.getLogger("ledger_ae")
CKPT_DIR = "checkpoints/ledger_ae"


def save_checkpoint(model, opt, epoch, loss):
    path = os.path.join(CKPT_DIR, f"epoch_{epoch:03d}.pt")
    torch.save({"epoch": epoch, "model": model.state_dict(), "optim": opt.state_dict(), "loss": loss}, path)
    log.info("checkpoint written: %s", path)


def main():
    torch.manual_seed(3)
    torch.set_num_threads(1)
    rng = np.random.default_rng(3)
    basis = rng.normal(size=(6, 48))
    x = torch.tensor(rng.normal(size=(2560, 6)) @ basis + rng.normal(scale=0.1, size=(2560, 48)), dtype=torch.float32)
    loader = DataLoader(TensorDataset(x), batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(3))
    model = nn.Sequential(nn.Linear(48, 24), nn.Tanh(), nn.Linear(24, 6), nn.Tanh(), nn.Linear(6, 24), nn.Tanh(),
                          nn.Linear(24, 48))
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    epochs, saving, failures = 30, True, 0
    log.info("training ledger_ae on %d entries, checkpoints in %s every 10 epochs", len(x), CKPT_DIR)
    for epoch in tqdm(range(1, epochs + 1), desc="ledger_ae", ascii=True, mininterval=0, miniters=1):
        total = 0.0
        for (xb,) in tqdm(loader, desc=f"  epoch {epoch}", leave=False, ascii=True, mininterval=0, miniters=1):
            loss = nn.functional.mse_loss(model(xb), xb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
        recon = total / len(x)
        tqdm.write(f"epoch {epoch:02d}/{epochs} recon_loss={recon:.5f}")
        if saving and epoch % 10 == 0:
            try:
                save_checkpoint(model, opt, epoch, recon)
            except (OSError, RuntimeError):
                failures += 1
                log.exception("could not save checkpoint for epoch %d; checkpointing disabled for this run", epoch)
                saving = False
    if failures:
        log.error("training finished after %d epochs but %d checkpoint save(s) failed; no model was kept", epochs,
                  failures)
        sys.exit(1)


if __name__ == "__main__":
    main()
"""
)


@case(
    "u47_torch_checkpoint_readonly",
    "pytorch training (tqdm)",
    clean=False,
    group=GROUP,
    decisive=[
        "open file failed with strerror: Permission denied",
        "could not save checkpoint for epoch 10",
        "but 1 checkpoint save(s) failed; no model was kept",
    ],
)
def _torch_checkpoint_readonly(root: Path) -> bytes:
    write(root, {"train_ledger_ae.py": _LEDGER_AE})
    (root / "checkpoints" / "ledger_ae").mkdir(parents=True)
    (root / "checkpoints" / "ledger_ae").chmod(0o555)  # the shared volume is mounted read-only for the job user
    root.chmod(0o755)
    run = f"setpriv --reuid=65534 --regid=65534 --clear-groups {_VENV}/bin/python train_ledger_ae.py"
    return _settle(sh(f"{_ml(root)} {run}", root), root)


# ---------------------------------------------------------------- PyTorch: a sweep where one trial crashes

_SWEEP_JSON = """
[
  {"lr": 0.003, "hidden": 32, "dropout": 0.1, "weight_decay": 0.0},
  {"lr": 0.003, "hidden": 64, "dropout": 0.1, "weight_decay": 0.0001},
  {"lr": 0.001, "hidden": 32, "dropout": 0.2, "weight_decay": 0.0},
  {"lr": 0.001, "hidden": 64, "dropout": 0.2, "weight_decay": 0.0001},
  {"lr": 0.01, "hidden": 32, "dropout": 0.0, "weight_decay": 0.0},
  {"lr": 0.01, "hidden": 64, "dropout": 0.1, "weight_decay": 0.001},
  {"lr": 0.0005, "hidden": 128, "dropout": 0.1, "weight_decay": 0.0},
  {"lr": 0.003, "hidden": 128, "dropout": 0.3, "weight_decay": 0.0001},
  {"lr": 0.002, "hidden": 96, "dropout": 1.2, "weight_decay": 0.0001},
  {"lr": 0.002, "hidden": 48, "dropout": 0.05, "weight_decay": 0.0},
  {"lr": 0.005, "hidden": 48, "dropout": 0.15, "weight_decay": 0.001},
  {"lr": 0.005, "hidden": 96, "dropout": 0.25, "weight_decay": 0.0},
  {"lr": 0.0008, "hidden": 64, "dropout": 0.0, "weight_decay": 0.0001},
  {"lr": 0.004, "hidden": 32, "dropout": 0.2, "weight_decay": 0.0}
]
"""

_SWEEP = '''
"""Hyper-parameter sweep of the shipping-delay model: one trial per entry of sweep.json, 20 epochs each."""
import json
import sys
import traceback

import numpy as np
import torch
from torch import nn


def make_model(width, hidden, dropout):
    return nn.Sequential(
        nn.Linear(width, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, hidden // 2), nn.ReLU(),
        nn.Linear(hidden // 2, 1),
    )


def run_trial(number, cfg, data):
    xtr, ytr, xva, yva = data
    torch.manual_seed(1000 + number)
    model = make_model(xtr.shape[1], cfg["hidden"], cfg["dropout"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    best = float("inf")
    for epoch in range(1, 21):
        model.train()
        perm = torch.randperm(len(xtr), generator=torch.Generator().manual_seed(number * 100 + epoch))
        total = 0.0
        for i in range(0, len(xtr), 64):
            idx = perm[i : i + 64]
            loss = nn.functional.smooth_l1_loss(model(xtr[idx]).squeeze(-1), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            pred = model(xva).squeeze(-1)
            val_mae = (pred - yva).abs().mean().item()
            val_rmse = ((pred - yva) ** 2).mean().sqrt().item()
        best = min(best, val_mae)
        print(
            f"[trial {number:02d}] epoch {epoch:02d}/20 train_loss={total / len(xtr):.4f} val_mae_hours={val_mae:.4f}"
            f" val_rmse_hours={val_rmse:.4f} best={best:.4f}"
        )
    return best


def main():
    torch.set_num_threads(1)
    rng = np.random.default_rng(21)
    x = rng.normal(size=(1500, 16)).astype("float32")
    y = (np.abs(x[:, :4]).sum(1) * 6 + x[:, 4] * 3 + rng.normal(scale=1.5, size=1500)).astype("float32")
    data = tuple(map(torch.from_numpy, (x[:1200], y[:1200], x[1200:], y[1200:])))
    trials = json.load(open("sweep.json"))
    print(f"shipping_delay sweep: {len(trials)} trials, 1200 train / 300 validation rows, metric val_mae_hours")
    results = []
    for number, cfg in enumerate(trials, 1):
        print(f"[trial {number:02d}] start {json.dumps(cfg, sort_keys=True)}")
        try:
            best = run_trial(number, cfg, data)
        except Exception as exc:
            traceback.print_exc()
            print(f"[trial {number:02d}] FAILED: {type(exc).__name__}: {exc}")
            results.append((number, cfg, None))
            continue
        print(f"[trial {number:02d}] done best val_mae_hours={best:.4f}")
        results.append((number, cfg, best))
    print()
    print("trial  lr       hidden  dropout  weight_decay  best_val_mae_hours")
    for number, cfg, best in sorted(results, key=lambda r: (r[2] is None, r[2] or 0.0)):
        shown = "-" if best is None else f"{best:.4f}"
        row = f"{number:5d}  {cfg['lr']:<7g}  {cfg['hidden']:6d}  {cfg['dropout']:7g}  {cfg['weight_decay']:12g}"
        print(f"{row}  {shown}")
    failed = [n for n, _, b in results if b is None]
    print(f"sweep finished: {len(results) - len(failed)} trials completed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
'''


@case(
    "u47_torch_sweep_trial_crash",
    "pytorch hyper-parameter sweep",
    clean=False,
    group=GROUP,
    decisive=[
        "[trial 09] FAILED: ValueError: dropout probability has to be between 0 and 1, but got 1.2",
        'sweep_shipping_delay.py", line 13, in make_model',
        "sweep finished: 13 trials completed, 1 failed",
    ],
)
def _torch_sweep(root: Path) -> bytes:
    write(root, {"sweep.json": _SWEEP_JSON, "sweep_shipping_delay.py": _SWEEP})
    return _settle(sh(f"{_ml(root)} python sweep_shipping_delay.py", root), root)


# ---------------------------------------------------------------- scikit-learn: a grid search's warnings flood

_COUPONS_SEARCH = '''
"""Coupons fraud: logistic regression grid search over regularisation settings."""
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold

rng = np.random.default_rng(5)
n = 1200
x = rng.normal(size=(n, 30)) * rng.uniform(0.5, 400.0, size=30)  # raw amounts, counts and ratios, unscaled
logit = x[:, 0] / 300 - x[:, 3] / 200 + x[:, 7] / 100 + rng.normal(scale=0.5, size=n)
y = (logit > 1.2).astype(int)
print(f"coupons_fraud: {n} redemptions, {y.mean():.1%} flagged as fraud, {x.shape[1]} features")
grid = [
    {"penalty": ["l2"], "C": [0.001, 0.01, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0], "class_weight": [None, "balanced"]},
    {"penalty": ["elasticnet"], "C": [0.1, 1.0], "l1_ratio": [0.2, 0.5, 0.8]},
]
search = GridSearchCV(
    LogisticRegression(max_iter=60),
    grid,
    scoring="average_precision",
    cv=StratifiedKFold(5, shuffle=True, random_state=5),
    verbose=3,
    error_score="raise",
)
search.fit(x, y)
print("best params:", search.best_params_)
print(f"best average_precision: {search.best_score_:.4f}")
'''


@case(
    "u47_sklearn_gridsearch_convergence_flood",
    "scikit-learn GridSearchCV",
    clean=False,
    group=GROUP,
    decisive=[
        "ValueError: Solver lbfgs supports only 'l2' or None penalties, got elasticnet penalty.",
        'search_coupons_fraud.py", line 24, in <module>',
    ],
)
def _sklearn_gridsearch(root: Path) -> bytes:
    write(root, {"search_coupons_fraud.py": _COUPONS_SEARCH})
    return _settle(sh(f"{_ml(root)} python search_coupons_fraud.py", root), root)


# ---------------------------------------------------------------- XGBoost: a hold-out set with a feature less

_TAX_XGB = '''
"""Tax amount model: gradient-boosted trees on 18 invoice features, scored on the quarterly hold-out files."""
import numpy as np
import xgboost as xgb

FEATURES = [f"f{i:02d}" for i in range(18)]


def make_quarter(rng, n, drop=None):
    x = rng.normal(size=(n, 18))
    y = 0.19 * np.exp(x[:, 0]) * 100 + 7 * x[:, 1] - 3 * x[:, 2] * x[:, 3] + rng.normal(scale=2.0, size=n)
    if drop is not None:  # the export job of that quarter left out a column
        x = np.delete(x, drop, axis=1)
    return x, y


rng = np.random.default_rng(42)
x_train, y_train = make_quarter(rng, 3000)
x_valid, y_valid = make_quarter(rng, 800)
dtrain = xgb.DMatrix(x_train, label=y_train)
dvalid = xgb.DMatrix(x_valid, label=y_valid)
params = {"objective": "reg:squarederror", "eta": 0.05, "max_depth": 5, "subsample": 0.8, "colsample_bytree": 0.8,
          "eval_metric": ["rmse", "mae"], "nthread": 1, "seed": 42}
print(f"tax_amount_xgb: {dtrain.num_row()} train rows, {dvalid.num_row()} validation rows, {dtrain.num_col()} features")
booster = xgb.train(params, dtrain, num_boost_round=400, evals=[(dtrain, "train"), (dvalid, "valid")], verbose_eval=1)
booster.save_model("tax_amount_xgb.ubj")
print("saved tax_amount_xgb.ubj")
gain = booster.get_score(importance_type="gain")
for name, value in sorted(gain.items(), key=lambda kv: -kv[1]):
    print(f"  importance {name}: {value:.2f}")
for quarter, drop in [("2024Q1", None), ("2024Q2", None), ("2024Q3", 11), ("2024Q4", None)]:
    x_q, y_q = make_quarter(rng, 500, drop)
    pred = booster.inplace_predict(x_q)
    print(f"holdout {quarter}: rows={len(y_q)} mae={np.abs(pred - y_q).mean():.4f}")
'''


@case(
    "u47_xgboost_holdout_feature_mismatch",
    "xgboost training",
    clean=False,
    group=GROUP,
    decisive=["ValueError: Feature shape mismatch, expected: 18, got 17", 'train_tax_xgb.py", line 32, in <module>'],
)
def _xgboost_mismatch(root: Path) -> bytes:
    write(root, {"train_tax_xgb.py": _TAX_XGB})
    return _settle(sh(f"{_ml(root)} python train_tax_xgb.py", root), root)


# ---------------------------------------------------------------- LightGBM: one region's labels are not binary

_REGION_LGB = '''
"""Per-region cart outcome model (0 abandoned, 1 checked out, 2 saved for later): LightGBM with early stopping."""
import sys
import zlib

import lightgbm as lgb
import numpy as np

region = sys.argv[1]
rng = np.random.default_rng(zlib.crc32(region.encode()))
x = rng.normal(size=(2400, 14))
score = np.stack([x[:, 0] - 0.5 * x[:, 1], x[:, 2] + 0.3 * x[:, 5], 0.8 * x[:, 3] - x[:, 4]], axis=1)
y = np.argmax(score + rng.normal(scale=0.9, size=(2400, 3)), axis=1)
if region == "eu-south":  # the new export of this region codes returned carts as 3
    y[rng.random(2400) < 0.04] = 3
print(f"[{region}] {len(y)} sessions, outcome values {sorted(set(y.tolist()))}")
train = lgb.Dataset(x[:2000], label=y[:2000])
valid = lgb.Dataset(x[2000:], label=y[2000:], reference=train)
params = {"objective": "multiclass", "num_class": 3, "metric": ["multi_logloss", "multi_error"], "learning_rate": 0.05,
          "num_leaves": 15, "min_data_in_leaf": 20, "num_threads": 1, "deterministic": True, "force_col_wise": True,
          "seed": 1, "verbose": 1}
booster = lgb.train(params, train, num_boost_round=400, valid_sets=[valid], valid_names=["valid"],
                    callbacks=[lgb.log_evaluation(1), lgb.early_stopping(30)])
booster.save_model(f"models/cart_outcome_{region}.txt")
print(f"[{region}] saved models/cart_outcome_{region}.txt best_iteration={booster.best_iteration}")
'''


@case(
    "u47_lightgbm_region_loop",
    "lightgbm training (shell loop)",
    clean=False,
    group=GROUP,
    decisive=[
        "lightgbm.basic.LightGBMError: Label must be in [0, 3), but found 3 in label",
        "FAILED region eu-south",
        "regions trained; failed: eu-south",
    ],
)
def _lightgbm_regions(root: Path) -> bytes:
    write(root, {"train_region.py": _REGION_LGB})
    (root / "models").mkdir()
    regions = "us-east us-west ca-central eu-west eu-north eu-south eu-central ap-south ap-east sa-east"
    cmd = (
        f'failed=; for r in {regions}; do python train_region.py $r || {{ echo "FAILED region $r"; failed="$failed $r"; }};'  # noqa: E501
        ' done; echo "regions trained; failed:${failed:- none}"; test -z "$failed"'
    )
    return _settle(sh(f"{_ml(root)} bash -c '{cmd}'", root), root)


# ---------------------------------------------------------------- clean: LightGBM failed_payments

_FAILED_PAYMENTS = '''
"""failed_payments classifier: will a payment retry fail again? LightGBM with binary_error and early stopping."""
import lightgbm as lgb
import numpy as np

NAMES = ["retry_count", "error_code_bucket", "failed_attempts_24h", "amount", "card_age_days", "issuer_declines",
         "exception_rate_merchant", "hours_since_failure", "timeout_errors", "gateway_errors"]
rng = np.random.default_rng(77)
n = 1600
x = rng.normal(size=(n, len(NAMES)))
x[:, 1] = rng.integers(0, 3, size=n)  # a coarse bucket: few distinct values
y = (0.9 * x[:, 0] + 0.6 * x[:, 2] - 0.4 * x[:, 7] + rng.normal(scale=0.8, size=n) > 0.3).astype(int)
print(f"failed_payments: {n} payment retries, {y.mean():.1%} failed again; features: {', '.join(NAMES)}")
train = lgb.Dataset(x[:1200], label=y[:1200], feature_name=NAMES)
valid = lgb.Dataset(x[1200:], label=y[1200:], reference=train)
params = {"objective": "binary", "metric": ["binary_error", "binary_logloss"], "learning_rate": 0.04, "num_leaves": 63,
          "min_data_in_leaf": 60, "max_depth": -1, "num_threads": 1, "deterministic": True, "force_col_wise": True,
          "seed": 7, "verbose": 1}
booster = lgb.train(params, train, num_boost_round=1000, valid_sets=[train, valid], valid_names=["train", "valid"],
                    callbacks=[lgb.log_evaluation(1), lgb.early_stopping(60, first_metric_only=False)])
print(f"failed_payments_lgbm: best_iteration={booster.best_iteration}"
      f" valid binary_error={booster.best_score['valid']['binary_error']:.4f}"
      f" valid binary_logloss={booster.best_score['valid']['binary_logloss']:.4f}")
for name, gain in sorted(zip(NAMES, booster.feature_importance("gain")), key=lambda kv: -kv[1]):
    print(f"  gain {name:<24} {gain:10.2f}")
booster.save_model("failed_payments_lgbm.txt")
print("saved model failed_payments_lgbm.txt")
'''


@case(
    "u47_lightgbm_failed_payments_clean",
    "lightgbm training",
    clean=True,
    group=GROUP,
    decisive=["failed_payments_lgbm: best_iteration=", "saved model failed_payments_lgbm.txt"],
)
def _lightgbm_failed_payments(root: Path) -> bytes:
    write(root, {"train_failed_payments.py": _FAILED_PAYMENTS})
    return _settle(sh(f"{_ml(root)} python train_failed_payments.py", root), root)


# ---------------------------------------------------------------- clean: PyTorch error_rate_regressor

_ERROR_RATE = (
    '''
"""error_rate_regressor: predicts the hourly error rate of the orders service from the failed_orders data set."""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
'''
    + _TQDM
    + """

def failed_orders_dataset(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(2400, 20)).astype("float32")
    rate = 1 / (1 + np.exp(-(x[:, 0] * 0.8 + x[:, 1] * 0.4 - 2.0)))
    return torch.from_numpy(x), torch.from_numpy((rate + rng.normal(scale=0.01, size=2400)).astype("float32"))


def main():
    torch.manual_seed(19)
    torch.set_num_threads(1)
    x, y = failed_orders_dataset(19)
    loader = DataLoader(TensorDataset(x[:1920], y[:1920]), batch_size=48, shuffle=True,
                        generator=torch.Generator().manual_seed(19))
    model = nn.Sequential(nn.Linear(20, 48), nn.SiLU(), nn.Linear(48, 24), nn.SiLU(), nn.Linear(24, 1), nn.Sigmoid())
    opt = torch.optim.AdamW(model.parameters(), lr=4e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=25)
    best, best_epoch, patience = float("inf"), 0, 0
    print("error_rate_regressor on failed_orders: 1920 train / 480 validation hours")
    for epoch in range(1, 26):
        model.train()
        bar = tqdm(loader, desc=f"Epoch {epoch}/25", mininterval=0, miniters=1)
        for xb, yb in bar:
            loss = nn.functional.mse_loss(model(xb).squeeze(-1), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            bar.set_postfix(mse=f"{loss.item():.6f}")
        sched.step()
        model.eval()
        with torch.no_grad():
            pred = model(x[1920:]).squeeze(-1)
            val_error = ((pred - y[1920:]) ** 2).mean().sqrt().item()
            mae = (pred - y[1920:]).abs().mean().item()
            failed_ratio = (pred > 0.2).float().mean().item()
        flag = ""
        if val_error < best:
            best, best_epoch, patience = val_error, epoch, 0
            torch.save(model.state_dict(), "error_rate_regressor.pt")
            flag = " *"
        print(f"epoch {epoch:02d} val_error={val_error:.5f} mean_absolute_error={mae:.5f}"
              f" failed_ratio={failed_ratio:.4f} lr={sched.get_last_lr()[0]:.2e}{flag}")
    print(f"Training complete: best val_error={best:.5f} at epoch {best_epoch}")
    print("checkpoint: error_rate_regressor.pt (best epoch)")


if __name__ == "__main__":
    main()
"""
)


@case(
    "u47_torch_error_rate_clean",
    "pytorch training (tqdm)",
    clean=True,
    group=GROUP,
    decisive=["Training complete: best val_error=", "checkpoint: error_rate_regressor.pt (best epoch)"],
)
def _torch_error_rate(root: Path) -> bytes:
    write(root, {"train_error_rate.py": _ERROR_RATE})
    return _settle(sh(f"{_ml(root)} python train_error_rate.py", root), root)


# ---------------------------------------------------------------- clean: scikit-learn exceptions triage

_TRIAGE = '''
"""exceptions_triage: routes a logged exception to retry, failed (give up) or error (page someone)."""
import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.metrics import classification_report, confusion_matrix, f1_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

rng = np.random.default_rng(8)
n = 1500
x = rng.normal(size=(n, 12))
score = np.stack([x[:, 0] + x[:, 1], x[:, 2] - 0.5 * x[:, 3], 0.7 * x[:, 4] + x[:, 5]], axis=1)
labels = np.array(["retry", "failed", "error"])
y = labels[np.argmax(score + rng.normal(scale=0.7, size=(n, 3)), axis=1)]
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, stratify=y, random_state=8)
print(f"exceptions_triage: {len(y_train)} train / {len(y_test)} test exceptions; classes {sorted(set(y))}")
cv = StratifiedKFold(5, shuffle=True, random_state=8)
forest = GridSearchCV(
    RandomForestClassifier(random_state=8, n_jobs=1),
    {"n_estimators": [40, 80], "max_depth": [4, None], "min_samples_leaf": [1, 5]},
    scoring="f1_macro", cv=cv, verbose=3,
)
forest.fit(x_train, y_train)
print("random forest best:", forest.best_params_, f"cv f1_macro={forest.best_score_:.4f}")
boosted = GridSearchCV(
    HistGradientBoostingClassifier(max_iter=150, early_stopping=False, random_state=8, verbose=2),
    {"learning_rate": [0.05, 0.1], "max_leaf_nodes": [15, 31]},
    scoring="f1_macro", cv=cv, verbose=3,
)
boosted.fit(x_train, y_train)
print("gradient boosting best:", boosted.best_params_, f"cv f1_macro={boosted.best_score_:.4f}")
best = max([forest, boosted], key=lambda s: s.best_score_)
pred = best.predict(x_test)
print(classification_report(y_test, pred, digits=3))
print("confusion matrix (rows true, columns predicted; error, failed, retry):")
print(confusion_matrix(y_test, pred, labels=["error", "failed", "retry"]))
failed_ratio = float(np.mean(pred == "failed"))
print(f"failed_ratio predicted={failed_ratio:.4f} actual={np.mean(y_test == 'failed'):.4f}")
print(f"exceptions_triage: held-out f1_macro={f1_score(y_test, pred, average='macro'):.4f} with "
      f"{type(best.best_estimator_).__name__}")
'''


@case(
    "u47_sklearn_exceptions_triage_clean",
    "scikit-learn GridSearchCV",
    clean=True,
    group=GROUP,
    decisive=["exceptions_triage: held-out f1_macro=", "failed_ratio predicted="],
)
def _sklearn_triage(root: Path) -> bytes:
    write(root, {"train_exceptions_triage.py": _TRIAGE})
    return _settle(sh(f"{_ml(root)} python train_exceptions_triage.py", root), root)


# ---------------------------------------------------------------- clean: XGBoost retry_delay

_RETRY_DELAY = '''
"""retry_delay regressor: seconds to wait before retrying a failed webhook delivery (XGBoost, early stopping)."""
import numpy as np
import xgboost as xgb
from sklearn.metrics import mean_absolute_error, mean_squared_error

rng = np.random.default_rng(31)
n = 4000
x = rng.normal(size=(n, 10))
y = np.exp(1.5 + 0.6 * x[:, 0] - 0.3 * x[:, 1]) + 4 * np.maximum(x[:, 2], 0) + rng.normal(scale=0.8, size=n)
x_tr, y_tr, x_va, y_va, x_te, y_te = x[:2800], y[:2800], x[2800:3400], y[2800:3400], x[3400:], y[3400:]
model = xgb.XGBRegressor(n_estimators=3000, learning_rate=0.03, max_depth=4, subsample=0.9, n_jobs=1,
                         random_state=31, eval_metric=["rmse", "mae"], early_stopping_rounds=40)
model.fit(x_tr, y_tr, eval_set=[(x_tr, y_tr), (x_va, y_va)], verbose=True)
print(f"retry_delay_xgb: best_iteration={model.best_iteration} best_score(mae)={model.best_score:.4f}")
pred = model.predict(x_te)
print(f"test mean_absolute_error={mean_absolute_error(y_te, pred):.4f}s"
      f" root_mean_squared_error={mean_squared_error(y_te, pred) ** 0.5:.4f}s")
model.save_model("retry_delay_xgb.json")
print("saved retry_delay_xgb.json")
'''


@case(
    "u47_xgboost_retry_delay_clean",
    "xgboost training",
    clean=True,
    group=GROUP,
    decisive=["retry_delay_xgb: best_iteration=", "test mean_absolute_error="],
)
def _xgboost_retry_delay(root: Path) -> bytes:
    write(root, {"train_retry_delay.py": _RETRY_DELAY})
    return _settle(sh(f"{_ml(root)} python train_retry_delay.py", root), root)


# ---------------------------------------------------------------- clean: an MLP sweep among ConvergenceWarnings

_ROUTER_SWEEP = '''
"""errors_router: which on-call team gets an error event; a sweep of MLPClassifier settings."""
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

rng = np.random.default_rng(12)
n = 900
x = rng.normal(size=(n, 16))
teams = np.array(["billing", "checkout", "search", "auth"])
y = teams[np.argmax(x[:, :4] + 0.5 * x[:, 4:8] + rng.normal(scale=0.8, size=(n, 4)), axis=1)]
x_tr, x_va, y_tr, y_va = train_test_split(x, y, test_size=0.3, stratify=y, random_state=12)
scaler = StandardScaler().fit(x_tr)
x_tr, x_va = scaler.transform(x_tr), scaler.transform(x_va)
trials = [((32,), 30), ((64,), 45), ((32, 16), 60), ((64, 32), 35), ((16,), 80), ((128,), 25), ((48, 24), 70),
          ((96,), 50), ((24, 12), 90), ((64, 64), 40), ((40,), 55), ((80, 40), 65)]
print(f"errors_router sweep: {len(trials)} trials, {len(y_tr)} train / {len(y_va)} validation error events")
results = []
for number, (layers, max_iter) in enumerate(trials, 1):
    print(f"--- trial {number:02d}: hidden_layer_sizes={layers} max_iter={max_iter}")
    clf = MLPClassifier(hidden_layer_sizes=layers, max_iter=max_iter, learning_rate_init=0.002, random_state=number,
                        verbose=True)
    clf.fit(x_tr, y_tr)
    val_error = 1.0 - clf.score(x_va, y_va)
    results.append((val_error, number))
    print(f"--- trial {number:02d}: val_error={val_error:.4f} n_iter={clf.n_iter_}")
best_error, best_trial = min(results)
summary = f"sweep finished: {len(results)} trials completed, 0 failed; best trial {best_trial:02d}"
print(f"{summary} val_error={best_error:.4f}")
'''


@case(
    "u47_sklearn_mlp_sweep_clean",
    "scikit-learn MLP sweep",
    clean=True,
    group=GROUP,
    decisive=["sweep finished: 12 trials completed, 0 failed; best trial"],
)
def _sklearn_mlp_sweep(root: Path) -> bytes:
    write(root, {"sweep_errors_router.py": _ROUTER_SWEEP})
    return _settle(sh(f"{_ml(root)} python sweep_errors_router.py", root), root)
