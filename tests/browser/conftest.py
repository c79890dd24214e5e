"""Shared fixtures for the browser tests: the built site, served locally, in headless Chromium.

How to use them
---------------
Build the site first (``make book``, or ``python tools/build_book.py``), then run
``pytest tests/browser``. Set ``ATTN_SITE_DIR`` to test another build (the folder that holds
``index.html``, e.g. ``/tmp/build-me/_build/html``).

In a test::

    def test_heatmap(page, site):
        page.goto(site.url("book/02_softmax.html"))
        page.wait_for_selector(".attn-widget svg")
        assert not page.errors            # console errors and uncaught page errors
        assert not page.failed_requests   # requests that failed or answered >= 400
        assert all(site.is_local(u) for u in page.requests)

Fixtures
--------
``site_dir``
    ``pathlib.Path`` of the built HTML (session).
``site``
    A :class:`Site` serving ``site_dir`` on ``127.0.0.1`` with a threaded ``http.server`` on a
    free port, stopped at the end of the session. ``site.url(rel)`` makes an absolute URL.
``browser``
    Debian's Chromium (``/usr/bin/chromium``) launched by Python playwright with a fresh
    user-data-dir (session). Never run ``playwright install``.
``glyphs``
    ``glyphs(page)`` lists the text the shipped fonts did not draw: every rendered text node
    with Hangul whose Hangul was not all drawn by a web font (Chromium's DevTools protocol,
    ``CSS.getPlatformFontsForNode``, reports per node which fonts drew how many glyphs).
    Headless Chromium here has no Korean system font, so such text shows as boxes.
``page``
    A new page per test (requests to any host but 127.0.0.1 are aborted), recording
    ``page.requests`` (every URL asked for),
    ``page.failed_requests`` (``(url, reason)``), ``page.console_errors``,
    ``page.page_errors`` and ``page.errors`` (both, in order). Call ``page.wait_for_math()``
    to wait for MathJax to finish typesetting, ``page.wait_for_widgets()`` for every widget
    view to have drawn into its output area, ``page.settle()`` for no request in flight
    for half a second (``page.in_flight``).
``new_page``
    ``with new_page() as page:`` the same kind of page, for a fixture of a wider scope (a
    page loaded once and read by several tests: ``loaded`` in test_site.py).
``axe_source``
    The path of axe-core's script in ``node_modules/`` (package-lock.json), for the audit.
``lab_book``
    ``(base URL, folder)``: JupyterLab set up as ``make lab`` sets it up, serving a git copy
    of book/ (module scope; test_lab_reading.py, test_lab_run_all.py).

When Chromium, playwright or the built site is missing, these tests are skipped with a
message; with ``ATTN_REQUIRE_BROWSER=1`` (set by ``.ci/run``) they fail instead.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
HOST = "127.0.0.1"
_NOT_LOCAL = re.compile(r"^(?!http://127\.0\.0\.1[:/])[a-z]+://")


def _unavailable(reason):
    """Skip the test, or fail it when ATTN_REQUIRE_BROWSER=1 (CI)."""
    if os.environ.get("ATTN_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (ATTN_REQUIRE_BROWSER=1, so this is a failure)", pytrace=False)
    pytest.skip(reason)


def pytest_collection_modifyitems(items):
    """Mark every test in this folder as ``browser``."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serve files without logging every request to stderr."""

    extensions_map = {  # noqa: RUF012 - the base class defines it as a plain dict too
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "application/javascript",
        ".mjs": "application/javascript",
        ".woff": "font/woff",
        ".woff2": "font/woff2",
        ".ipynb": "application/json",
        ".py": "text/plain",
    }

    def log_message(self, format, *args):
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # A page asks for dozens of files at once over HTTP/1.0 (a connection each); the
    # default listen backlog of 5 can overflow on a busy machine, and a dropped connection
    # is retried by the kernel after 1, 2, 4, 8, 16 s.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        """Ignore a browser closing a connection early; report anything else."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Site:
    """A built site served on 127.0.0.1 (see the module docstring)."""

    def __init__(self, root):
        self.root = Path(root)
        handler = functools.partial(_QuietHandler, directory=str(self.root))
        self._server = _Server((HOST, 0), handler)  # port 0: the OS picks a free one
        self.port = self._server.server_address[1]
        self.base = f"http://{HOST}:{self.port}/"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, rel=""):
        """Absolute URL of ``rel``, a path relative to the site root."""
        return self.base + str(rel).lstrip("/")

    def is_local(self, url):
        """True for URLs served by this site (and ``data:``/``blob:``/``about:`` ones)."""
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            return True
        return parts.hostname == HOST and parts.port == self.port

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture(scope="session")
def site_dir():
    """The built HTML: $ATTN_SITE_DIR, else _build/html at the repository root."""
    path = Path(os.environ.get("ATTN_SITE_DIR", ROOT / "_build" / "html"))
    if not (path / "index.html").is_file():
        _unavailable(f"no built site at {path} (run `make book` or set ATTN_SITE_DIR)")
    return path


@pytest.fixture(scope="session")
def axe_source():
    """axe-core's script, from node_modules/ (package-lock.json; tests/browser/axe_audit.py)."""
    axe = ROOT / "node_modules" / "axe-core" / "axe.min.js"
    if not axe.is_file():
        message = f"{axe} is missing: run `npm ci --ignore-scripts` (package-lock.json)"
        _unavailable(message)
    return axe


@pytest.fixture(scope="session")
def site(site_dir):
    """Serve ``site_dir`` on 127.0.0.1 for the whole session."""
    server = Site(site_dir)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium via playwright, with a fresh user-data-dir."""
    if not os.access(CHROMIUM, os.X_OK):
        _unavailable(f"{CHROMIUM} not found (Debian package `chromium`)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Python playwright is not installed (pip install playwright)")
    profile = tempfile.mkdtemp(prefix="attn-chromium-")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 900},
            service_workers="block",
        )
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


def _record(page):
    """Attach lists that record the page's traffic and errors."""
    page.requests, page.failed_requests = [], []
    page.console_errors, page.page_errors, page.errors = [], [], []

    def on_response(response):
        if response.status >= 400:
            page.failed_requests.append((response.url, f"HTTP {response.status}"))

    def on_console(message):
        if message.type == "error":
            text = f"console: {message.text} @ {message.location.get('url')}"
            page.console_errors.append(text)
            page.errors.append(text)

    def on_pageerror(error):
        page.page_errors.append(str(error))
        page.errors.append(f"pageerror: {error}")

    page.in_flight = {}  # request -> (url, when it started)

    def on_request(request):
        page.requests.append(request.url)
        page.in_flight[request] = (request.url, time.monotonic())

    def on_failed(request):
        page.in_flight.pop(request, None)
        page.failed_requests.append((request.url, request.failure))

    page.on("request", on_request)
    page.on("requestfinished", lambda r: page.in_flight.pop(r, None))
    page.on("requestfailed", on_failed)
    page.on("response", on_response)
    page.on("console", on_console)
    page.on("pageerror", on_pageerror)


HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7a3\ud7b0-\ud7ff]")
WIDGET_CLASSES = ("widget-subarea", "abh-fig")


def _text_nodes(node, ancestors=()):
    """Yield ``(text node, ancestor elements)`` of a DOM.getDocument tree, shadow roots too."""
    if node.get("nodeType") == 3:
        yield node, ancestors
        return
    here = (*ancestors, node) if node.get("nodeType") == 1 else ancestors
    for child in [*node.get("shadowRoots", []), *node.get("children", [])]:
        yield from _text_nodes(child, here)
    if "contentDocument" in node:
        yield from _text_nodes(node["contentDocument"], here)


def _describe(ancestors):
    """A short CSS-like path of the nearest ancestors, e.g. ``th.head > p``."""
    parts = []
    for element in ancestors[-3:]:
        attrs = dict(zip(element["attributes"][::2], element["attributes"][1::2], strict=True))
        classes = ".".join(attrs.get("class", "").split()[:2])
        parts.append(element["localName"] + (f".{classes}" if classes else ""))
    return " > ".join(parts)


def _in_widget(ancestors):
    """True for text inside a widget's output area (a figure, not prose)."""
    for element in ancestors:
        attrs = dict(zip(element["attributes"][::2], element["attributes"][1::2], strict=True))
        if any(c in attrs.get("class", "").split() for c in WIDGET_CLASSES):
            return True
    return False


def missing_glyphs(page):
    """Rendered text whose Hangul the page's web fonts did not draw (see ``glyphs``).

    Returns ``(checked, missing)``: how many rendered text nodes with Hangul were checked,
    split ``{"prose": n, "widget": m}``, and a list of dicts, one per node with boxes:
    ``text`` (shortened), ``where`` (its element path), ``widget`` (inside a figure),
    ``hangul`` (how many Hangul characters) and ``fonts`` (``family: glyphs`` as Chromium
    reports them). Text that is not laid out (``display: none``, ``<head>``) has no fonts
    and is not counted.
    """
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        found, checked = [], {"prose": 0, "widget": 0}
        for node, ancestors in _text_nodes(root):
            hangul = len(HANGUL.findall(node.get("nodeValue", "")))
            if not hangul:
                continue
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
            by_web_font = sum(f["glyphCount"] for f in fonts if f["isCustomFont"])
            in_widget = _in_widget(ancestors)
            checked["widget" if in_widget else "prose"] += bool(fonts)
            if fonts and by_web_font < hangul:
                found.append(
                    {
                        "text": node["nodeValue"].strip()[:60],
                        "where": _describe(ancestors),
                        "widget": in_widget,
                        "hangul": hangul,
                        "fonts": [f"{f['familyName']}: {f['glyphCount']}" for f in fonts],
                    }
                )
        return checked, found
    finally:
        cdp.detach()


@pytest.fixture
def glyphs():
    """``glyphs(page)``: the text the shipped fonts did not draw (module docstring)."""
    return missing_glyphs


def _wait_for_math(page, timeout=20_000):
    """Wait until MathJax 3 has finished typesetting the page (returns at once without MathJax)."""
    page.wait_for_load_state("load")
    has_mathjax = page.evaluate("() => Boolean(window.MathJax)")
    if not has_mathjax:
        return
    try:
        page.wait_for_function(
            "() => window.MathJax.startup && window.MathJax.startup.promise", timeout=timeout
        )
    except Exception as error:  # playwright's TimeoutError
        raise AssertionError(
            f"MathJax is configured on {page.url} but never started: did its script load?"
        ) from error
    page.evaluate("() => window.MathJax.startup.promise.then(() => true)")


WIDGETS_DRAWN = """() => [...document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]')]
    .every(t => t.previousElementSibling
                && t.previousElementSibling.classList.contains("widget-subarea")
                && t.previousElementSibling.children.length > 0)"""


def _wait_for_widgets(page, timeout=20_000):
    """Wait until every widget view on the page has an output area with content."""
    page.wait_for_function(WIDGETS_DRAWN, timeout=timeout)


def _settle(page, quiet=0.5, timeout=60.0):
    """Wait until no request has been in flight for ``quiet`` s (playwright's "networkidle",
    with a longer limit and, when it is reached, the requests still waiting named)."""
    start = last_busy = time.monotonic()
    while True:
        now = time.monotonic()
        if page.in_flight:
            last_busy = now
        elif now - last_busy >= quiet:
            return
        if now - start > timeout:
            waiting = [f"{url} ({now - t:.1f} s)" for url, t in page.in_flight.values()]
            raise AssertionError(
                f"{page.url}: requests still in flight after {timeout:.0f} s: " + ", ".join(waiting)
            )
        page.wait_for_timeout(100)


@contextlib.contextmanager
def recorded_page(browser):
    """A new page that records requests, failures, console errors and page errors; closed
    at the end. For fixtures of a wider scope than ``page`` (a page loaded once per module)."""
    page = browser.new_page()
    _record(page)
    # Never touch the network: a request for another host is recorded, then aborted.
    page.route(_NOT_LOCAL, lambda route: route.abort("blockedbyclient"))
    page.wait_for_math = functools.partial(_wait_for_math, page)
    page.wait_for_widgets = functools.partial(_wait_for_widgets, page)
    page.settle = functools.partial(_settle, page)
    try:
        yield page
    finally:
        page.close()


@pytest.fixture
def page(browser):
    """A fresh page that records requests, failures, console errors and page errors."""
    with recorded_page(browser) as page:
        yield page


@pytest.fixture(scope="session")
def new_page(browser):
    """:func:`recorded_page`, for module-scoped fixtures: ``with new_page() as page: ...``."""
    return functools.partial(recorded_page, browser)


@contextlib.contextmanager
def jupyter_lab(root, state):
    """A JupyterLab server on 127.0.0.1 serving ``root``; yields its base URL.

    Its config, runtime, workspaces, user settings and log live under ``state`` (a
    folder outside ``root``). Every notebook cell is rendered (Lab 4 attaches only the
    cells in view by default). No token, no password, no news or update checks.
    """
    settings = state / "settings"
    tracker = settings / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    port = _free_port()
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(state / "config"),
        "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
        "PYTHONPATH": str(ROOT),
    }
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
        "--ServerApp.ip=127.0.0.1", "--allow-root", "--IdentityProvider.token=",
        "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
        f"--ServerApp.root_dir={root}", f"--LabApp.workspaces_dir={state / 'workspaces'}",
        f"--LabApp.user_settings_dir={settings}", "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    log_path = state / "lab.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://{HOST}:{port}/"
        try:
            _wait_for_lab(proc, base, log_path)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


def _free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _wait_for_lab(proc, base, log_path):
    for _ in range(120):
        if proc.poll() is not None:
            break
        try:
            urllib.request.urlopen(base + "api/status", timeout=1)
            return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"jupyter lab did not start: {log_path.read_text()[-2000:]}")


@pytest.fixture(scope="session")
def start_lab():
    """:func:`jupyter_lab`, for tests: ``with start_lab(root, state) as base_url: ...``."""
    return jupyter_lab


@pytest.fixture(scope="module")
def lab_book(tmp_path_factory, browser):  # `browser` first: it skips without Chromium
    """``(base URL, folder)``: JupyterLab, set up as ``make lab`` sets it up, on a git
    repository holding a copy of book/ (``git status`` shows what a test changed)."""
    config, prefix = ROOT / "jupyter-config", Path(sys.prefix)
    setup = {  # what pip (data-files) or `make lab` (an editable install) puts in the prefix
        config / f"{inner}/attn-book.json": prefix / f"{where}/{inner}/attn-book.json"
        for where, inner in [
            ("etc/jupyter", "jupyter_server_config.d"),
            ("share/jupyter", "lab/settings/overrides.d"),
        ]
    }
    for source, installed in setup.items():
        if not installed.exists() or installed.read_text() != source.read_text():
            pytest.fail(f"{installed} is not {source.name}: run `make lab` (or `make test`) first")
    work = tmp_path_factory.mktemp("lab-book")
    (work / "ko").mkdir()
    for folder in ("", "ko"):  # the chapters and the Korean edition beside them
        for path in (ROOT / "book" / folder).iterdir():
            if path.suffix in {".py", ".ipynb", ".md", ".toml"} and not path.name.startswith("."):
                shutil.copy(path, work / folder / path.name)
    (work / ".gitignore").write_text(".ipynb_checkpoints/\n")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "book"],
    ):
        subprocess.run(["git", *args], cwd=work, capture_output=True, check=True)
    with jupyter_lab(work, tmp_path_factory.mktemp("lab-book-state")) as base:
        yield base, work


KERNEL_READY = """(() => {
    const status = document.querySelector(".jp-Notebook-ExecutionIndicator");
    const name = document.querySelector(".jp-Toolbar-kernelName");
    return status && status.dataset.status === "idle"
        && name && !/no kernel/i.test(name.textContent);
})"""
KERNEL_READY_OR_DIALOG = f"() => Boolean(document.querySelector('.jp-Dialog')) || {KERNEL_READY}()"


def open_notebook(page, url):
    """Open the notebook at ``url`` in Lab and wait until its kernel is idle."""
    page.goto(url, wait_until="load")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook", timeout=60_000)
    # Lab may ask which kernel to start (the notebook's own, python3, is preselected), or start
    # it on its own. The indicator says "idle" before any kernel is there ("No Kernel"), so
    # wait for the dialog or for a kernel's name beside an idle indicator.
    page.wait_for_function(KERNEL_READY_OR_DIALOG, timeout=60_000)
    select = page.locator(".jp-Dialog button", has_text="Select")
    if select.count():
        select.click()
        page.wait_for_function(KERNEL_READY, timeout=60_000)


@pytest.fixture(scope="session")
def open_in_lab():
    """:func:`open_notebook`, for tests: ``open_in_lab(page, url)``."""
    return open_notebook
