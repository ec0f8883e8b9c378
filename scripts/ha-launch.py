"""Starts Home Assistant core through its own entry point, with only its Python version gate skipped.

Usage (the venv that scripts/peers makes): .peers/homeassistant/bin/python scripts/ha-launch.py [hass arguments]
e.g. `... scripts/ha-launch.py --skip-pip -c CONFIG_DIR`.

Why: Home Assistant 2026.2.3, the newest release whose code runs on the Python 3.13 these machines
have (pyenv's 3.13.0; every release from 2026.3 needs Python 3.14.2), declares Python >= 3.13.2,
and `homeassistant.__main__.main()` starts with `validate_python()`, which exits when the running
Python is older. Nothing else in Home Assistant checks the version, and its code runs on 3.13.0.
So this launcher replaces that one function with a no-op and then calls the unchanged `main()`:
argument parsing, the config directory, the runner, every integration are Home Assistant's own.
"""

import sys

import homeassistant.__main__ as ha_main


def _skip_python_version_gate() -> None:
    """Stands in for homeassistant.__main__.validate_python (see the module docstring)."""


if __name__ == "__main__":
    ha_main.validate_python = _skip_python_version_gate
    sys.exit(ha_main.main())
