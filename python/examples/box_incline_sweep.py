#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The box on an incline swept over friction and slope on Dask (issue 18, docs/scale-out.md).

200 rollouts of models/box-incline.mech (μ = 0.1 … 1.0 in 10 steps, θ = 2.5° … 50° in 20 steps),
each for --duration seconds, plus one with μ = −0.5, which the model refuses: its row says why.
A box slides when tan θ > μ: for every μ the script finds the largest slope that sticks and the
smallest that slides, and checks that atan μ lies between them (the grid spacing). Then it times the
same sweep on a LocalCluster of 1 and of 2 worker processes (clients started before the timing) and
prints the ratio. Usage (from the source tree):

    PYTHONPATH=build/python /usr/bin/python3 python/examples/box_incline_sweep.py --csv sweep.csv
"""
import argparse
import math
import pathlib
import sys
import time

import numpy as np
from distributed import Client, LocalCluster

import mechstudio

MODEL = str(pathlib.Path(__file__).resolve().parents[2] / "models" / "box-incline.mech")
SLIDING = 1e-3  # m along the slope in the run: the box slid


def samples():
    grid = mechstudio.sweep_module.parameter_sets({"mu": np.linspace(0.1, 1.0, 10), "angle_deg": np.linspace(2.5, 50, 20)})
    return grid + [{"mu": -0.5, "angle_deg": 20.0}]


def timed(workers, sets, duration):
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.submit(sum, [1]).result()  # the workers are up
        t0 = time.perf_counter()
        df = mechstudio.sweep(MODEL, sets, metrics=["delta(box.y)", "delta(box.z)", "max(penetration)"],
                              duration=duration, client=client)
        return df, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--csv", default=None)
    a = ap.parse_args()
    sets = samples()
    df1, t1 = timed(1, sets, a.duration)
    df2, t2 = timed(2, sets, a.duration)
    df = df2
    if a.csv:
        mechstudio.sweep_module.write_csv(df, a.csv)
    ok = True
    # The failed rollout, with the engine's reason.
    bad = df[df["mu"] < 0]
    print(f"rollouts: {len(df)}, failed: {int(df['failed'].sum())}: {bad['reason'].iloc[0]!r}")
    ok &= len(bad) == 1 and bool(bad["failed"].iloc[0]) and "friction must not be negative" in bad["reason"].iloc[0]
    ok &= int(df["failed"].sum()) == 1
    # Stick or slide, per μ.
    good = df[~df["failed"]].copy()
    good["slide"] = np.hypot(good["delta(box.y)"], good["delta(box.z)"]) > SLIDING
    for mu, g in good.groupby("mu"):
        stick = g[~g["slide"]]["angle_deg"].max()
        slide = g[g["slide"]]["angle_deg"].min()
        theta = math.degrees(math.atan(mu))
        inside = (math.isnan(stick) or stick <= theta) and (math.isnan(slide) or theta <= slide)
        print(f"mu = {mu:.1f}: sticks up to {stick:5.1f} deg, slides from {slide:5.1f} deg; atan(mu) = {theta:5.2f} deg "
              f"{'inside' if inside else 'OUTSIDE'}")
        ok &= inside
    print(f"max penetration {good['max(penetration)'].max():.2e} m")
    print(f"wall time, {len(sets)} rollouts of {a.duration} s: 1 worker {t1:.2f} s, 2 workers {t2:.2f} s: "
          f"{t2 / t1:.2f}x (rollouts alone: {df1['wall_s'].sum():.2f} s)")
    ok &= bool(np.array_equal(df1.drop(columns="wall_s").fillna(0).values, df2.drop(columns="wall_s").fillna(0).values))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
