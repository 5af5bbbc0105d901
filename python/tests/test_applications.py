# SPDX-License-Identifier: GPL-3.0-or-later
# The paper's two applications (python/examples): the results committed in models/ still hold with
# the engine as built. The learned gait (models/quadruped-learned.experiment) walks at least 10 %
# farther in 10 s than the hand-tuned gait of models/quadruped.mech without falling; the adapted
# exoskeleton gains (models/exoskeleton-adapted.experiment) keep both patients' elbow torque within
# 5 N m, where the original gains do so for the healthy patient only.
import importlib.util
import re

import numpy as np
import pytest


def example(source_dir, name):
    path = source_dir / "python" / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def settings(path):
    """The (set NAME VALUE) forms of an experiment file, as numbers."""
    return {k: float(v) for k, v in re.findall(r"\(set ([\w-]+) ([-0-9.e]+)\)", path.read_text())}


@pytest.fixture
def source_dir(models):
    return models.parent


def test_learned_gait_walks_farther_than_the_hand_tuned_one(source_dir, models):
    gait = example(source_dir, "quadruped_gait_learning")
    learned = settings(models / "quadruped-learned.experiment")
    assert set(learned) == set(gait.NAMES)
    hand = gait.distance([0.15, 0.15, -0.15, 0.4, -0.8])
    walked = gait.distance([learned[n] for n in gait.NAMES])
    # distance() is −inf for a fall or a failed step.
    assert np.isfinite(hand) and np.isfinite(walked)
    assert walked >= 1.1 * hand, (walked, hand)


def test_adapted_exoskeleton_gains_keep_the_elbow_torque_within_the_limit(source_dir, models):
    exo = example(source_dir, "exoskeleton_gains")
    adapted = settings(models / "exoskeleton-adapted.experiment")
    assert adapted["spasticity"] == exo.PATIENTS["spastic"] and 0 < adapted["scale"] < 1

    def largest(scale, patient):
        _, torque, _, _ = exo.run(scale, exo.PATIENTS[patient], 10.0)
        return float(np.abs(torque).max())

    assert largest(1.0, "healthy") <= exo.LIMIT
    assert largest(1.0, "spastic") > exo.LIMIT
    assert largest(adapted["scale"], "healthy") <= exo.LIMIT
    assert largest(adapted["scale"], "spastic") <= exo.LIMIT
