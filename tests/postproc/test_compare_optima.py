#!/usr/bin/env python3
"""postproc/compare_optima.py on synthetic runs: two optima within 2 % of every range agree (exit
0), one parameter 3 % apart is named (exit 1), ranges from max_change; runs with other parameters,
a missing run and a damaged file exit 2 with one line.

    test_compare_optima.py COMPARE_OPTIMA.PY"""
import os, subprocess, sys, tempfile

script = sys.argv[1]
HEAD = "iteration,evaluations,J,J_rel,gradient_norm,step,max_violation,seconds,area,body.b.shape.r0,body.b.shape.a2\n"


def run_dir(root, name, design, bounds, last):
    d = os.path.join(root, name)
    os.makedirs(d)
    with open(os.path.join(d, "case.resolved.yaml"), "w") as f:
        f.write("name: \"t\"\ndesign:\n  time_basis: 1\n")
        f.write('  parameters: ["body.b.shape.r0", "body.b.shape.a2"]\n')
        f.write(bounds)
        f.write("objective:\n  drag:\n    kind: drag\n")
    with open(os.path.join(d, "optimization.csv"), "w") as f:
        f.write(HEAD.replace("body.b.shape.a2", design))
        f.write("0,1,2.0,1,0.1,0,0,1.0,0.78,0.5,0\n")
        f.write(f"5,9,1.5,0.75,0.001,0.01,0,9.0,0.78,{last[0]!r},{last[1]!r}\n")
    return d


def check(args, code, text):
    r = subprocess.run([sys.executable, script] + args, capture_output=True, text=True)
    out = r.stdout + r.stderr
    if r.returncode != code or text not in out or "Traceback" in out:
        sys.exit(f"FAIL: compare_optima.py {' '.join(args)}: exit {r.returncode} (expected {code}), "
                 f"expected '{text}' in:\n{out}")
    print(f"ok: exit {code}, '{text}'")


with tempfile.TemporaryDirectory() as root:
    lu = '  lower: ["0.3", "-0.2"]\n  upper: ["0.7", "0.2"]\n  max_change: []\n'
    a = run_dir(root, "a", "body.b.shape.a2", lu, (0.48, 0.10))
    b = run_dir(root, "b", "body.b.shape.a2", lu, (0.487, 0.106))      # 1.75 % and 1.5 % of the ranges
    c = run_dir(root, "c", "body.b.shape.a2", lu, (0.48, 0.112))       # a2 3 % of its range away
    check([a, b], 0, "the optima agree")
    check([a, b], 0, "largest difference: 1.75 % of the range")
    check([a, c], 1, "OUTSIDE the bound: body.b.shape.a2")
    check([a, b, "--max-diff", "0.01"], 1, "OUTSIDE the bound: body.b.shape.r0, body.b.shape.a2")
    mc = '  lower: []\n  upper: []\n  max_change: ["0.05"]\n'                 # range 0.1 for both
    d = run_dir(root, "d", "body.b.shape.a2", mc, (0.48, 0.10))
    e = run_dir(root, "e", "body.b.shape.a2", mc, (0.4815, 0.10))     # 1.5 % of 0.1
    check([d, e], 0, "largest difference: 1.50 % of the range")
    f = run_dir(root, "f", "body.b.shape.a3", lu, (0.48, 0.10))
    check([a, f], 2, "the runs' design parameters differ (body.b.shape.a2)")
    check([a, os.path.join(root, "none")], 2, "none/optimization.csv: cannot read the iterations (FileNotFoundError")
    with open(os.path.join(e, "optimization.csv"), "a") as g:
        g.write("6,10,oops\n")                                        # a damaged last row
    check([d, e], 2, "e/optimization.csv: cannot read the iterations")
print("compare_optima: all cases as expected")
