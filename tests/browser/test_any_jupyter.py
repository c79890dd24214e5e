"""Any Jupyter the reader starts: a fresh environment installed with pip alone (no make).

``pip install ".[lab]"`` into a new virtual environment (no system site-packages; pip's own
cache serves what an earlier run downloaded), then ``jupyter lab`` and ``jupyter notebook``
(Notebook 7) from that environment, with an empty Jupyter config folder of their own: no
``make lab``, no ``PYTHONPATH``, nothing of this repository but the installed package. Both
open chapter 4 from a git repository holding a copy of book/ and must show what ``make lab``
shows: the worked example's numbers in the prose, its figures as pictures before anything
runs, every Hangul character drawn by the book's font (``/custom/custom.css``, served by the
package's server extension); saving without an edit leaves ``git status`` clean (the
pre-save hook). The install's time is printed (``-s``).

Slow (a minute or more to install), so it is marked ``fresh_env`` besides ``browser``; set
``ATTN_SKIP_FRESH_ENV=1`` to leave it out, ``ATTN_FRESH_ENV=DIR`` to reuse a venv made before.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_lab_reading import CAPTION, WORKED_EXAMPLE, git, markdown_text, scroll_through

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = "04_worked_example"
SOURCES = ["pyproject.toml", "README.md", "LICENSE", "attn_core", "attn_book", "jupyter-config"]
URLS = {"lab": "lab/tree/{}.ipynb", "notebook": "notebooks/{}.ipynb"}

pytestmark = pytest.mark.fresh_env


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)
    if result.returncode:
        pytest.fail(f"{' '.join(map(str, cmd))} failed:\n{result.stderr[-3000:]}")
    return result


def clean_env(**extra):
    """The environment without this repository on PYTHONPATH or a virtualenv of ours."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    return {**env, **extra}


@pytest.fixture(scope="module")
def fresh_env(tmp_path_factory, browser, request):
    """A new venv with ``attn-core[lab]`` installed by pip from a copy of the sources."""
    if os.environ.get("ATTN_SKIP_FRESH_ENV") == "1":
        pytest.skip("ATTN_SKIP_FRESH_ENV=1")
    if os.environ.get("ATTN_FRESH_ENV"):  # reuse a venv made by an earlier run (debugging)
        return Path(os.environ["ATTN_FRESH_ENV"])
    base = tmp_path_factory.mktemp("fresh-env")
    src = base / "src"
    src.mkdir()
    for name in SOURCES:  # a copy: pip builds in place and would leave build/ in the tree
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(path, src / name)
    venv = base / "venv"
    start = time.perf_counter()
    run([sys.executable, "-m", "venv", str(venv)], env=clean_env())
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    run([*pip, f"{src}[lab]"], env=clean_env())
    seconds = time.perf_counter() - start
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"[fresh env] python -m venv + pip install .[lab]: {seconds:.0f} s")
    return venv


@pytest.fixture(scope="module")
def book_copy(tmp_path_factory):
    work = tmp_path_factory.mktemp("fresh-book")
    for path in (ROOT / "book").iterdir():
        if path.suffix in {".py", ".ipynb", ".md", ".toml"} and not path.name.startswith("."):
            shutil.copy(path, work / path.name)
    (work / ".gitignore").write_text(".ipynb_checkpoints/\n")
    git("init", "-q", cwd=work)
    git("add", "-A", cwd=work)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "book", cwd=work)
    return work


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(venv, app, root, state):
    """``jupyter <app>`` of the fresh venv; returns (process, base URL)."""
    settings = state / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True, exist_ok=True)  # render every cell, not only those in view
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    port = free_port()
    env = clean_env(
        JUPYTER_CONFIG_DIR=str(state / "config"),  # a reader with no config of their own
        JUPYTER_RUNTIME_DIR=str(state / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(state / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(state / "workspaces"),
    )
    cmd = [
        str(venv / "bin" / f"jupyter-{app}"), "--no-browser", f"--port={port}",
        "--ServerApp.ip=127.0.0.1", "--allow-root", "--IdentityProvider.token=",
        "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
        f"--ServerApp.root_dir={root}",
    ]  # fmt: skip
    log = open(state / f"{app}.log", "w")  # closed with the process
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/"
    for _ in range(240):
        try:
            urllib.request.urlopen(base + "api/status", timeout=1)
            return proc, base
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    proc.kill()
    pytest.fail(f"jupyter {app} did not start: {(state / f'{app}.log').read_text()[-2000:]}")


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_a_pip_installed_jupyter_reads_chapter_4_as_make_lab_does(
    fresh_env, book_copy, tmp_path, app, page, glyphs
):
    proc, base = start(fresh_env, app, book_copy, tmp_path)
    try:
        css = urllib.request.urlopen(base + "custom/custom.css", timeout=10).read()
        assert b"@font-face" in css, f"jupyter {app} serves no book font at /custom/custom.css"
        page.set_viewport_size({"width": 1300, "height": 1000})
        page.goto(base + URLS[app].format(CHAPTER), wait_until="load")
        page.wait_for_selector(".jp-NotebookPanel .jp-MarkdownCell .myst", timeout=90_000)
        page.wait_for_timeout(2000)  # jupyterlab-myst renders the Markdown cells asynchronously
        scroll_through(page)
        text = markdown_text(page)
        missing = [n for n in WORKED_EXAMPLE if n not in text]
        assert missing == [], f"jupyter {app}: chapter 4's prose lacks {missing}"
        bold = page.locator(".jp-OutputArea-output strong").all_inner_texts()
        captions = sum(bool(CAPTION.match(t.strip())) for t in bold)
        pictures = page.locator(".jp-OutputArea-output img").count()
        assert captions > 0 and pictures >= captions, (app, captions, pictures)
        checked, boxes = glyphs(page)
        assert checked["prose"] > 0, f"jupyter {app}: no Hangul to check"
        assert boxes == [], f"jupyter {app}: Hangul no font of the book drew: {boxes[:3]}"

        page.locator(".jp-NotebookPanel .jp-Notebook").first.click()
        saving = f"/api/contents/{CHAPTER}.ipynb"
        with page.expect_response(lambda r: r.request.method == "PUT" and saving in r.url) as put:
            page.keyboard.press("Control+s")
        assert put.value.ok, f"jupyter {app}: saving failed, HTTP {put.value.status}"
        page.wait_for_timeout(1000)
        status = git("status", "--porcelain", cwd=book_copy).stdout
        assert status == "", f"jupyter {app}: saving without an edit changed files:\n{status}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
