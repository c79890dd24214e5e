"""Run the unit tests and nbval on every Python the project claims, and on its lowest versions.

Usage: python tools/version_matrix.py [NAME ...]   (default: every entry of MATRIX)

``pyproject.toml`` claims Python >= 3.10 and lower bounds for each dependency. ``make test``
runs the newest versions on the Python that made ``.venv``; this script makes each other
claim true: for every entry it creates a virtual environment under ``.cache/matrix/NAME``
(pip only: no make), installs the project with the extras the unit tests and nbval need, and
runs both. The entry ``lowest`` installs every direct dependency at the lower bound that
pyproject.toml states (``name==bound``: what uv calls ``--resolution lowest-direct``); the
others take the newest versions. The browser tests need JupyterLab and Chromium, and stay in
``make test``. CI runs this script after ``make test`` (``.ci/run``).

The environments are set up side by side (pip waits mostly on downloads and disk) from the
project's wheel, built once; then, one entry at a time, the source tree replaces the wheel's
copy (``pip install -e --no-deps``, as ``make test`` has it) and the tests run, each across
WORKERS processes (nbval by notebook, ``--dist loadfile``: each notebook keeps one kernel and
its order).

A Python is found as pyenv installs it (``~/.pyenv/versions/3.X.*/bin/python``) or as
``python3.X`` on the PATH; a missing one is an error in CI (``CI`` set) and a skip elsewhere.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = "test"  # everything make test installs; only the browser tests are not run here
WORKERS = os.environ.get("WORKERS", "2")  # pytest-xdist workers for the unit tests
MATRIX = {  # name: (Python minor version, lowest direct dependencies?)
    "lowest": ("3.10", True),
    "py3.10": ("3.10", False),
    "py3.12": ("3.12", False),
    "py3.13": ("3.13", False),
}
BOUND = re.compile(r"^\s*([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*>=\s*([0-9][^,;\s]*)")


def find_python(minor):
    """The path of a Python ``minor`` ("3.10"), or None."""
    found = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{minor}.*/bin/python")))
    return found[-1] if found else shutil.which(f"python{minor}")


def lowest_pins(pyproject_text):
    """``name==bound`` for every ``name>=bound`` requirement of pyproject.toml's project.

    >>> lowest_pins('dependencies = ["numpy>=1.26"]\\ndev = ["pytest>=8", "ruff>=0.6,<1"]')
    ['numpy==1.26', 'pytest==8', 'ruff==0.6']
    """
    project = pyproject_text.split("[project]", 1)[-1].split("\n[tool.", 1)[0]
    pins = []
    for requirement in re.findall(r'"([^"]+)"', project):
        if requirement.startswith("attn-core") or ";" in requirement:
            continue
        match = BOUND.match(requirement)
        if match:
            pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


def run(command, log, **kwargs):
    """Run ``command``, its output appended to ``log``; its return code."""
    with open(log, "a", encoding="utf-8") as out:
        out.write("\n+ " + " ".join(map(str, command)) + "\n")
        out.flush()
        return subprocess.call(command, stdout=out, stderr=subprocess.STDOUT, **kwargs)


def build_wheel():
    """The project's wheel, built once (setuptools writes ``attn_core.egg-info`` into the source
    tree, so builds must not run side by side); its path, or None."""
    wheels = ROOT / ".cache" / "matrix" / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    wheels.mkdir(parents=True)
    log = wheels.parent / "wheel.log"
    log.write_text("the project's wheel\n", encoding="utf-8")
    pip = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir"]
    if run([*pip, str(wheels), str(ROOT)], log):
        return None
    found = sorted(wheels.glob("*.whl"))
    return found[0] if found else None


def set_up_entry(name, minor, lowest, wheel):
    """Create the environment of one entry with the dependencies of ``wheel``'s test extra;
    (True, "") when done, else (None or False, why)."""
    python = find_python(minor)
    if python is None:
        return None, f"no Python {minor} found"
    venv = ROOT / ".cache" / "matrix" / name
    log = venv.parent / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"{name}: Python {minor} ({python}), lowest={lowest}\n", encoding="utf-8")
    if not (venv / "bin" / "python").exists():
        if run([python, "-m", "venv", str(venv)], log):
            return False, f"venv failed (see {log})"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    constraints = []
    if lowest:
        pins = lowest_pins((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        pin_file = venv / "lowest-constraints.txt"
        pin_file.write_text("\n".join(pins) + "\n", encoding="utf-8")
        constraints = ["--constraint", str(pin_file)]
    if run([*pip, "--upgrade", "pip"], log) or run([*pip, *constraints, f"{wheel}[{EXTRAS}]"], log):
        return False, f"install failed (see {log})"
    return True, ""


def failures(log, most=20):
    """pytest's summary lines of the failed tests in ``log``, indented, for a run whose log is
    left behind on another machine (CI prints only what this script prints)."""
    lines = Path(log).read_text(encoding="utf-8", errors="replace").splitlines()
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    return "".join(f"\n    {line}" for line in failed[:most])


def test_entry(name):
    """Run the unit tests and nbval of one set-up entry; (passed, what happened)."""
    venv = ROOT / ".cache" / "matrix" / name
    log = venv.parent / f"{name}.log"
    python = str(venv / "bin" / "python")
    # The source tree in place of the wheel's copy, as `make test` installs it (its egg-info
    # is written once more, so entries install it one after another).
    if run([python, "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(ROOT)], log):
        return False, f"install failed (see {log})"
    env = {**os.environ, "PYTHONPATH": ""}
    pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    unit = [*pytest, "tests", "attn_core", "attn_book", "--doctest-modules"]
    unit += ["--ignore=tests/browser", "-n", WORKERS]  # pytest-xdist, as make test runs them
    nbval = [*pytest, "--nbval", "book", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg"]
    nbval += ["-n", WORKERS, "--dist", "loadfile"]  # one kernel per notebook, in its order
    # The Korean notebooks run the English chapters' code (tests/test_korean.py holds it equal)
    # and store the English outputs, their words aside: `make test` runs them under nbval once;
    # here each computation runs once per entry, in the English notebook.
    nbval += ["--ignore=book/ko"]
    for what, command in (("unit tests", unit), ("nbval", nbval)):
        if run(command, log, cwd=ROOT, env=env):
            return False, f"{what} failed (see {log}){failures(log)}"
    versions = subprocess.run(
        [python, "-c", VERSIONS], capture_output=True, text=True, check=False
    ).stdout.strip()
    return True, f"unit tests and nbval passed ({versions})"


VERSIONS = (
    "import sys, importlib.metadata as m; print('Python', sys.version.split()[0], *("
    "f'{p} {m.version(p)}' for p in ('numpy', 'matplotlib', 'anywidget', 'ipywidgets', "
    "'hypothesis', 'jupyter-book')), sep=', ')"
)


def main(names):
    unknown = set(names) - set(MATRIX)
    if unknown:
        sys.exit(f"unknown entries {sorted(unknown)}; the matrix has {sorted(MATRIX)}")
    names = names or list(MATRIX)
    start = time.perf_counter()
    wheel = build_wheel()
    if wheel is None:
        print("version matrix: the project's wheel failed (see .cache/matrix/wheel.log)")
        return 1
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        jobs = {name: pool.submit(set_up_entry, name, *MATRIX[name], wheel) for name in names}
        set_up = {name: job.result() for name, job in jobs.items()}
    print(
        f"version matrix: {len(names)} environments set up in {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    failed = []
    for name in names:
        passed, what = set_up[name]
        start = time.perf_counter()
        if passed:
            passed, what = test_entry(name)
        took = time.perf_counter() - start
        print(f"{name}: {what} in {took:.0f} s", flush=True)
        if passed is False or (passed is None and os.environ.get("CI")):
            failed.append(name)
    if failed:
        print(f"version matrix: {', '.join(failed)} failed")
        return 1
    print("version matrix: every entry passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
