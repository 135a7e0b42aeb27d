"""docs/architecture.md's rooms, floors and import graph are drawn from the code (docs/_tools/architecture.py)."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture()
def arch():
    spec = importlib.util.spec_from_file_location("architecture_page", ROOT / "docs" / "_tools" / "architecture.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_page_is_current(arch):
    """Fails after a module or package moves until `python docs/_tools/architecture.py` is run again."""
    text = arch.PAGE.read_text(encoding="utf-8")
    assert arch.updated(text) == text, f"docs/architecture.md is stale: run `{arch.COMMAND}`"
    assert arch.main(["--check"]) == 0


def test_every_package_is_a_room_on_a_floor(arch):
    found, edges = arch.graph()
    folders = {p.parent.name for p in (ROOT / "softirr_stats").glob("*/__init__.py")} | {"models", "inference"}
    assert set(found) == folders
    level = arch.floors(edges)
    assert level["base"] == 1 and level["cli"] == max(level.values())
    assert all(level[t] < level[r] for r, ts in edges.items() for t in ts)  # arrows only point down
    page = arch.render()
    assert all(f"| **{r}** |" in page for r in found)


def _toy(root: pathlib.Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_moving_a_module_changes_the_page(arch, tmp_path, monkeypatch):
    monkeypatch.setattr(arch, "ROOT", tmp_path)
    _toy(tmp_path, {
        "softirr_stats/__init__.py": '"""Face."""\nattach(__name__, {"softirr_stats.b._f": ("f",)})\n',
        "softirr_stats/a/__init__.py": '"""Room a. Lower."""\n',
        "softirr_stats/a/_x.py": "import numpy\n",
        "softirr_stats/b/__init__.py": '"""Room b."""\n',
        "softirr_stats/b/_f.py": "from softirr_stats.a._x import y\n",
        "softirr_stats/c/__init__.py": '"""Room c."""\n',
        "softirr_stats/c/_g.py": "from softirr_stats import f\n",
    })
    found, edges = arch.graph()
    assert set(found) == {"a", "b", "c"}
    assert edges == {"a": set(), "b": {"a"}, "c": {"b"}}  # c takes f from the root face: b defines it
    assert arch.floors(edges) == {"a": 1, "b": 2, "c": 3}
    before = arch.render()
    assert "| 1 | **a** | `softirr_stats/a/` | Room a. | none | `_x` |" in before
    assert "    c --> b\n    b --> a" in before and "c --> a" not in before
    (tmp_path / "softirr_stats/b/_f.py").rename(tmp_path / "softirr_stats/a/_f.py")  # a module moves
    assert arch.render() != before


def test_a_circle_between_rooms_is_named(arch):
    with pytest.raises(SystemExit, match="import circle between rooms: a -> b -> a"):
        arch.floors({"a": {"b"}, "b": {"a"}})


def test_check_says_stale(arch, tmp_path, monkeypatch, capsys):
    page = tmp_path / "architecture.md"
    page.write_text(f"# A\n\n{arch.BEGIN}\nold\n{arch.END}\n\ntail\n")
    monkeypatch.setattr(arch, "PAGE", page)
    monkeypatch.setattr(arch, "ROOT", tmp_path)
    _toy(tmp_path, {"softirr_stats/__init__.py": '"""Face."""\n', "softirr_stats/a/__init__.py": '"""A."""\n'})
    assert arch.main(["--check"]) == 1 and "stale" in capsys.readouterr().err
    assert arch.main([]) == 0 and arch.main(["--check"]) == 0
    assert page.read_text().endswith(f"{arch.END}\n\ntail\n") and "| 1 | **a** |" in page.read_text()
