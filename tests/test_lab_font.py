"""JupyterLab's Hangul: the book's font (attn_book/lab_custom/custom.css) holds every Hangul
character of the book, sits inside JupyterLab's own font lists, and the package's server
extension (attn_book/jupyter_server_extension.py, turned on by jupyter-config/) serves it to
any Jupyter front end."""

import asyncio
import json
import re
import sys
import types
from pathlib import Path

import pytest
from fonts import css_font, hangul_in

ROOT = Path(__file__).resolve().parents[1]
CUSTOM_CSS = ROOT / "attn_book" / "lab_custom" / "custom.css"
SERVER_JSON = ROOT / "jupyter-config" / "jupyter_server_config.d" / "attn-book.json"


def lab_font():
    return css_font(CUSTOM_CSS)


def declared(css, name):
    """The value a CSS text gives the custom property ``name`` (first declaration)."""
    value = re.search(rf"{re.escape(name)}:\s*([^;]+);", css).group(1)
    return [part.strip().strip("'\"") for part in value.split(",")]


def test_the_lab_font_draws_every_hangul_character_of_the_book():
    family, font = lab_font()
    cmap = font.getBestCmap()
    pages = [*ROOT.joinpath("book").glob("*.py"), *ROOT.joinpath("book").glob("*.md")]
    pages += [
        *ROOT.joinpath("book", "ko").glob("*.md"),
        *ROOT.joinpath("book", "ko").glob("*.ipynb"),
    ]
    pages += [*ROOT.joinpath("attn_book", "locale").rglob("*.po")]  # every catalog: prose, verdicts
    shown = hangul_in("".join(p.read_text(encoding="utf-8") for p in pages))
    assert {"쿼", "리", "키", "밸", "류", "소", "프", "트", "맥", "스"} <= shown  # the terms
    missing = sorted(c for c in shown if ord(c) not in cmap)
    assert not missing, f"no glyph in {family} for {missing}: run tools/build_font.py"
    assert all(font.getGlyphSet()[cmap[ord(c)]].width > 0 for c in shown)  # real glyphs


@pytest.mark.parametrize(
    "name", ["--jp-ui-font-family", "--jp-content-font-family", "--jp-code-font-family-default"]
)
@pytest.mark.parametrize("theme", ["theme-light-extension", "theme-dark-extension"])
def test_the_lab_font_comes_after_jupyterlabs_own_fonts(name, theme):
    """Our list is the installed JupyterLab theme's, with the book's family just before the
    generic one: a Latin letter looks as before; only Hangul no earlier font has falls to ours."""
    theme_css = Path(sys.prefix) / "share/jupyter/lab/themes/@jupyterlab" / theme / "index.css"
    if not theme_css.is_file():
        pytest.skip("JupyterLab is not installed (the `lab` extra)")
    family, _ = lab_font()
    ours = declared(CUSTOM_CSS.read_text(encoding="utf-8"), name)
    labs = declared(theme_css.read_text(encoding="utf-8"), name)
    assert [f for f in ours if f != family] == labs
    assert ours[ours.index(family) + 1] in {"sans-serif", "monospace"}


def test_the_lab_font_loads_with_the_page():
    css = CUSTOM_CSS.read_text(encoding="utf-8")
    family, _ = lab_font()
    preload = re.search(r"body::after \{([^}]*)\}", css).group(1)
    assert f'font-family: "{family}"' in preload and "visibility: hidden" in preload
    glyph = re.search(r'content: "(.)" / ""', preload).group(1)
    assert hangul_in(glyph)


def test_the_installed_config_turns_on_the_books_server_extension():
    config = json.loads(SERVER_JSON.read_text(encoding="utf-8"))
    extensions = {"attn_book.jupyter_server_extension": True}
    assert config == {"ServerApp": {"jpserver_extensions": extensions}}
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"etc/jupyter/jupyter_server_config.d" = ["jupyter-config/' in pyproject


def test_the_server_extension_serves_the_custom_css_and_saves_as_sync_does(tmp_path):
    pytest.importorskip("jupyter_server", reason="a Jupyter server extension (`lab` extra)")
    from traitlets.config import Config

    from attn_book import jupyter_server_extension as lab

    hooks, routes = [], []
    web_app = types.SimpleNamespace(
        settings={"base_url": "/", "static_custom_path": [str(tmp_path / "custom")]},
        add_handlers=lambda host, rules: routes.extend(rules),
    )
    server = types.SimpleNamespace(
        config=Config(),
        config_dir=str(tmp_path),
        contents_manager=types.SimpleNamespace(register_pre_save_hook=hooks.append),
        web_app=web_app,
        log=types.SimpleNamespace(info=lambda *a: None),
    )
    module = "attn_book.jupyter_server_extension"
    assert lab._jupyter_server_extension_points() == [{"module": module}]
    lab._link_jupyter_server_extension(server)
    assert server.config.LabApp.custom_css is True
    server.config.LabApp.custom_css = False  # a reader's own choice is kept
    lab._link_jupyter_server_extension(server)
    assert server.config.LabApp.custom_css is False

    lab._load_jupyter_server_extension(server)
    asyncio.run(lab._start_jupyter_server_extension(server))  # jupytext's manager is in place
    assert hooks == [lab.pre_save_hook]
    folders = [Path(p) for p in web_app.settings["static_custom_path"]]
    assert folders == [tmp_path / "custom", CUSTOM_CSS.parent.resolve()]  # a reader's first
    ((route, _handler, options),) = routes
    assert re.fullmatch(route, "/custom/custom.css")
    assert [Path(p) for p in options["path"]] == folders
