#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Cost of stepping from Python against the C++ benchmark (issue 18: at most 1.2x).

The same case as mechstudio-bench's row chain/revolute/n=10: the 10-link revolute chain scene, reset,
then 1000 steps, timed without the reset; 20 repetitions, best and median per step. Python steps
with one call, sim.step(1000) (the loop runs in C++). Usage (from the source tree, after a build with
-DMECHSTUDIO_BUILD_PYTHON=ON):

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_step.py --bench build/benchmarks/mechstudio-bench

Exits 1 when the best Python time per step is more than --limit (1.2) times the C++ one.
"""
import argparse
import csv
import io
import statistics
import subprocess
import sys
import time

import mechstudio


def cpp_us_per_step(bench):
    out = subprocess.run([bench, "--benchmark_filter=^chain/revolute/n=10/"], check=True, capture_output=True,
                         text=True).stdout
    # mechstudio-bench prints its table as CSV on standard output.
    for row in csv.DictReader(io.StringIO(out)):
        if (row["family"], row["variant"], row["size"]) == ("chain", "revolute", "n=10"):
            return float(row["us_per_step_best"]), float(row["us_per_step_median"])
    sys.exit("python_step.py: no chain/revolute/n=10 row in the benchmark output:\n" + out)


def python_us_per_step(reps, steps):
    sim = mechstudio.Simulation("scene:chain", params={"n": 10, "joint": "revolute"})
    times = []
    for _ in range(reps):
        sim.reset()
        t0 = time.perf_counter()
        sim.step(steps)
        times.append((time.perf_counter() - t0) / steps * 1e6)
    return min(times), statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="path of mechstudio-bench")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--limit", type=float, default=1.2)
    a = ap.parse_args()
    cpp_best, cpp_median = cpp_us_per_step(a.bench)
    py_best, py_median = python_us_per_step(a.reps, 1000)
    ratio = py_best / cpp_best
    print(f"chain of 10 links, 1000 steps per call: C++ {cpp_best:.2f} us/step best ({cpp_median:.2f} median), "
          f"Python {py_best:.2f} us/step best ({py_median:.2f} median): {ratio:.3f}x (limit {a.limit}x)")
    return 0 if ratio <= a.limit else 1


if __name__ == "__main__":
    sys.exit(main())
