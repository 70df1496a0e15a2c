#!/usr/bin/env python3
"""Fails when a front end depends on a workspace crate other than the `encint` facade.

The command-line tool (crates/cli) and the Python package (crates/py) reach the layers below
through `encint` alone, so that a Rust user can do through `encint` everything they do.
Every dependency table of their Cargo.toml files is read (`dependencies`,
`dev-dependencies`, `build-dependencies`, and the same under `target.<cfg>`); a key naming a
workspace crate, directly or through `package = "..."`, other than `encint` is reported.
External crates (tfhe, pyo3, ...) are not checked.

    python3 scripts/facade-deps.py

Prints each offending dependency and exits 1 if there is any, 0 otherwise.
"""

import sys
import tomllib
from pathlib import Path

from check_report import finish

ROOT = Path(__file__).resolve().parent.parent
FRONT_ENDS = ("crates/cli", "crates/py")
FACADE = "encint"
TABLES = ("dependencies", "dev-dependencies", "build-dependencies")


def load(path):
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def workspace_crates():
    """The package names of the workspace's members."""
    members = load(ROOT / "Cargo.toml")["workspace"]["members"]
    return {load(ROOT / m / "Cargo.toml")["package"]["name"] for m in members}


def dependency_tables(manifest):
    """Yields (table name, table) for every dependency table of a manifest."""
    for name in TABLES:
        if name in manifest:
            yield name, manifest[name]
    for cfg, target in manifest.get("target", {}).items():
        for name in TABLES:
            if name in target:
                yield f"target.'{cfg}'.{name}", target[name]


def main():
    crates = workspace_crates()
    problems = []
    for front in FRONT_ENDS:
        path = Path(front) / "Cargo.toml"
        for table, deps in dependency_tables(load(ROOT / path)):
            for key, spec in deps.items():
                package = spec.get("package", key) if isinstance(spec, dict) else key
                if package in crates and package != FACADE:
                    problems.append([f"{path}: [{table}] {key}: workspace crate other than `{FACADE}`"])
    fronts = " and ".join(FRONT_ENDS)
    return finish(problems, f"{fronts} depend on no workspace crate but `{FACADE}`")


if __name__ == "__main__":
    sys.exit(main())
