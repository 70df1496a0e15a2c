"""The examples under examples/python and the README's Python example run as written."""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = {
    "private_average.py": [],
    "erc20.py": [],
    "dot_product.py": [],
    "bubble_sort.py": ["--small"],
    "fv_batch.py": [],
    "infer_digits.py": ["--clear"],
    "infer_digits.py --model cnn": ["--clear", "--model", "cnn"],
    "infer_digits.py --fv": ["--clear", "--fv"],
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_runs(name):
    if name == "fv_batch.py":
        pytest.importorskip("numpy")
    path = ROOT / "examples" / "python" / name.split()[0]
    r = subprocess.run(
        [sys.executable, str(path), *EXAMPLES[name]], capture_output=True, text=True, timeout=900
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_readme_example_runs():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "the README has a ```python example"
    code = blocks[0]
    assert len(code.strip().splitlines()) <= 10
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[0] == str(-1234 * 567 + 10)
