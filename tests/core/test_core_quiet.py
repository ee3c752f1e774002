"""pybullet's build-time banner is not printed (sim/core/quiet.py): a worker that plays the Sun
imports it, and the line landed in the progress bar and before error lines."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_suns_engine_prints_no_banner() -> None:
    code = "import sim.sun.table.world, pybullet; print('imported', pybullet.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "imported pybullet\n"  # Python's own output still arrives
    assert "pybullet build time" not in done.stderr + done.stdout


def test_an_import_error_is_still_raised_and_the_descriptors_come_back() -> None:
    code = ("import sys\nfrom sim.core.quiet import silence_import_banner\nsilence_import_banner('no_such_mod_x')\n"
            "try:\n    import no_such_mod_x\nexcept ImportError as e:\n    print('raised', type(e).__name__)\n"
            "print('after', file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "raised ModuleNotFoundError\n" and done.stderr == "after\n"
