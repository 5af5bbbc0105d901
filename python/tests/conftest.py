# SPDX-License-Identifier: GPL-3.0-or-later
# Paths for the tests: the source tree (models/, tests/data) and the CLI built beside the module
# (set by CTest: MECHSTUDIO_SOURCE_DIR, MECHSTUDIO_CLI).
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("MECHSTUDIO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def models():
    return SOURCE_DIR / "models"


@pytest.fixture
def cli():
    path = os.environ.get("MECHSTUDIO_CLI")
    if not path:
        pytest.skip("MECHSTUDIO_CLI is not set (run through ctest)")
    return path
