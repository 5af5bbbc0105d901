# SPDX-License-Identifier: GPL-3.0-or-later
# The Python module against the engine: the same trajectory as the C++ program, state and signals as
# arrays of the right shapes, inputs and a control callback, and every bad input as an exception.
import csv
import subprocess

import numpy as np
import pytest

import mechstudio


def test_double_pendulum_is_bit_identical_to_the_cli(models, cli, tmp_path):
    # mechstudio-cli writes every pose with 17 significant digits: the same doubles.
    poses = tmp_path / "poses.csv"
    subprocess.run([cli, "simulate", str(models / "double-pendulum.mech"), "--steps", "1000", "--poses", str(poses), "--quiet"],
                   check=True)
    rows = [r for r in csv.DictReader(open(poses)) if r["step"] == "1000"]
    sim = mechstudio.Simulation(str(models / "double-pendulum.mech"))
    out = sim.step(1000, poses=True)
    assert sim.steps == 1000 and sim.time == pytest.approx(10.0, abs=1e-12)
    for b, row in enumerate(rows):
        assert row["body"] == sim.body_names[b]
        assert [float(row[k]) for k in ("x", "y", "z")] == list(sim.positions[b])
        assert [float(row[k]) for k in ("qw", "qx", "qy", "qz")] == list(sim.orientations[b])
        assert np.array_equal(out["position"][-1, b], sim.positions[b])


def test_recorded_metrics_poses_and_signals(models):
    sim = mechstudio.Simulation("scene:chain", params={"n": 5})
    out = sim.step(200, record=True, poses=True, signals=["joint*.angle", "system.energy"])
    assert out["time"].shape == (200,) and out["time"][-1] == pytest.approx(2.0)
    assert out["position"].shape == (200, 5, 3) and out["orientation"].shape == (200, 5, 4)
    assert out["signals"].shape == (200, len(out["signal_names"]))
    assert out["signal_names"][-1] == "system.energy"
    # The energy signal is the metric; unit quaternions; the joints hold to the solver tolerance.
    assert np.allclose(out["signals"][:, -1], out["energy"], rtol=0, atol=1e-12)
    assert np.allclose(np.linalg.norm(out["orientation"], axis=2), 1.0, atol=1e-12)
    assert out["constraint_violation"].max() < 1e-9
    assert (out["iterations"] > 0).all()
    assert sim.positions.shape == (5, 3) and sim.velocities.shape == (5, 3) and sim.angular_velocities.shape == (5, 3)
    assert sim.joint_position(sim.joint_names[0]).shape == (1,)
    sim.reset()
    assert sim.steps == 0 and sim.time == 0


def test_text_models_parameters_and_integrators(models):
    text = (models / "pendulum.mech").read_text()
    a = mechstudio.Simulation.from_text(text, params={"angle": 0.3})
    b = mechstudio.load(str(models / "pendulum.mech"), angle="0.3")
    a.step(100)
    b.step(100)
    assert np.array_equal(a.positions, b.positions)
    assert a.joint_position("joint1")[0] != pytest.approx(0.3)  # it swung
    c = mechstudio.Simulation(str(models / "pendulum.mech"))
    c.set_integrator("rk4")
    assert c.integrator == "rk4"
    c.dt = 0.001
    c.step(10)
    assert c.time == pytest.approx(0.01)


def test_efforts_wrenches_and_the_control_callback(models):
    # A constant effort, and the same effort from a callback, give the same motion.
    a = mechstudio.Simulation(str(models / "pendulum.mech"))
    a.set_effort("joint1", 2.0)
    assert list(a.effort("joint1")) == [2.0]
    b = mechstudio.Simulation(str(models / "pendulum.mech"))
    calls = []

    def control(sim):
        calls.append(sim.time)
        return {"joint1": 2.0}

    b.set_control(control)
    a.step(50)
    b.step(50)
    assert len(calls) == 50
    assert np.array_equal(a.positions, b.positions)
    # A PD law from the joint state: the pendulum is held near 0.
    c = mechstudio.Simulation(str(models / "pendulum.mech"), params={"angle": 0.2})
    c.set_control(lambda s: {"joint1": -200 * s.joint_position("joint1")[0] - 20 * s.joint_velocity("joint1")[0]})
    c.step(300)
    assert abs(c.joint_position("joint1")[0]) < 0.02
    c.set_control(None)
    # A wrench on a free body accelerates it.
    d = mechstudio.Simulation("scene:free-body")
    d.gravity = np.zeros(3)
    x0 = d.positions[0].copy()
    d.set_wrench(0, np.array([1.0, 0, 0]), np.zeros(3))
    d.step(10)
    assert d.positions[0][0] > x0[0]


def test_bad_input_raises_with_the_engines_message(models, tmp_path):
    bad = tmp_path / "bad.mech"
    bad.write_text('(mechanism "m"\n  (body b (mass -1) (shape sphere 0.1)))\n')
    with pytest.raises(mechstudio.ModelError, match=r"bad.mech:2:\d+: error: .*mass"):
        mechstudio.Simulation(str(bad))
    with pytest.raises(mechstudio.ModelError, match="unknown model file type"):
        mechstudio.Simulation(str(tmp_path / "x.txt"))
    with pytest.raises(mechstudio.ModelError, match="has no parameter .nn."):
        mechstudio.Simulation("scene:chain", params={"nn": 3})
    with pytest.raises(mechstudio.ModelError):
        mechstudio.Simulation.from_text("(mechanism")
    sim = mechstudio.Simulation(str(models / "double-pendulum.mech"))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        sim.set_wrench("link1", np.zeros(2), np.zeros(3))
    with pytest.raises(KeyError, match="unknown joint 'nope'"):
        sim.set_effort("nope", 1.0)
    with pytest.raises(ValueError, match="1 coordinate"):
        sim.set_effort("joint1", [1.0, 2.0])
    with pytest.raises(ValueError, match="unknown integrator"):
        sim.set_integrator("leapfrog")
    with pytest.raises(ValueError):
        sim.dt = -1
    with pytest.raises(KeyError):
        sim.step(1, signals=["nothing.like.this"])
    with pytest.raises(TypeError):
        mechstudio.Simulation("scene:chain", params={"n": [1, 2]})
    # An exception in the control callback reaches Python; the simulation stays usable.
    sim.set_control(lambda s: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        sim.step(1)
    sim.set_control(lambda s: {"joint1": "x"})
    with pytest.raises(ValueError):
        sim.step(1)
    sim.set_control(None)
    sim.step(1)
    assert sim.steps == 1


def test_a_failed_step_raises_solver_error(models):
    sim = mechstudio.Simulation(str(models / "double-pendulum.mech"))
    sim.max_iterations = 1
    sim.tolerance = 1e-300
    with pytest.raises(mechstudio.SolverError, match=r"step 1"):
        sim.step(5)
