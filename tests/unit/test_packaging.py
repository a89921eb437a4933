"""What a non-editable install (the Docker image) ships: every file the packages need at run time."""
import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_non_python_file_of_the_packages_is_declared_as_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    declared = config.get("package-data", {})
    data_files = [
        path for top in ("services", "shared") for path in (ROOT / top).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    ]
    assert data_files  # the browser table's page, script and style sheet
    for path in data_files:
        package_dir = next(parent for parent in path.parents if (parent / "__init__.py").exists())
        package = ".".join(package_dir.relative_to(ROOT).parts)
        inside = path.relative_to(package_dir).as_posix()
        assert any(fnmatch.fnmatch(inside, pattern) for pattern in declared.get(package, [])), (
            f"{path.relative_to(ROOT)} is not in [tool.setuptools.package-data]: a wheel would leave it out")
