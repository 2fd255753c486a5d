"""Stopping a test server started in a process group of its own (start_new_session=True), by
the harness that started it or, through its pid file, by a later `stop` command."""

from __future__ import annotations

import os
import signal
import subprocess
import time


def stop_group(pid: int, proc: subprocess.Popen | None = None, grace_s: float = 30.0) -> None:
    """SIGTERM to the group of `pid`, SIGKILL after `grace_s`; reaps `proc` when given."""
    try:
        os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while True:
            os.kill(pid, 0)  # ProcessLookupError once it is gone
            if proc is not None and proc.poll() is not None:
                break
            if time.monotonic() > deadline:
                os.killpg(pid, signal.SIGKILL)
                break
            time.sleep(0.1)
    except ProcessLookupError:
        pass
    if proc is not None:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
