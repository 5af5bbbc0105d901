# SPDX-License-Identifier: GPL-3.0-or-later
# mechstudio.sweep on a Dask LocalCluster: one row per rollout in order, the stick/slide boundary of
# the box on an incline, a failing rollout as a row with the engine's reason, the CSV, and the CLI.
import math
import subprocess

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import mechstudio
from mechstudio.sweep import parameter_sets, parse_metric


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


def test_grid_rows_boundary_and_a_failure(client, models, tmp_path):
    sets = parameter_sets({"mu": [0.2, 0.6], "angle_deg": [5.0, 15.0, 25.0, 35.0]}) + [{"mu": -1.0, "angle_deg": 10.0}]
    csv = tmp_path / "sweep.csv"
    df = mechstudio.sweep(str(models / "box-incline.mech"), sets, metrics=["delta(box.y)", "delta(box.z)", "max(penetration)"],
                          duration=1.0, client=client, csv=str(csv))
    assert len(df) == 9 and list(df["mu"][:8]) == [s["mu"] for s in sets[:8]]
    # The failed rollout: a row with the model's message, no steps.
    bad = df.iloc[8]
    assert bool(bad["failed"]) and "friction must not be negative" in bad["reason"] and bad["steps"] == 0
    good = df.iloc[:8]
    assert not good["failed"].any() and (good["steps"] == 100).all()
    slid = np.hypot(good["delta(box.y)"], good["delta(box.z)"]) > 1e-3
    expected = [math.tan(math.radians(a)) > mu for mu, a in zip(good["mu"], good["angle_deg"])]
    assert list(slid) == expected
    assert good["max(penetration)"].max() < 1e-8
    back = pd.read_csv(csv)
    assert len(back) == 9 and list(back.columns) == list(df.columns)


def test_a_failed_step_keeps_the_steps_before(client):
    # Explicit Euler on the 10-link chain at Δt = 0.01 s drifts until its constraint matrix is
    # singular (step 228): the row says so, with the engine's step and reason, and the metrics cover
    # the 200 steps of the chunk before. A model error is a row too.
    df = mechstudio.sweep("scene:chain", [{"n": 10}], metrics=["max(energy)", "final(constraint_violation)"], steps=1000,
                          integrator="euler", client=client)
    row = df.iloc[0]
    assert bool(row["failed"]) and row["reason"].startswith("step 228 (t = 2.280000 s): singular KKT matrix")
    assert row["steps"] == 227 and np.isfinite(row["max(energy)"]) and row["final(constraint_violation)"] > 0
    df = mechstudio.sweep("scene:chain", [{"n": 3, "joint": "welded"}], metrics=["max(energy)"], steps=10, client=client)
    assert df["failed"].iloc[0] and "joint" in df["reason"].iloc[0] and math.isnan(df["max(energy)"].iloc[0])


def test_bad_arguments():
    with pytest.raises(ValueError, match="AGG"):
        parse_metric("energy")
    with pytest.raises(ValueError, match="no values"):
        parameter_sets({"mu": []})
    with pytest.raises(TypeError):
        parameter_sets([1, 2])
    with pytest.raises(ValueError, match="duration"):
        mechstudio.sweep("scene:pendulum", [{}], duration=0)


def test_the_cli_runs_a_sweep(cli, models, tmp_path):
    out = tmp_path / "cli.csv"
    r = subprocess.run([cli, "sweep", str(models / "box-incline.mech"), "--grid", "mu=0.3:0.6:2", "--grid", "angle_deg=10,30",
                        "--duration", "0.5", "--metric", "delta(box.y)", "--workers", "2", "--csv", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(out)
    assert len(df) == 4 and set(df.columns) >= {"mu", "angle_deg", "delta(box.y)", "failed", "reason"}
    r = subprocess.run([cli, "sweep", str(models / "box-incline.mech"), "--grid", "mu=x", "--duration", "1",
                        "--csv", str(tmp_path / "x.csv")], capture_output=True, text=True)
    assert r.returncode == 1 and "mechstudio-cli: error: --grid 'mu=x'" in r.stderr
    assert not (tmp_path / "x.csv").exists()


def test_a_task_that_does_not_return_gives_failed_rows(models, monkeypatch):
    # A task that raises instead of returning its rows (as when its worker dies): each of its
    # rollouts is a failed row with the reason, the others are there as usual, in order.
    sweep_mod = mechstudio.sweep_module
    real = sweep_mod._rollouts

    def dying(model, batch, metrics, **kwargs):
        if any(p.get("mu") == 0.3 for p in batch):
            raise RuntimeError("the worker died")
        return real(model, batch, metrics, **kwargs)

    monkeypatch.setattr(sweep_mod, "_rollouts", dying)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        df = mechstudio.sweep(str(models / "box-incline.mech"), {"mu": [0.2, 0.3, 0.4], "angle_deg": [10.0]},
                              metrics=["max(penetration)"], duration=0.1, client=c)
    assert list(df["mu"]) == [0.2, 0.3, 0.4]
    assert list(df["failed"]) == [False, True, False]
    assert df["reason"][1] == "rollout lost: RuntimeError: the worker died"
    assert np.isnan(df["max(penetration)"][1]) and df["steps"][0] == 10
