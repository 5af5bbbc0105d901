# SPDX-License-Identifier: GPL-3.0-or-later
"""MechStudio from Python: load a mechanism, step it with the variational integrator (or a baseline),
and read its state, metrics and signals as NumPy arrays.

    import mechstudio
    sim = mechstudio.Simulation("models/double-pendulum.mech", params={"angle": 0.5})
    out = sim.step(1000, record=True, signals=["joint*.angle"])
    out["energy"], out["signals"]        # per-step arrays

See docs/python.md.
"""
from ._mechstudio import MechStudioError, ModelError, Simulation, SolverError
from . import sweep as sweep_module
from .sweep import sweep

__all__ = ["Simulation", "MechStudioError", "ModelError", "SolverError", "load", "sweep"]


def load(source, **params):
    """A Simulation of a model file or "scene:NAME", with parameters as keyword arguments."""
    return Simulation(source, params=params)
