"""Let `make test-fast` run with the `dev` extra alone (numpy, pytest, hypothesis, ruff).

With ``ATTN_SKIP_MISSING_EXTRAS=1`` (set by `make test-fast`), a test module, doctest module
or test that fails only because an optional package is not installed is reported as skipped,
naming the extra that installs it. Without the variable (`make test`, CI) a missing package
stays a failure, so an extra that lost a dependency cannot turn tests into silent skips.
"""

from __future__ import annotations

import os
import re

import pytest

# Top-level module -> the pyproject.toml extra that installs it.
OPTIONAL_MODULES = {
    "anywidget": "widgets",
    "ipywidgets": "widgets",
    "traitlets": "widgets",
    "IPython": "widgets",
    "matplotlib": "book",
    "jupytext": "book",
    "nbformat": "book",
    "nbclient": "book",
    "sphinx": "book",
    "myst_nb": "book",
    "playwright": "browser",
    "yaml": "test",
    "packaging": "test",
    "nbval": "test",
}
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


def _skipping():
    return os.environ.get("ATTN_SKIP_MISSING_EXTRAS") == "1"


def _skip_reason(module):
    """The skip message for a missing ``module``, or None when it is not optional."""
    top = module.split(".")[0]
    if top not in OPTIONAL_MODULES:
        return None
    extra = OPTIONAL_MODULES[top]
    return f"needs {top}, from the `{extra}` extra (pip install -e '.[{extra}]')"


def _as_skipped(report, reason):
    report.outcome = "skipped"
    report.longrepr = (str(report.fspath), 0, f"Skipped: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """A module that cannot be imported for want of an optional package: skipped."""
    report = yield
    result = report.get_result()
    if _skipping() and result.failed:
        found = _NO_MODULE.search(str(result.longrepr))
        reason = found and _skip_reason(found.group(1))
        if reason:
            _as_skipped(result, reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that imports an optional package as it runs: skipped."""
    report = yield
    result = report.get_result()
    error = call.excinfo.value if call.excinfo else None
    if error is not None and hasattr(error, "exc_info"):  # doctest.UnexpectedException
        error = error.exc_info[1]
    if _skipping() and result.failed and isinstance(error, ModuleNotFoundError):
        reason = _skip_reason(error.name or "")
        if reason:
            _as_skipped(result, reason)
