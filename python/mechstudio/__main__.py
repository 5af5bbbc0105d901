# SPDX-License-Identifier: GPL-3.0-or-later
"""python3 -m mechstudio sweep ...: the parameter sweep runner (mechstudio-cli sweep execs it)."""
import sys

from .sweep import main

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] != "sweep":
        print("usage: python3 -m mechstudio sweep MODEL --grid KEY=FROM:TO:COUNT... --csv OUT (see --help)", file=sys.stderr)
        raise SystemExit(1)
    raise SystemExit(main(sys.argv[2:]))
