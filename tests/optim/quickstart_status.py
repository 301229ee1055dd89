#!/usr/bin/python3
"""The quick start's optimization ends converged and says so (CTest quickstart_status).

  quickstart_status.py FLOWGRAD REPO WORK MPIEXEC [MPIEXEC_FLAGS...]

Runs `flowgrad optimize cases/shape_drag/quick.yaml` on 2 ranks as .ci/quickstart.sh does, then
postproc/optimization_summary.py --require-converged, and checks: exit 0; the final status lines
"status: converged" and "constraints: all hold" (stdout and optimization/outcome.txt); the
summary's plain OUTCOME line; and that the case file's comment ("It converges in N iterations")
tells the iteration count this run took. Exit 1 naming what failed.
"""
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("quickstart_status: FAIL: " + msg)
    sys.exit(1)


def main():
    flowgrad, repo, work, mpiexec = sys.argv[1:5]
    case = os.path.join(repo, "cases", "shape_drag", "quick.yaml")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "out")
    r = subprocess.run([mpiexec, "-n", "2", *sys.argv[5:], flowgrad, "optimize", case, "--set", "output.dir=" + out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail = "\n".join(r.stdout.splitlines()[-8:])
    print(tail)
    if r.returncode != 0:
        fail("flowgrad optimize exited %d" % r.returncode)
    for line in ("status: converged", "constraints: all hold"):
        if line not in r.stdout.splitlines():
            fail("the run does not end with '%s'" % line)
    with open(os.path.join(out, "optimization", "outcome.txt")) as f:
        outcome = f.read()
    if "status: converged" not in outcome or "constraints: all hold" not in outcome:
        fail("optimization/outcome.txt does not say converged / all hold:\n" + outcome)
    its = int(re.search(r"after (\d+) iterations", outcome).group(1))
    with open(case) as f:
        m = re.search(r"It converges in\s+(\d+)\s+iterations", f.read().replace("#", " "))
    if not m:
        fail("the comment of %s does not say 'It converges in N iterations'" % case)
    if int(m.group(1)) != its:
        fail("the comment of %s says %s iterations; the run took %d" % (case, m.group(1), its))
    s = subprocess.run(["/usr/bin/python3", os.path.join(repo, "postproc", "optimization_summary.py"), out,
                        "--require-converged"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(s.stdout)
    if s.returncode != 0 or "OUTCOME: the optimization converged; every constraint holds" not in s.stdout:
        fail("optimization_summary.py --require-converged: exit %d, no plain 'converged' outcome" % s.returncode)
    print("quickstart_status: OK: converged in %d iterations, every constraint holds" % its)


if __name__ == "__main__":
    main()
