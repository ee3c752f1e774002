"""The pinned maths code path (sim/core/mathpath.py): the settings, the re-exec of a real process
(same pid, arguments, stdin, exit code and signals; no loop), the opt-out, and the check of a remote
Dask cluster's workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sim.core import mathpath

ROOT = Path(__file__).resolve().parents[2]
pinnable = pytest.mark.skipif(not mathpath.applies(), reason="the maths code path is pinned on Linux/glibc/x86-64 only")

#: a program that pins itself, then shows what it runs with; "start" is printed before the pin,
#: so a re-exec prints it twice and a loop more often
PROGRAM = textwrap.dedent("""
    import os, sys
    print("start", os.getpid(), flush=True)
    from sim.core import mathpath
    mathpath.pin()
    env = mathpath.start_environ()
    print("tunables", env.get("GLIBC_TUNABLES"), flush=True)
    print("blas", env.get("OPENBLAS_CORETYPE"), flush=True)
    print("argv", sys.argv[1:], flush=True)
    print("mark", mathpath._MARK in os.environ, flush=True)
    print("stdin", sys.stdin.readline().strip(), flush=True)
    if sys.argv[1:] == ["wait"]:
        import time
        time.sleep(60)
    sys.exit(7)
""")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "OPENBLAS_CORETYPE", mathpath.OPT_OUT)}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return {**env, **extra}


def _lines(out: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in out.splitlines():
        key, _, rest = line.partition(" ")
        found.setdefault(key, []).append(rest)
    return found


def test_pinned_environ_replaces_the_hwcaps_item_and_keeps_other_tunables() -> None:
    env = {"GLIBC_TUNABLES": "glibc.malloc.arena_max=2:glibc.cpu.hwcaps=-AVX512F", "HOME": "/h"}
    pinned = mathpath.pinned_environ(env)
    assert pinned["GLIBC_TUNABLES"] == f"glibc.malloc.arena_max=2:glibc.cpu.hwcaps={mathpath.HWCAPS}"
    assert pinned["HOME"] == "/h"
    assert mathpath.in_effect(pinned) and not mathpath.in_effect(env) and not mathpath.in_effect({})
    # glibc applies tunables in order: the last hwcaps item is the one in effect
    assert mathpath.hwcaps_of({"GLIBC_TUNABLES": f"glibc.cpu.hwcaps={mathpath.HWCAPS}:glibc.cpu.hwcaps=-AVX2"}) == "-AVX2"


def test_opt_out_values() -> None:
    assert mathpath.opted_out({mathpath.OPT_OUT: "1"}) and mathpath.opted_out({mathpath.OPT_OUT: "Yes"})
    assert not mathpath.opted_out({}) and not mathpath.opted_out({mathpath.OPT_OUT: "0"})
    with pytest.raises(ValueError, match="STONELAB_NATIVE_MATH='maybe': allowed 1"):
        mathpath.opted_out({mathpath.OPT_OUT: "maybe"})


@pinnable
def test_pin_re_executes_once_keeping_pid_arguments_stdin_and_exit_code() -> None:
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM, "a b", "--x"], env=_env(GLIBC_TUNABLES="glibc.malloc.arena_max=2"),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate("hello\n", timeout=60)
    got = _lines(out)
    assert proc.returncode == 7
    assert "could not pin" not in err  # the re-exec'd process finds the pin in effect
    assert got["start"] == [str(proc.pid)] * 2  # exec'd once, in place: same process id, no loop
    assert got["tunables"] == [f"glibc.malloc.arena_max=2:glibc.cpu.hwcaps={mathpath.HWCAPS}"]
    assert got["blas"] == [mathpath.pinned_settings().get("OPENBLAS_CORETYPE", "None")]
    assert got["argv"] == [repr(["a b", "--x"])]
    assert got["mark"] == ["False"]  # the loop guard does not reach children
    assert got["stdin"] == ["hello"]


@pinnable
def test_pin_leaves_a_pinned_or_opted_out_process_alone_and_signals_reach_the_pinned_one() -> None:
    for env in (_env(**mathpath.pinned_environ({})), _env(**{mathpath.OPT_OUT: "1"})):
        out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, input="x\n", capture_output=True, text=True,
                             timeout=60).stdout
        assert len(_lines(out)["start"]) == 1
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM, "wait"], env=_env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("x\n")
    proc.stdin.flush()
    while not proc.stdout.readline().startswith("stdin"):  # pinned and running its own code now
        pass
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM


@pinnable
def test_the_command_keeps_its_arguments_and_exit_codes_through_the_re_exec(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    proc = subprocess.run([sys.executable, "-m", "sim.cli", "validate", str(missing)], env=_env(), cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and str(missing) in proc.stderr
    bad = subprocess.run([sys.executable, "-m", "sim.cli", "games"], env=_env(**{mathpath.OPT_OUT: "maybe"}), cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: environment variable STONELAB_NATIVE_MATH='maybe'") and bad.stdout == ""


def test_worker_differences_names_the_workers_and_the_fix() -> None:
    mine = {"glibc.cpu.hwcaps": mathpath.HWCAPS, "OPENBLAS_CORETYPE": "Nehalem"}
    other = {"glibc.cpu.hwcaps": None, "OPENBLAS_CORETYPE": None}
    assert mathpath.worker_differences(mine, {"tcp://a:1": mine, "tcp://b:2": mine}) is None
    msg = mathpath.worker_differences(mine, {"tcp://a:1": mine, "tcp://b:2": other})
    assert msg is not None and "1 of 2 Dask workers (tcp://b:2)" in msg and "dask worker ADDRESS" in msg
    assert "reproducible only statistically" in msg


@pinnable
def test_a_remote_cluster_whose_workers_take_another_path_is_warned_about(monkeypatch, capsys) -> None:
    """Workers started with another BLAS kernel than this process: the run says so on stderr."""
    from dask.distributed import LocalCluster

    from sim.core.cluster import DaskSession

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Core2" if mathpath.start_environ().get("OPENBLAS_CORETYPE") != "Core2"
                       else "Nehalem")  # the workers inherit this environment when they start
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with DaskSession(cluster.scheduler_address, 1) as session:
            session.wait_for_slots(announce=False)
    err = capsys.readouterr().err
    assert "1 of 1 Dask workers" in err and "take another maths code path" in err


def test_an_interpreter_that_cannot_be_executed_again_is_one_warning_line(monkeypatch, capsys) -> None:
    """The re-exec refused (PermissionError: an unprivileged user's venv whose real interpreter lies
    under a folder it cannot search): one line on stderr, and the process goes on natively."""
    def refuse(path, argv, env):  # noqa: ANN001, ANN202 - os.execve's signature
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(mathpath, "applies", lambda: True)
    monkeypatch.setattr(mathpath, "opted_out", lambda environ=None: False)
    monkeypatch.setattr(mathpath, "start_environ", lambda: {})  # not pinned at exec
    monkeypatch.setattr(os, "execve", refuse)
    mathpath.pin()  # returns: no traceback
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("stonelab: warning: could not restart ")
    assert "(Permission denied); going on with this CPU's native path" in err
