#!/usr/bin/python3
"""Install flowgrad into a temporary prefix and use it from outside (CTest install_external).

  check_install.py BUILD_DIR WORK_DIR CASE NP MPIEXEC [MPIEXEC_FLAGS...]

1. `cmake --install BUILD_DIR --prefix WORK_DIR/prefix`; the binary, launchers, headers, both
   libraries, the CMake package, flowgrad.pc and the tools are there.
2. tests/install/consumer (a program that loads a case and evaluates J and dJ/dp through the
   library) is built twice against that prefix: through find_package(flowgrad) and through
   pkg-config with a plain cc; both must load the installed libflowgrad.so.
3. The installed `flowgrad adjoint CASE` and both programs run on NP ranks; J and every dJ/dp
   must agree to 1e-12 (the same code), and the version the library reports must equal
   `flowgrad --version` and the flowgrad_version attribute of the gradient file.
Exit 0 when all holds, 1 with the reason otherwise.
"""
import csv
import glob
import os
import re
import shutil
import subprocess
import sys

import h5py

HERE = os.path.dirname(os.path.realpath(__file__))


def fail(msg):
    print("check_install: FAIL: " + msg)
    sys.exit(1)


def run(cmd, log=None, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if log:
        with open(log, "w") as f:
            f.write(r.stdout)
    if r.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:]))
    return r.stdout


def read_consumer(text):
    out = {"grad": {}}
    for line in text.splitlines():
        w = line.split()
        if len(w) == 2 and w[0] in ("version", "J"):
            out[w[0]] = w[1]
        elif len(w) == 3:
            out["grad"][w[0]] = (float(w[1]), float(w[2]))
    if "J" not in out or not out["grad"]:
        fail("the consumer printed no J or no gradient:\n" + text)
    return out


def main():
    build, work, case, np_, mpiexec = sys.argv[1:6]
    mpi = [mpiexec, "-n", np_] + sys.argv[6:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    prefix = os.path.join(work, "prefix")
    run(["cmake", "--install", build, "--prefix", prefix], os.path.join(work, "install.log"))

    # 1. the installed tree
    pcs = glob.glob(os.path.join(prefix, "lib*", "**", "flowgrad.pc"), recursive=True)
    if len(pcs) != 1:
        fail("expected one flowgrad.pc under %s, found %s" % (prefix, pcs))
    libdir = os.path.dirname(os.path.dirname(pcs[0]))
    need = ["bin/flowgrad", "bin/flowgrad-postproc", "bin/flowgrad-submit", "bin/flowgrad-campaign",
            "include/flowgrad.h", "include/fg/optim.h", "share/flowgrad/postproc/postproc",
            "share/flowgrad/jobs/run.sbatch", "share/flowgrad/jobs/lib/job.sh"]
    need += [os.path.relpath(os.path.join(libdir, f), prefix)
             for f in ("libflowgrad.so", "libflowgrad.a", "cmake/flowgrad/flowgradConfig.cmake",
                       "cmake/flowgrad/flowgradConfigVersion.cmake", "cmake/flowgrad/flowgradTargets.cmake")]
    for f in need:
        if not os.path.exists(os.path.join(prefix, f)):
            fail("not installed: " + f)
    flowgrad = os.path.join(prefix, "bin", "flowgrad")
    version = run([flowgrad, "--version"]).split("\n")[0].split()
    if len(version) != 2 or not re.fullmatch(r"\d+\.\d+\.\d+(-\d+)?(-g[0-9a-f]{4,})?(-dirty)?", version[1]):
        fail("flowgrad --version: %r is not 'flowgrad X.Y.Z[-N][-gHASH][-dirty]'" % " ".join(version))
    version = version[1]
    for tool, word in (("flowgrad-postproc", "sensitivity"), ("flowgrad-submit", "jobs/submit"),
                       ("flowgrad-campaign", "jobs/campaign")):
        if word not in run([os.path.join(prefix, "bin", tool), "--help"]):
            fail("%s --help does not print its usage ('%s')" % (tool, word))

    # 2. two builds of the consumer
    cm = os.path.join(work, "cmake-build")
    run(["cmake", "-S", os.path.join(HERE, "consumer"), "-B", cm, "-DCMAKE_PREFIX_PATH=" + prefix,
         "-DCMAKE_BUILD_TYPE=Release"], os.path.join(work, "consumer-cmake.log"))
    run(["cmake", "--build", cm], os.path.join(work, "consumer-build.log"))
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]))
    flags = run(["pkg-config", "--cflags", "--libs", "flowgrad"], env=env).split()
    pc_libdir = run(["pkg-config", "--variable=libdir", "flowgrad"], env=env).strip()
    pc_exe = os.path.join(work, "consumer-pkgconfig")
    run(["cc", "-std=c11", "-O2", "-o", pc_exe, os.path.join(HERE, "consumer", "consumer.c")] + flags
        + ["-Wl,-rpath," + pc_libdir], os.path.join(work, "consumer-pkgconfig.log"))
    exes = {"find_package": os.path.join(cm, "consumer"), "pkg-config": pc_exe}
    want = os.path.realpath(os.path.join(libdir, "libflowgrad.so"))
    for how, exe in exes.items():
        m = re.search(r"libflowgrad\.so\S* => (\S+)", run(["ldd", exe]))
        if not m or os.path.realpath(m.group(1)) != want:
            fail("the %s build does not load %s (ldd: %s)" % (how, want, m.group(1) if m else "no libflowgrad"))

    # 3. the same J and gradient as the installed flowgrad
    opts = ["-fg_fftw_planner", "estimate"]
    ref = os.path.join(work, "ref")
    run(mpi + [flowgrad, "adjoint", case, "--set", "output.dir=" + ref] + opts, os.path.join(work, "ref.log"))
    with open(os.path.join(ref, "gradient.csv")) as f:
        lines = f.read().splitlines()
    J_ref = float(next(ln for ln in lines if ln.startswith("# J = ")).split("=")[1])
    g_ref = {r["name"]: (float(r["value"]), float(r["gradient"]))
             for r in csv.DictReader(ln for ln in lines if not ln.startswith("#"))}
    with h5py.File(os.path.join(ref, "gradient.h5"), "r") as f:
        attr = f.attrs.get("flowgrad_version")
    attr = attr.decode() if isinstance(attr, bytes) else attr
    if attr != version:
        fail("gradient.h5's flowgrad_version %r is not flowgrad --version's %r" % (attr, version))
    worst = 0.0
    for how, exe in exes.items():
        out = read_consumer(run(mpi + [exe, case, os.path.join(work, "out-" + how)] + opts))
        if out.get("version") != version:
            fail("%s build: the library says version %r, flowgrad --version %r" % (how, out.get("version"), version))
        if set(out["grad"]) != set(g_ref):
            fail("%s build: design scalars %s, flowgrad adjoint's %s" % (how, sorted(out["grad"]), sorted(g_ref)))
        pairs = [(float(out["J"]), J_ref)] + [(out["grad"][k][i], g_ref[k][i]) for k in g_ref for i in (0, 1)]
        err = max(abs(a - b) / max(abs(b), 1e-300) if b else abs(a) for a, b in pairs)
        worst = max(worst, err)
        print("%-12s J = %.15g, %d gradient entries, largest relative difference %.2e" % (how, float(out["J"]), len(g_ref), err))
        if err > 1e-12:
            fail("%s build: J or dJ/dp differs from flowgrad adjoint's by %.2e (> 1e-12)" % (how, err))
    print("check_install: OK: version %s, J = %.15g, %d gradient entries agree to %.1e (both builds)" % (version, J_ref, len(g_ref), worst))


if __name__ == "__main__":
    main()
