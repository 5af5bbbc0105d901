#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Work-precision diagrams and tables from `mechstudio-peers --work-precision` (issue 33).

    build/benchmarks/peers/mechstudio-peers --work-precision > benchmarks/results/work-precision.csv
    python3 scripts/plot_work_precision.py benchmarks/results/work-precision.csv --images docs/images \
        --markdown > /tmp/tables.md

For every scenario: one figure (log-log, error against cost per simulated second, one line per engine
and integrator, one panel per error column) written as docs/images/work-precision-<scenario>.png;
with --markdown, for every error column and every decade of accuracy the cheapest run of each engine
that reaches it, which combination is cheapest, and our best integrator's cost against the best peer's.
A point that reaches an accuracy is a measured run whose error is at most that level (no
interpolation between time steps).
"""
import argparse
import csv
import math
import os
import re
import sys
from collections import defaultdict

ERRORS = ["trajectory_error_1s [m]", "energy_error_max [J]", "closure_max [m]", "penetration_max [m]",
          "penetration_rest [m]", "rebound [m]", "slide_error [m]"]
# Errors at or below this count as zero on a log axis (and in the tables: reached at any level).
FLOOR = 1e-13


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "us_per_sim_second" not in rows[0]:
        sys.exit(f"{path}: not a --work-precision CSV")
    return rows


def number(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def combos(rows):
    """scenario -> combination label -> [(dt, cost, {error: value})], ok rows only."""
    out = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["status"] != "ok":
            continue
        cost = number(r["us_per_sim_second"])
        if cost is None:
            continue
        label = f'{r["engine"]} {r["integrator"]}'
        errs = {e: number(r.get(e)) for e in ERRORS if number(r.get(e)) is not None}
        out[r["scenario"]][label].append((float(r["dt"]), cost, errs))
    return out


def plot(data, images):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(images, exist_ok=True)
    written = []
    for scenario, by_combo in data.items():
        cols = [e for e in ERRORS if any(e in errs for pts in by_combo.values() for _, _, errs in pts)]
        if not cols:
            continue
        fig, axes = plt.subplots(1, len(cols), figsize=(6.2 * len(cols), 4.8), squeeze=False)
        colours = plt.get_cmap("tab20").colors
        for ax, col in zip(axes[0], cols):
            for k, (label, pts) in enumerate(sorted(by_combo.items())):
                pts = sorted((c, max(errs[col], FLOOR)) for _, c, errs in pts if col in errs)
                if not pts:
                    continue
                ours = label.startswith("ours")
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker="o" if ours else "s",
                          linestyle="-" if ours else "--", markersize=4, label=label, color=colours[(2 * k) % 20 + k // 10])
            ax.set_xlabel("cost [µs of wall time per simulated second]")
            ax.set_ylabel(col)
            ax.set_title(f"{scenario}: {col.split(' [')[0].replace('_', ' ')}")
            ax.grid(True, which="both", alpha=0.3)
        axes[0][-1].legend(fontsize=7, loc="best")
        fig.tight_layout()
        name = "work-precision-" + re.sub(r"[^A-Za-z0-9]+", "-", scenario).strip("-") + ".png"
        fig.savefig(os.path.join(images, name), dpi=90)
        plt.close(fig)
        written.append(name)
    return written


def decades(values):
    """The decades from just above the median error (coarser levels only repeat the cheapest run,
    and a blown-up explicit run reaches any of them) down to the smallest error measured."""
    values = sorted(max(v, FLOOR) for v in values)
    lo = math.floor(math.log10(values[0]))
    hi = math.ceil(math.log10(values[len(values) // 2]))
    return [10.0 ** k for k in range(hi, lo - 1, -1)]


def tables(data):
    lines = []
    for scenario, by_combo in data.items():
        for col in ERRORS:
            values = [errs[col] for pts in by_combo.values() for _, _, errs in pts if col in errs]
            if not values:
                continue
            lines.append(f"\n**{scenario}, {col}**: the cheapest run reaching each level, in µs of wall time per "
                         "simulated second\n")
            lines.append("| level | ours: best | cost | peers: best | cost | ours / peers | our VI's cost |")
            lines.append("|---|---|---|---|---|---|---|")
            for level in decades(values):
                best = {}
                for label, pts in by_combo.items():
                    costs = [c for _, c, errs in pts if col in errs and errs[col] <= level]
                    if costs:
                        best[label] = min(costs)
                ours = {l: c for l, c in best.items() if l.startswith("ours")}
                peers = {l: c for l, c in best.items() if not l.startswith("ours")}
                if not ours and not peers:
                    continue
                o = min(ours, key=ours.get) if ours else None
                p = min(peers, key=peers.get) if peers else None
                ratio = f"{ours[o] / peers[p]:.2g}" if o and p else "—"
                vi = f"{best['ours vi']:.3g}" if "ours vi" in best else "—"
                lines.append(f"| ≤ {level:.0e} | {o[5:] if o else 'none'} | {f'{ours[o]:.3g}' if o else '—'} | "
                             f"{p or 'none'} | {f'{peers[p]:.3g}' if p else '—'} | {ratio} | {vi} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="the output of mechstudio-peers --work-precision")
    ap.add_argument("--images", help="directory for the figures (e.g. docs/images)")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown on stdout")
    a = ap.parse_args()
    data = combos(load(a.csv))
    if a.images:
        for name in plot(data, a.images):
            print(f"wrote {os.path.join(a.images, name)}", file=sys.stderr)
    if a.markdown:
        sys.stdout.write(tables(data))


if __name__ == "__main__":
    main()
