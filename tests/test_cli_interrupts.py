"""Ctrl-C ends the servers that run until interrupted (``stonelab sun edit``, ``stonelab sun view``)
with exit code 130, as the README says of every command stopped by Ctrl-C (they ended 0)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.mark.slow  # viser's server starts in a few seconds
def test_ctrl_c_in_sun_edit_exits_130(tmp_path: Path) -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    # SIGINT as Ctrl-C sends it, even when this suite runs with SIGINT ignored (a background job of a
    # non-interactive shell), which the child would inherit
    p = subprocess.Popen([sys.executable, "-m", "sim.cli", "sun", "edit", "--port", str(port)], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = p.stdout.readline() if p.stdout else ""
        assert line.startswith("layout editor: http://127.0.0.1:"), line
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "Traceback" not in err
