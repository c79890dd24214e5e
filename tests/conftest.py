"""Shared fixtures. Keep this small; the expected values live in the tests and reference.py."""

import numpy as np
import pytest


@pytest.fixture
def rng():
    """A fresh seeded generator per test, so that tests do not depend on their order."""
    return np.random.default_rng(20261129)


def pytest_terminal_summary(terminalreporter):
    """After a run that included tests/test_mutation.py, print the mutation score per chapter."""
    import sys

    module = sys.modules.get("test_mutation")
    if module is None or module.results.cache_info().currsize == 0:
        return
    terminalreporter.section("mutation score of the function checkers (tests/mutation.py)")
    terminalreporter.write_line(module.mutation.table(list(module.results().values())))
