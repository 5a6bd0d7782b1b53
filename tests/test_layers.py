"""The folders show the layers, and nothing reaches up or sideways (docs/ARCHITECTURE.md):
read from every module's imports, lazy ones included, and from its string constants."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hipkit import platforms

PACKAGE = Path(__file__).parents[1] / "src" / "hipkit"

# The top-level packages and modules of hipkit, by layer: a module imports from its
# own layer and those below only.  hipkit/__init__.py, the public face, re-exports
# from every layer (lazily) and is not in a layer.
LAYERS = {
    "_cache": 0,
    "_errors": 0,
    "_system": 0,
    "config": 0,
    "cxx": 0,
    "tables": 0,
    "platforms": 1,
    "runtime": 2,
    "hip": 3,
    "hipblas": 3,
    "hiprand": 3,
    "random": 3,
    "blas": 3,
    "hipfft": 3,
    "fft": 3,
    "profiler": 3,
    "_sanitize": 3,
    "cc": 4,
    "doctor": 4,
    "hipify": 4,
    "cli": 5,
    "__main__": 5,
}
# Names of hipkit/__init__.py that any layer may import: constants, not the API.
CONSTANTS = {"hipkit.__version__"}
# A platform's folder may import these of the platforms layer besides its own.
SHARED = ("hipkit.platforms.base", "hipkit.platforms._gpu")
PLATFORM_FOLDERS = sorted(p.name for p in (PACKAGE / "platforms").iterdir() if (p / "__init__.py").is_file())


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, what) for every import in ``path``: ``package.module`` or
    ``package.module.name`` for ``from package.module import name``, relative
    imports resolved."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found += [(node.lineno, f"{source}.{alias.name}") for alias in node.names]
    return [(line, what) for line, what in found if what.split(".")[0] == "hipkit"]


# The scripts that make the generated tables are tools: they import what they
# read the facts from (hipkit.tables' docstring).
SCRIPTS = ("hipkit.tables.make_",)


def layer(name: str) -> int | None:
    if name.startswith(SCRIPTS):
        return max(LAYERS.values())
    parts = name.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_every_top_level_part_has_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()}
    parts -= {"__init__", "__pycache__", "py"}
    assert parts <= set(LAYERS), f"give these a layer in LAYERS: {sorted(parts - set(LAYERS))}"


def test_nothing_reaches_up():
    wrong = []
    for path in modules():
        me = module_name(path)
        mine = layer(me)
        if mine is None:
            continue
        for line, what in imports(path):
            theirs = layer(what)
            if what not in CONSTANTS and theirs is not None and theirs > mine:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line}: {me} (layer {mine}) imports {what}")
    assert not wrong, "\n".join(wrong)


def _platform_of(name: str) -> str | None:
    parts = name.split(".")
    if len(parts) > 2 and parts[1] == "platforms" and parts[2] in PLATFORM_FOLDERS:
        return parts[2]
    return None


def test_a_platform_folder_imports_no_other_platform():
    wrong = []
    for path in modules():
        me = module_name(path)
        mine = _platform_of(me)
        if me.startswith(SCRIPTS):
            continue
        for line, what in imports(path):
            theirs = _platform_of(what)
            if theirs is None or theirs == mine or what.startswith(SHARED):
                continue
            if mine is None or mine in ("base", "_gpu") or theirs not in ("base", "_gpu"):
                wrong.append(f"{path.relative_to(PACKAGE)}:{line}: {me} imports {what}")
    assert not wrong, "\n".join(wrong)


def test_no_module_uses_another_modules_private_parts():
    """A name or module with a leading underscore is used only where it is defined
    (a module) or inside its package (a private module)."""
    wrong = []
    for path in modules():
        me = module_name(path)
        for line, what in imports(path):
            parts = what.split(".")
            for i, part in enumerate(parts[1:], 1):
                if part.startswith("_") and not part.startswith("__"):
                    owner = ".".join(parts[:i])
                    defined_in = PACKAGE.parent.joinpath(*parts[:i]).with_suffix(".py").is_file()
                    inside = me == owner if defined_in else me == owner or me.startswith(owner + ".")
                    if not inside:
                        wrong.append(f"{path.relative_to(PACKAGE)}:{line}: {me} imports {what}")
                    break
    assert not wrong, "\n".join(wrong)


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


# Strings that are a platform's name but name something else: (module, string) -> what.
NOT_A_PLATFORM = {("doctor/frameworks.py", "cpu"): "JAX's name for its CPU backend"}


@pytest.mark.parametrize("name", platforms.known())
def test_no_code_outside_the_platforms_names_a_platform(name):
    """Outside hipkit/platforms a platform is never a string of the code (a branch
    on its name): only user-facing text names one, in a sentence."""
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line}: {value!r}"
        for path in modules()
        if "platforms" not in path.relative_to(PACKAGE).parts
        for line, value in _strings(path)
        if value.strip() == name and (str(path.relative_to(PACKAGE)), name) not in NOT_A_PLATFORM
    ]
    assert not wrong, "\n".join(wrong)


# Modules small enough to read in one sitting (STYLE.md, habit 1).
MAX_LINES = 500
SOURCE_SUFFIXES = (".py", ".h", ".cpp", ".S")
# A generated file says so in its first lines ("Generated by ...; do not edit.").
_GENERATED = re.compile(r"^\W*(?:this file is |auto-?)?generated\b", re.I | re.M)


def _hand_written_sources() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("*")
        if path.suffix in SOURCE_SUFFIXES
        and path.is_file()
        and "__pycache__" not in path.parts
        and path.relative_to(PACKAGE).parts[0] != "tables"
        and not _GENERATED.search("\n".join(path.read_text(errors="replace").splitlines()[:5]))
    )


def test_no_hand_written_source_file_is_over_500_lines():
    """Split by role, not by line count: each piece named for what it is."""
    sources = _hand_written_sources()
    assert {path.suffix for path in sources} == set(SOURCE_SUFFIXES)  # the scan sees every kind
    over = [
        f"{path.relative_to(PACKAGE)}: {lines} lines"
        for path in sources
        if (lines := len(path.read_text(errors="replace").splitlines())) > MAX_LINES
    ]
    assert not over, f"over {MAX_LINES} lines:\n" + "\n".join(over)


def test_errors_are_raised_by_their_hip_names():
    """``HipError(hipError_t.hipErrorInvalidValue, ...)``, never ``HipError(1, ...)``
    nor a number under another name of the module's."""
    wrong = []
    for path in modules():
        tree = ast.parse(path.read_text())
        numbers = {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for target in ast.walk(node.targets[0])
            if isinstance(target, ast.Name)
            and any(isinstance(v, ast.Constant) and isinstance(v.value, int) for v in ast.walk(node.value))
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            code = node.args[0]
            literal = isinstance(code, ast.Constant) and isinstance(code.value, int)
            if name == "HipError" and (literal or (isinstance(code, ast.Name) and code.id in numbers)):
                wrong.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert not wrong, "\n".join(wrong)
