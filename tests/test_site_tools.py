"""The site's build tools without a network: the npm pins, the asset copy, the font CSS, the
repository setting."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "site"))

import attn_repository  # noqa: E402 - after the path insert
import site_assets  # noqa: E402

PACKAGE = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
LOCK = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
FONT_DIR = ROOT / "node_modules" / "@fontsource" / "noto-sans-kr"


def _write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("name", sorted(site_assets.SITE_FILES))
def test_package_json_pins_exact_versions_that_the_lock_hashes(name):
    pinned = PACKAGE["dependencies"][name]
    locked = LOCK["packages"][f"node_modules/{name}"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), f"{name}: pin an exact version, not {pinned}"
    assert locked["version"] == pinned, "package-lock.json is out of date: run `npm install`"
    assert locked["integrity"].startswith("sha512-")


def test_locked_versions_reads_the_lock(tmp_path, monkeypatch):
    packages = {f"node_modules/{n}": {"version": f"1.0.{i}"} for i, n in enumerate("abc")}
    monkeypatch.setattr(site_assets, "SITE_FILES", {"a": ("a", []), "c": ("c", [])})
    _write_json(tmp_path / "lock.json", {"packages": packages})
    assert site_assets.locked_versions(tmp_path / "lock.json") == {"a": "1.0.0", "c": "1.0.2"}


def test_a_package_missing_from_the_lock_is_named(tmp_path):
    _write_json(tmp_path / "lock.json", {"packages": {}})
    with pytest.raises(site_assets.AssetError, match=r"pins no \['mathjax'"):
        site_assets.locked_versions(tmp_path / "lock.json")


def test_stale_packages_lists_missing_and_mismatched(tmp_path, monkeypatch):
    monkeypatch.setattr(site_assets, "SITE_FILES", {"a": ("a", []), "@s/b": ("b", [])})
    lock = {"node_modules/a": {"version": "2.0.0"}, "node_modules/@s/b": {"version": "1.0.0"}}
    _write_json(tmp_path / "lock.json", {"packages": lock})
    modules = tmp_path / "node_modules"
    _write_json(modules / "a" / "package.json", {"version": "2.0.0"})
    assert site_assets.stale_packages(modules, tmp_path / "lock.json") == ["@s/b"]
    _write_json(modules / "a" / "package.json", {"version": "1.9.9"})
    assert site_assets.stale_packages(modules, tmp_path / "lock.json") == ["a", "@s/b"]


def test_config_points_at_files_the_assets_provide():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"]["config"]
    provided = {dest: globs for dest, globs in site_assets.SITE_FILES.values()}
    generated = {site_assets.FONT_CSS, *(target for _, _, target in site_assets.PYTHON_FILES)}
    wanted = [config["mathjax_path"], *config["nb_ipywidgets_js"], *config["html_css_files"]]
    for rel in wanted:
        if (ROOT / "site" / "static" / rel).is_file():
            continue
        inner = rel.removeprefix("vendor/")
        dest, _, path = inner.partition("/")
        assert rel.startswith("vendor/"), rel
        assert inner in generated or site_assets.selected([path], provided[dest]), rel


def test_copy_package_copies_only_the_listed_files(tmp_path):
    (tmp_path / "pkg" / "dist").mkdir(parents=True)
    (tmp_path / "pkg" / "dist" / "a.js").write_bytes(b"a")
    (tmp_path / "pkg" / "dist" / "b.map").write_bytes(b"b")
    assert site_assets.copy_package(tmp_path / "pkg", ["dist/*.js"], tmp_path / "out") == 1
    assert (tmp_path / "out" / "dist" / "a.js").read_bytes() == b"a"
    assert not (tmp_path / "out" / "dist" / "b.map").exists()


def test_copy_package_names_a_pattern_that_matches_nothing(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.js").write_bytes(b"a")
    with pytest.raises(site_assets.AssetError, match=r"pkg: no file matches \['fonts/\*'\]"):
        site_assets.copy_package(tmp_path / "pkg", ["*.js", "fonts/*"], tmp_path / "out")


def test_missing_npm_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(site_assets.AssetError, match="npm is needed"):
        site_assets.npm_ci()


FONTSOURCE_CSS = """/* noto-sans-kr-[7]-400-normal */
@font-face {
  font-family: 'Noto Sans KR';
  src: url(./files/noto-sans-kr-7-400-normal.woff2) format('woff2'), url(./files/noto-sans-kr-7-400-normal.woff) format('woff');
  unicode-range: U+ac00-ac01;
}

/* noto-sans-kr-[8]-400-normal */
@font-face {
  font-family: 'Noto Sans KR';
  src: url(./files/noto-sans-kr-8-400-normal.woff2) format('woff2');
  unicode-range: U+20-7e,U+2014;
}

/* noto-sans-kr-latin-400-normal */
@font-face {
  font-family: 'Noto Sans KR';
  src: url(./files/noto-sans-kr-latin-400-normal.woff2) format('woff2');
  unicode-range: U+0000-00ff;
}
"""  # noqa: E501 - fontsource's own line


def test_hangul_faces_keeps_the_numbered_slices_with_hangul_in_woff2_only():
    css = site_assets.hangul_faces(FONTSOURCE_CSS)
    assert css.count("@font-face") == 1, "slice [8] (Latin only) and the latin face dropped"
    assert "noto-sans-kr-7-400-normal.woff2" in css and "unicode-range: U+ac00-ac01;" in css
    assert ".woff)" not in css and "latin" not in css


def test_parse_ranges_reads_single_points_and_spans():
    assert site_assets.parse_ranges("U+ac00-ac0f, U+ac11") == [(0xAC00, 0xAC0F), (0xAC11, 0xAC11)]


@pytest.mark.parametrize(
    ("ranges", "expected"),
    [
        ([(0x20, 0x7E), (0xAC00, 0xAC10)], "U+ac00-ac10"),  # ASCII clipped off
        ([(0xD7A0, 0xE000)], "U+d7a0-d7ff"),  # cut at the end of the Hangul blocks
        ([(0x3131, 0x3131)], "U+3131"),  # one compatibility jamo, kept as a point
        ([(0x2010, 0x2027)], ""),  # general punctuation: nothing left
    ],
)
def test_clip_ranges_keeps_only_the_cjk_blocks(ranges, expected):
    assert site_assets.clip_ranges(ranges) == expected


def test_hangul_faces_refuses_css_without_slices():
    with pytest.raises(site_assets.AssetError, match="no numbered"):
        site_assets.hangul_faces("/* noto-sans-kr-latin-400-normal */\n@font-face {}")


def _code_points(unicode_ranges):
    """Every code point of CSS unicode-range values such as ``U+ac00-ac0f,U+ac11``."""
    points = set()
    for part in ",".join(unicode_ranges).replace(" ", "").split(","):
        low, _, high = part.removeprefix("U+").partition("-")
        points.update(range(int(low, 16), int(high or low, 16) + 1))
    return points


@pytest.mark.parametrize("weight", site_assets.FONT_WEIGHTS)
def test_the_shipped_slices_cover_every_hangul_syllable(weight):
    if not (FONT_DIR / f"{weight}.css").is_file():
        pytest.skip("node_modules/ not installed (npm ci --ignore-scripts)")
    css = site_assets.hangul_faces((FONT_DIR / f"{weight}.css").read_text(encoding="utf-8"))
    covered = _code_points(re.findall(r"unicode-range:\s*([^;]+);", css))
    # Unicode 15, ch. 3.12: the 11,172 precomposed syllables are U+AC00..U+D7A3.
    syllables = set(range(0xAC00, 0xD7A3 + 1))
    assert len(syllables) == 19 * 21 * 28
    assert not syllables - covered, f"{len(syllables - covered)} syllables have no slice"
    assert not {p for p in covered if p < 0x1100}, "Latin must keep the theme's font"
    for url in re.findall(r"url\(\./(files/[^)]+)\)", css):
        assert (FONT_DIR / url).is_file() and url.endswith(f"-{weight}-normal.woff2"), url


def test_no_repository_setting_means_no_repository_or_binder_button():
    theme = {"launch_buttons": {"binderhub_url": "https://mybinder.org"}, "x": 1}
    for unset in (None, ""):
        options = attn_repository.repository_options(theme, unset)
        assert options["use_repository_button"] is False
        assert options["launch_buttons"]["binderhub_url"] == ""
        assert options["x"] == 1
    assert theme["launch_buttons"]["binderhub_url"] == "https://mybinder.org", "input modified"


def test_a_repository_setting_turns_both_buttons_on():
    theme = {"launch_buttons": {"binderhub_url": "https://mybinder.org"}}
    url = " https://github.com/me/attention-by-hand/ "
    options = attn_repository.repository_options(theme, url)
    assert options["repository_url"] == "https://github.com/me/attention-by-hand"
    assert options["use_repository_button"] is True
    assert options["launch_buttons"]["binderhub_url"] == "https://mybinder.org"


@pytest.mark.parametrize(
    "url", ["github.com/me/repo", "https://gitlab.com/me/repo", "https://github.com/me"]
)
def test_a_repository_setting_that_is_not_a_github_repository_is_refused(url):
    variable = attn_repository.REPOSITORY_VARIABLE
    with pytest.raises(attn_repository.ConfigError, match=f"{variable}="):
        attn_repository.repository_options({}, url)


def test_the_numbered_chapters_sit_at_their_own_number_in_the_toc():
    """Sphinx numbers a numbered part 1, 2, 3, ...; the figures ("Figure 7.1",
    attn_book.figures) and the links use the file's NN. They agree while chapter NN is the
    NN-th entry of the numbered part, so the site needs no renumbering."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    numbered = [
        c["file"] for part in toc["parts"] if part.get("numbered") for c in part["chapters"]
    ]
    numbers = [int(re.search(r"/(\d\d)_", f).group(1)) for f in numbered]
    assert numbers == list(range(1, len(numbered) + 1)), numbered


def test_build_book_rewrites_every_page_when_the_table_of_contents_changes(tmp_path, monkeypatch):
    import build_book

    (tmp_path / "book").mkdir()
    for name, text in {"_toc.yml": "root: book/intro\n", "_config.yml": "title: t\n"}.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "book" / "01_a.ipynb").write_text("{}")
    monkeypatch.setattr(build_book, "ROOT", tmp_path)
    calls = []
    monkeypatch.setattr(build_book.site_assets, "ensure", lambda: None)
    monkeypatch.setattr(build_book.subprocess, "call", lambda cmd, cwd: calls.append(cmd) or 0)
    assert build_book.main([]) == 0 and "--all" not in calls[-1]  # first build: every page
    (tmp_path / "_build" / "html").mkdir()
    assert build_book.main([]) == 0 and "--all" not in calls[-1]  # nothing changed
    (tmp_path / "book" / "02_b.ipynb").write_text("{}")  # a new chapter
    assert build_book.main([]) == 0 and "--all" in calls[-1]
    assert build_book.main([]) == 0 and "--all" not in calls[-1]
    (tmp_path / "_toc.yml").write_text("root: book/intro\nparts: []\n")
    assert build_book.main([]) == 0 and "--all" in calls[-1]


def test_the_build_copies_site_static_again_over_a_stale_copy(tmp_path, monkeypatch):
    """An incremental Sphinx 7.4 build left an old attn-answers.js in _static; the build tool
    copies site/static/ over it after every build."""
    import build_book

    (tmp_path / "site" / "static").mkdir(parents=True)
    (tmp_path / "site" / "static" / "attn-answers.js").write_text("// new\n")
    stale = tmp_path / "_build" / "html" / "_static" / "attn-answers.js"
    stale.parent.mkdir(parents=True)
    stale.write_text("// old\n")
    monkeypatch.setattr(build_book, "ROOT", tmp_path)
    build_book.refresh_own_static(tmp_path / "_build" / "html")
    assert stale.read_text() == "// new\n"
    build_book.refresh_own_static(tmp_path / "nowhere")  # no _static yet: nothing to do
