"""The environment registry: typed values, clear errors, documented in README."""

from pathlib import Path

import pytest

from hipkit import config


def test_defaults_and_parsing(monkeypatch):
    monkeypatch.delenv("HIPKIT_CPU_WARP_SIZE", raising=False)
    assert config.get("HIPKIT_CPU_WARP_SIZE") == 64
    monkeypatch.setenv("HIPKIT_CPU_WARP_SIZE", "32")
    assert config.get("HIPKIT_CPU_WARP_SIZE") == 32
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "0, 2")
    assert config.get("HIP_VISIBLE_DEVICES") == (0, 2)
    monkeypatch.setenv("HIPKIT_CACHE_DIR", "/tmp/somewhere")
    assert config.cache_dir() == Path("/tmp/somewhere")


@pytest.mark.parametrize(
    "name, value",
    [("HIPKIT_CPU_WARP_SIZE", "48"), ("HIPKIT_PLATFORM", "no/such"), ("HIP_LAUNCH_BLOCKING", "maybe")],
)
def test_bad_values_name_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        config.get(name)


def test_every_variable_is_documented_in_readme():
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    for name in config.VARIABLES:
        assert f"| `{name}` |" in readme, f"{name} is missing from README's table"
