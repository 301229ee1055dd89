#!/usr/bin/python3
"""The step is pure (issue 19): checked on the sources.

  1. The solver has no tape: struct _p_FGSolver (include/fg/solver.h) has no member named tape,
     and no file outside src/step/ assigns a member called tape (x->tape = ..., x.tape = ...).
     The tape is an argument of FGStepForward_RK3.
  2. The step's functions (FGStepForward_RK3, FGStepTangent_RK3, FGStepAdjoint_RK3 and the stage
     helpers in src/step/rk3.c) call no diagnostic and read no option: none of FORBIDDEN appears
     in src/step/rk3.c.

usage: check_step.py [ROOT]       check the repository (default: the one this file is in)
       check_step.py --self-test  the checker on synthetic trees: one clean, one per rule broken
"""
import os
import re
import sys
import tempfile

FORBIDDEN = ["FGBodiesControlVolumeBegin", "FGBodiesControlVolumeEnd", "FGSolverControlVolumeBegin",
             "FGSolverControlVolumeEnd", "FGSolverMonitorCompute", "FGProbesEvaluate", "FGSignalFrequency",
             "PetscOptionsGet", "PetscOptionsBegin", "PetscOptionsHasName"]
ASSIGN = re.compile(r"(?:->|\.)\s*tape\s*=(?!=)")


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", " ", re.sub(r"//[^\n]*", "", text), flags=re.S)


def check(root, out=sys.stdout):
    problems = []
    solver_h = os.path.join(root, "include", "fg", "solver.h")
    text = strip_comments(open(solver_h).read())
    m = re.search(r"struct\s+_p_FGSolver\s*\{(.*?)\};", text, re.S)
    if not m:
        problems.append("include/fg/solver.h: struct _p_FGSolver not found")
    elif re.search(r"\btape\b", m.group(1)):
        problems.append("include/fg/solver.h: struct _p_FGSolver has a member 'tape' (the tape is the step's argument)")
    for d, _, files in os.walk(os.path.join(root, "src")):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)
            if rel.startswith(os.path.join("src", "step") + os.sep):
                continue
            for n, line in enumerate(strip_comments(open(p).read()).splitlines(), 1):
                if ASSIGN.search(line):
                    problems.append(f"{rel}:{n}: assigns a tape member outside src/step/: {line.strip()}")
    rk3 = os.path.join(root, "src", "step", "rk3.c")
    code = strip_comments(open(rk3).read())
    for name in FORBIDDEN:
        if re.search(r"\b" + name + r"\w*\s*\(", code):
            problems.append(f"src/step/rk3.c calls {name}: diagnostics and options do not belong in the step")
    print(f"check_step: {len(problems)} problems", file=out)
    for p in problems:
        print("  " + p, file=out)
    return len(problems)


def self_test():
    top = tempfile.TemporaryDirectory(prefix="fg_step_")  # the synthetic trees, removed at exit
    def tree(solver_member, outside, rk3_extra):
        d = tempfile.mkdtemp(dir=top.name)
        os.makedirs(os.path.join(d, "include", "fg"))
        os.makedirs(os.path.join(d, "src", "step"))
        os.makedirs(os.path.join(d, "src", "adjoint"))
        open(os.path.join(d, "include", "fg", "solver.h"), "w").write("struct _p_FGSolver {\n  Vec u[3];\n" + solver_member + "};\n")
        open(os.path.join(d, "src", "adjoint", "sweep.c"), "w").write("void f(FGSolver s, FGStepTape T) {\n" + outside + "  FGStepForward_RK3(s, T);\n}\n")
        open(os.path.join(d, "src", "step", "rk3.c"), "w").write("/* FGSolverMonitorCompute in a comment is fine */\nint FGStepForward_RK3(FGSolver s, FGStepTape T) {\n  if (T) T->t0 = s->t;\n" + rk3_extra + "  return 0;\n}\n")
        return d
    cases = [("clean", tree("", "", ""), 0),
             ("solver member", tree("  FGStepTape tape;\n", "", ""), 1),
             ("assignment outside the step", tree("", "  s->tape = T;\n", ""), 1),
             ("diagnostic in the step", tree("", "", "  FGSolverControlVolumeEnd(s);\n"), 1),
             ("option read in the step", tree("", "", "  PetscOptionsGetBool(NULL, NULL, \"-x\", &b, NULL);\n"), 1)]
    ok = True
    for name, root, want in cases:
        with open(os.devnull, "w") as null:
            n = check(root, out=null)
        good = n == 0 if want == 0 else n > 0
        print(f"self-test {name}: {n} problems ({'as expected' if good else 'WRONG'})")
        ok = ok and good
    print("self-test:", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    sys.exit(1 if check(root) else 0)
