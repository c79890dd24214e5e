"""Shared fixtures. Keep this small; the expected values live in the tests and reference.py."""

import os

import numpy as np
import pytest


@pytest.fixture
def rng():
    """A fresh seeded generator per test, so that tests do not depend on their order."""
    return np.random.default_rng(20261129)


def _model_path():
    """Chapter 13's model file: skipped with the reason (the command that fetches it) when it is
    absent, failed instead under ATTN_REQUIRE_MODEL=1 (`make test-unit`, which fetches it)."""
    from attn_book import model

    try:
        return model.require_model()
    except model.ModelMissingError as e:
        if os.environ.get("ATTN_REQUIRE_MODEL") == "1":
            raise
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def real_gguf():
    """The real model's GGUF file, read (its tensors stay on disk until dequantised)."""
    from attn_book import gguf

    return gguf.read_gguf(_model_path())


def pytest_terminal_summary(terminalreporter):
    """After a run that included tests/test_mutation.py, print the mutation score per chapter."""
    import sys

    module = sys.modules.get("test_mutation")
    if module is None or module.results.cache_info().currsize == 0:
        return
    terminalreporter.section("mutation score of the function checkers (tests/mutation.py)")
    terminalreporter.write_line(module.mutation.table(list(module.results().values())))
