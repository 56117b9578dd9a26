"""A finished bundle's size, by what takes the room: distributions by their RECORD (namespace
packages split between them, bytecode compiled later counted with its source), the rest by the
top-level name it sits under."""

from __future__ import annotations

from pathlib import Path

from a2a_core.bundling.size import measure


def _install(root: Path, name: str, files: dict[str, int]) -> None:
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n\nbody\n")
    for relative, size in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(bytes(size))
    (info / "RECORD").write_text("".join(f"{path},,\n" for path in [*files, f"{info.name}/METADATA"]))


def test_shares_follow_records_namespace_packages_and_bytecode(tmp_path: Path) -> None:
    _install(tmp_path, "google-genai", {"google/genai/__init__.py": 3000})
    _install(tmp_path, "google-adk", {"google/adk/__init__.py": 5000, "google/adk/runners.py": 1000})
    (tmp_path / "google" / "adk" / "__pycache__").mkdir()
    (tmp_path / "google" / "adk" / "__pycache__" / "runners.cpython-313.pyc").write_bytes(bytes(4000))
    (tmp_path / "a2a_core" / "core").mkdir(parents=True)
    (tmp_path / "a2a_core" / "core" / "engine.py").write_bytes(bytes(500))
    (tmp_path / "run.sh").write_bytes(bytes(10))

    size = measure(tmp_path)

    shares = dict(size.shares)
    metadata = len((tmp_path / "google_adk-1.0.dist-info" / "METADATA").read_bytes())
    record = len((tmp_path / "google_adk-1.0.dist-info" / "RECORD").read_bytes())
    assert shares["google-adk"] == 10_000 + metadata + record
    assert shares["google-genai"] > 3000
    assert shares["a2a_core"] == 500
    assert shares["run.sh"] == 10
    assert size.total == sum(shares.values())
    assert [name for name, _ in size.shares][:2] == ["google-adk", "google-genai"]
    assert size.biggest(2) == f"google-adk {shares['google-adk'] / 2**20:.1f} MB, google-genai 0.0 MB"
