"""docs/howto.md's "A study on a Dask cluster", run as written: every command of its bash blocks,
with the addresses made 127.0.0.1 and the ports free ones (nothing listens beyond this machine).
The scheduler and the workers are started in the background, in the order the page gives, and
stopped at the end; the study must store every game, say the dashboard's address exactly when the
scheduler serves one (bokeh installed), and the TLS cluster must refuse a client without the key."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "howto.md"

pytestmark = pytest.mark.slow


def _blocks() -> list[list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## A study on a Dask cluster", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [[ln.strip() for ln in b.splitlines() if ln.strip() and not ln.strip().startswith("#")] for b in blocks]


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _local(line: str, ports: dict[str, int]) -> list[str]:
    """A command of the page, on this machine only."""
    line = re.sub(r"\bHOST\b", "127.0.0.1", line)
    line = re.sub(r"\bWORKER\b", "127.0.0.1", line)
    for old, new in ports.items():
        line = line.replace(f":{old}", f":{new}").replace(f"--port {old}", f"--port {new}")
    return shlex.split(line)


def _wait_port(port: int, proc: subprocess.Popen, timeout_s: float = 30.0) -> None:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        assert proc.poll() is None, "the scheduler ended"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"nothing listens on port {port} after {timeout_s} s")


def _run_block(lines: list[str], tmp: Path) -> list[tuple[list[str], subprocess.CompletedProcess]]:
    """Run one block: dask processes in the background, the rest in order; returns the foreground results."""
    ports = {"8786": _free_port(), "8787": _free_port()}
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    background: list[subprocess.Popen] = []
    done: list[tuple[list[str], subprocess.CompletedProcess]] = []
    try:
        for line in lines:
            argv = _local(line, ports)
            tool = next(a for a in argv if "=" not in a and a != "env")
            if tool == "dask":
                p = subprocess.Popen(argv, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
                background.append(p)
                if "scheduler" in argv:
                    _wait_port(ports["8786"], p)
                continue
            done.append((argv, subprocess.run(argv, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)))
            assert done[-1][1].returncode == 0, (argv, done[-1][1].stderr[-3000:])
        return done
    finally:
        for p in reversed(background):  # Ctrl-C, as the page says: the scheduler last
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGINT)
        for p in background:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)


def _games(tmp: Path, out: str) -> int:
    con = sqlite3.connect(tmp / out / "results.sqlite")
    try:
        return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        con.close()


def test_the_cluster_page_works_as_written(tmp_path: Path) -> None:
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    plain, tls = _blocks()
    ran = _run_block(plain, tmp_path)
    (argv, study), = [(a, r) for a, r in ran if "stonelab" in a]
    assert _games(tmp_path, argv[argv.index("--out") + 1]) == int(argv[argv.index("--games") + 1])
    has_bokeh = importlib.util.find_spec("bokeh") is not None
    assert ("stonelab: Dask dashboard: http://127.0.0.1:" in study.stderr) == has_bokeh, study.stderr
    assert "take another maths code path" not in study.stderr  # the workers are pinned as the page says
    assert "played in" not in study.stderr  # one provenance


def test_the_tls_cluster_of_the_page_takes_only_a_client_with_the_key(tmp_path: Path) -> None:
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    _, tls = _blocks()
    certs = [ln for ln in tls if ln.startswith("openssl")]
    cluster = [ln for ln in tls if not ln.startswith("openssl")]
    scheduler = next(ln for ln in cluster if ln.startswith("dask scheduler"))
    client = next(ln for ln in cluster if "stonelab run" in ln)
    keyless = "stonelab run" + client.split("stonelab run", 1)[1].replace("on-the-tls-cluster", "without-key")
    ran = _run_block([*certs, *cluster], tmp_path)
    (argv, _study), = [(a, r) for a, r in ran if "stonelab" in a]
    assert _games(tmp_path, argv[argv.index("--out") + 1]) == int(argv[argv.index("--games") + 1])
    # the same cluster again, and a client that lacks the key: refused at the handshake, one line
    ports = {"8786": _free_port(), "8787": _free_port()}
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    p = subprocess.Popen(_local(scheduler, ports), cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_port(ports["8786"], p)
        done = subprocess.run(_local(keyless, ports), cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)
    finally:
        os.killpg(p.pid, signal.SIGINT)
        p.wait(30)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: key '--address': cannot reach the Dask scheduler at 'tls://127.0.0.1:")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
