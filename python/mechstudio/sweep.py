# SPDX-License-Identifier: GPL-3.0-or-later
"""Parameter sweeps: many independent rollouts of one model on Dask distributed.

    import mechstudio
    df = mechstudio.sweep("models/box-incline.mech",
                          {"mu": np.linspace(0.1, 1.0, 10), "angle_deg": np.linspace(5, 50, 20)},
                          metrics=["delta(box.y)", "max(penetration)"], duration=1.0)

One rollout per parameter set: a grid (dict of value lists, every combination) or samples (a list of
dicts). Each rollout loads the model with its parameters, steps it for `duration` seconds (or
`steps` steps) and reduces what it recorded to one number per metric. The rollouts run on a Dask
cluster: a LocalCluster of `workers` processes by default, the scheduler at `scheduler` (an address
such as "tcp://10.0.0.5:8786"), or a distributed.Client given as `client`. The result is a pandas
DataFrame with one row per rollout, in the order of the parameter sets: the parameters, the metrics,
`steps` and `time` reached, `wall_s`, and `failed`/`reason`: a rollout that fails (a model error, a
failed step) is a row with failed=True and the engine's message, and the metrics over the steps it
took before (in chunks of 200 steps), never lost. `csv=PATH` also writes the table (atomically).

Metrics are "AGG(QUANTITY)": AGG one of final, initial, max, min, mean, delta (final − initial),
absmax; QUANTITY a signal name (docs/signals.md, e.g. box.x, joint1.angle, system.energy) or a
per-step metric (energy, kinetic, potential, constraint_violation, residual, penetration,
limit_violation, iterations, contacts, substeps, step_us).
"""
import itertools
import math
import os
import re
import tempfile
import time

import numpy as np

from ._mechstudio import MechStudioError, Simulation

STEP_METRICS = ("energy", "kinetic", "potential", "constraint_violation", "residual", "penetration",
                "limit_violation", "iterations", "contacts", "substeps", "step_us")
AGGREGATES = {
    "final": lambda v: float(v[-1]),
    "initial": lambda v: float(v[0]),
    "max": lambda v: float(np.max(v)),
    "min": lambda v: float(np.min(v)),
    "mean": lambda v: float(np.mean(v)),
    "delta": lambda v: float(v[-1] - v[0]),
    "absmax": lambda v: float(np.max(np.abs(v))),
}
_METRIC = re.compile(r"^\s*(\w+)\s*\(\s*([^()\s]+)\s*\)\s*$")
_CHUNK = 200  # steps per call: the metrics of a failed rollout cover the chunks before the failing one


def parse_metric(spec):
    """("max", "penetration") from "max(penetration)"; ValueError for anything else."""
    m = _METRIC.match(spec)
    if not m or m.group(1) not in AGGREGATES:
        raise ValueError(f"metric '{spec}': write AGG(QUANTITY) with AGG one of {', '.join(AGGREGATES)}")
    return m.group(1), m.group(2)


def parameter_sets(grid_or_samples):
    """A list of parameter dicts: every combination of a grid {name: values}, or the samples as given."""
    if isinstance(grid_or_samples, dict):
        names = list(grid_or_samples)
        values = [list(np.atleast_1d(grid_or_samples[n])) for n in names]
        for n, v in zip(names, values):
            if not v:
                raise ValueError(f"parameter '{n}' has no values")
        return [dict(zip(names, combo)) for combo in itertools.product(*values)]
    samples = list(grid_or_samples)
    for s in samples:
        if not isinstance(s, dict):
            raise TypeError("samples must be dicts {parameter: value}")
    return samples


def _number(v):
    return float(v) if isinstance(v, (int, float, np.integer, np.floating)) else v


def rollout(model, params, metrics, duration=None, steps=None, dt=None, integrator="vi", options=None):
    """One rollout (runs on a worker): a dict of the parameters, metrics, steps, time, wall_s, failed, reason."""
    row = {k: _number(v) for k, v in params.items()}
    parsed = [parse_metric(m) for m in metrics]
    signals = sorted({q for _, q in parsed if q not in STEP_METRICS})
    t0 = time.perf_counter()
    series = {q: [] for _, q in parsed}
    row.update(steps=0, time=0.0, failed=False, reason="")
    try:
        sim = Simulation(model, params={k: _number(v) for k, v in params.items()})
        if integrator != "vi" or options:
            sim.set_integrator(integrator, **(options or {}))
        if dt is not None:
            sim.dt = dt
        total = steps if steps is not None else int(math.ceil(duration / sim.dt - 1e-9))
        # The values at the start (step 0), so that initial and delta mean the start.
        start = sim.metrics
        for _, q in parsed:
            if q in STEP_METRICS and not series[q]:
                series[q].append(float(start[q]))
        for q in signals:
            v = sim.signals(q)
            if len(v) != 1:
                raise KeyError(f"metric quantity '{q}' names {len(v)} signals; give one signal name per metric")
            series[q].append(float(v[0]))
        done = 0
        while done < total:
            n = min(_CHUNK, total - done)
            out = sim.step(n, record=True, signals=signals)
            _append(series, out, parsed, signals)
            done += n
    except (MechStudioError, ValueError, KeyError, TypeError) as e:
        row["failed"] = True
        row["reason"] = str(e).strip()
    finally:
        row["wall_s"] = time.perf_counter() - t0
    try:
        row["steps"], row["time"] = sim.steps, sim.time
    except NameError:
        pass
    for agg, q in parsed:
        v = series[q]
        row[f"{agg}({q})"] = AGGREGATES[agg](np.asarray(v)) if len(v) else math.nan
    return row


def _rollouts(model, batch, metrics, **kwargs):
    """The rollouts of one batch, in order (one Dask task)."""
    return [rollout(model, params, metrics, **kwargs) for params in batch]


def _lost(params, metrics, reason):
    """The row of a rollout whose task did not return: its parameters, failed, the reason."""
    row = {k: _number(v) for k, v in params.items()}
    row.update(steps=0, time=0.0, failed=True, reason=reason, wall_s=math.nan)
    for agg, q in (parse_metric(m) for m in metrics):
        row[f"{agg}({q})"] = math.nan
    return row


def _append(series, out, parsed, signals):
    for _, q in parsed:
        if q in STEP_METRICS:
            series[q].extend(out[q].tolist())
    if signals:
        cols = {name: k for k, name in enumerate(out["signal_names"])}
        for q in signals:
            if q not in cols:
                raise KeyError(f"signal '{q}' names more than one signal; give one name per metric")
            series[q].extend(out["signals"][:, cols[q]].tolist())


def sweep(model, grid_or_samples, metrics=("final(energy)",), duration=1.0, steps=None, dt=None, integrator="vi",
          options=None, client=None, scheduler=None, workers=2, csv=None):
    """Runs the rollouts on Dask and returns a pandas DataFrame (see the module's documentation)."""
    import pandas as pd
    from distributed import Client, LocalCluster

    sets = parameter_sets(grid_or_samples)
    for m in metrics:
        parse_metric(m)
    if steps is None and (duration is None or not duration > 0):
        raise ValueError("give a positive duration (s) or a number of steps")
    own = None
    if client is None:
        if scheduler:
            own = client = Client(scheduler)
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
            own = client = Client(cluster)
    try:
        # Rollouts go to the workers in batches, about 8 per worker thread: one scheduler round trip
        # per rollout cost ~2.5 ms (200 box-incline rollouts of 10 s: one worker spent 0.5 s more
        # than its rollouts; 2 workers took 0.49–0.61× its time, batched 0.51–0.56×), and 8 per
        # thread still balance rollouts of different lengths.
        threads = max(1, sum(client.nthreads().values()))
        size = max(1, math.ceil(len(sets) / (8 * threads)))
        batches = [sets[i:i + size] for i in range(0, len(sets), size)]
        futures = client.map(_rollouts, [model] * len(batches), batches, [list(metrics)] * len(batches), pure=False,
                             duration=duration, steps=steps, dt=dt, integrator=integrator, options=options)
        rows = []
        for batch, future in zip(batches, futures):
            try:
                rows.extend(future.result())
            except Exception as e:  # the task itself failed (a worker died): its rollouts are rows too
                rows.extend(_lost(p, metrics, f"rollout lost: {type(e).__name__}: {e}") for p in batch)
    finally:
        if own is not None:
            cluster = getattr(own, "cluster", None)
            own.close()
            if cluster is not None:
                cluster.close()
    df = pd.DataFrame(rows)
    if csv:
        write_csv(df, csv)
    return df


def write_csv(df, path):
    """The table as CSV, written to a temporary file and renamed (a crash leaves the old file or none)."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".sweep-", suffix=".csv", dir=directory)
    try:
        with os.fdopen(fd, "w", newline="") as f:
            df.to_csv(f, index=False)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _parse_grid(items):
    """{"mu": [..]} from ["mu=0.1:1:10", "angle_deg=20"] (from:to:count, or one value, or a,b,c)."""
    grid = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--grid '{item}': write key=from:to:count, key=value or key=v1,v2,...")
        key, spec = item.split("=", 1)
        if key in grid:
            raise ValueError(f"--grid: '{key}' given twice")
        parts = spec.split(":")
        try:
            if len(parts) == 3:
                count = int(parts[2])
                if count < 1:
                    raise ValueError
                grid[key] = list(np.linspace(float(parts[0]), float(parts[1]), count))
            elif len(parts) == 1:
                grid[key] = [float(v) for v in spec.split(",")]
            else:
                raise ValueError
        except ValueError:
            raise ValueError(f"--grid '{item}': from:to:count needs two numbers and a positive integer count")
    return grid


def main(argv=None):
    """mechstudio-cli sweep (python3 -m mechstudio sweep): the command-line entry point."""
    import argparse
    import sys
    ap = argparse.ArgumentParser(prog="mechstudio-cli sweep", description="Parameter sweep on Dask (docs/scale-out.md).")
    ap.add_argument("model", help="a model file or scene:NAME")
    ap.add_argument("--grid", action="append", default=[], metavar="KEY=FROM:TO:COUNT", required=True)
    ap.add_argument("--metric", action="append", default=[], metavar="AGG(QUANTITY)")
    ap.add_argument("--duration", type=float)
    ap.add_argument("--steps", type=int)
    ap.add_argument("--dt", type=float)
    ap.add_argument("--integrator", default="vi")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler", metavar="ADDR")
    ap.add_argument("--csv", required=True, metavar="OUT")
    a = ap.parse_args(argv)
    try:
        if (a.duration is None) == (a.steps is None):
            raise ValueError("give exactly one of --duration and --steps")
        if a.workers < 1:
            raise ValueError("--workers must be at least 1")
        grid = _parse_grid(a.grid)
        metrics = a.metric or ["final(energy)", "max(constraint_violation)"]
        df = sweep(a.model, grid, metrics=metrics, duration=a.duration, steps=a.steps, dt=a.dt, integrator=a.integrator,
                   scheduler=a.scheduler, workers=a.workers, csv=a.csv)
    except (ValueError, TypeError, KeyError, OSError) as e:
        print(f"mechstudio-cli: error: {e}", file=sys.stderr)
        return 1
    failed = int(df["failed"].sum())
    print(f"mechstudio-cli sweep: {len(df)} rollouts, {failed} failed; wrote {a.csv}", file=sys.stderr)
    return 0

