"""README's Python examples run as written, in order, on the default platform."""

import re
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def test_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["h_c"][3] == 9.0  # the HIP-named vector add finished
