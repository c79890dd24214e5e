"""Shared fixtures. Keep this small; the expected values live in the tests and reference.py."""

import numpy as np
import pytest


@pytest.fixture
def rng():
    """A fresh seeded generator per test, so that tests do not depend on their order."""
    return np.random.default_rng(20261129)
