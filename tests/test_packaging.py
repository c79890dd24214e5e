"""pyproject.toml is the one list of dependencies; environment.yml installs the same set."""

import sys
from pathlib import Path

import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
ENV = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def pyproject_requirements(python_version):
    """Every requirement of the project and all its extras, self-references expanded."""
    name = canonicalize_name(PROJECT["name"])
    marker_env = {**default_environment(), "python_version": python_version}
    found = {}
    extras = PROJECT["optional-dependencies"].values()
    for req in [*PROJECT["dependencies"], *(r for extra in extras for r in extra)]:
        req = Requirement(req)
        if canonicalize_name(req.name) == name:
            continue  # "attn-core[book]" inside another extra
        if req.marker is None or req.marker.evaluate(marker_env):
            found[canonicalize_name(req.name)] = str(req.specifier)
    return found


def environment_requirements():
    """Conda packages of environment.yml as {name: specifier}, minus python and pip."""
    found = {}
    for dep in ENV["dependencies"]:
        if isinstance(dep, dict) or dep.split("=")[0] in {"python", "pip"}:
            continue
        req = Requirement(dep)
        found[canonicalize_name(req.name)] = str(req.specifier)
    return found


def conda_python_version():
    (pin,) = [d for d in ENV["dependencies"] if isinstance(d, str) and d.startswith("python=")]
    return pin.split("=", 1)[1]


def test_environment_yml_lists_exactly_the_pyproject_dependencies():
    wanted = pyproject_requirements(conda_python_version())
    have = environment_requirements()
    assert have.keys() == wanted.keys(), (
        f"only in pyproject.toml: {sorted(wanted.keys() - have.keys())}; "
        f"only in environment.yml: {sorted(have.keys() - wanted.keys())}"
    )
    differing = {n: (wanted[n], have[n]) for n in wanted if wanted[n] != have[n]}
    assert not differing, f"version bounds differ (pyproject, environment.yml): {differing}"


def test_environment_yml_installs_the_package_itself():
    """Not editable: an editable install skips data files, the book's Jupyter config."""
    pip_section = next(d["pip"] for d in ENV["dependencies"] if isinstance(d, dict))
    assert pip_section == ["."], f"environment.yml's pip section is {pip_section}"


def test_conda_python_satisfies_requires_python():
    from packaging.specifiers import SpecifierSet

    assert conda_python_version() in SpecifierSet(PROJECT["requires-python"])


def _self_references(extra):
    """The extras an extra pulls in through ``attn-core[...]``."""
    name = canonicalize_name(PROJECT["name"])
    reqs = (Requirement(r) for r in PROJECT["optional-dependencies"][extra])
    return {e for r in reqs if canonicalize_name(r.name) == name for e in r.extras}


def test_every_extra_that_an_extra_names_exists():
    extras = PROJECT["optional-dependencies"]
    unknown = {e: _self_references(e) - extras.keys() for e in extras}
    assert not any(unknown.values()), f"extras that name undefined extras: {unknown}"


def test_the_fast_tests_need_only_numpy_pytest_hypothesis_and_ruff():
    # `make test-fast` installs `.[dev]`; the issue asks for numpy, pytest and hypothesis
    # (plus ruff, which `make lint` runs first).
    dev = {canonicalize_name(Requirement(r).name) for r in PROJECT["optional-dependencies"]["dev"]}
    runtime = {canonicalize_name(Requirement(r).name) for r in PROJECT["dependencies"]}
    assert _self_references("dev") == set()
    assert dev == {"pytest", "hypothesis", "ruff"} and runtime == {"numpy"}


def test_the_test_extra_installs_every_other_extra():
    """What CI runs (`make test`) has every extra, so no extra goes untested."""
    closure, todo = set(), ["test"]
    while todo:
        extra = todo.pop()
        closure.add(extra)
        todo += sorted(_self_references(extra) - closure)
    assert closure == set(PROJECT["optional-dependencies"])


def test_the_version_is_written_once_and_read_from_the_installed_metadata():
    import importlib.metadata

    import attn_core

    assert attn_core.__version__ == PROJECT["version"]
    assert importlib.metadata.version(PROJECT["name"]) == PROJECT["version"]
    source = (ROOT / "attn_core" / "__init__.py").read_text(encoding="utf-8")
    assert PROJECT["version"] not in source, "attn_core/__init__.py repeats the version"
