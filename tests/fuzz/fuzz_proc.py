"""Running flowgrad under a time limit, for the fuzz scripts: its own process group (a hung rank
and whatever it started are killed together), no standard input, output captured as text."""
import os
import signal
import subprocess
import time


def run_bounded(argv, cwd, env, timeout):
    """(exit code, stdout, stderr, timed out, seconds); the exit code is negative for a signal."""
    t0 = time.time()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        timed_out = True
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), timed_out, time.time() - t0
