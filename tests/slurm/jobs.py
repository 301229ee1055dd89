#!/usr/bin/env python3
"""Tests of the job scripts (jobs/) and the campaign command, with and without SLURM.

  jobs.py --repo R --flowgrad F --work W [--cluster C] [--mpiexec M --mpiexec-flags L]
          [--reference DIR] SCENARIO

Without SLURM:
  dryrun         jobs/campaign --dry-run: the points and the two sbatch commands (array,
                 then the gather job after it), with sbatch unusable and nothing written;
                 sweep files (zip, explicit points); bad sweeps exit 2 and write nothing
  local          jobs/campaign --local: 3 points run here one after another, one summary table
  help_hook      every script answers --help; a site hook (FG_SITE_HOOK, jobs/site.sh) is sourced
                 by the jobs and jobs/submit, its exports reach the launch; a failing one: exit 2
  local_errors   jobs/submit and jobs/run.sbatch given a missing case file: exit 2, clear message;
                 a case flowgrad info rejects is not submitted; --resume passes the check;
                 FG_MAX_REQUEUES; flowgrad info leaves no directory behind
With the private SLURM of tests/slurm/cluster.sh (exit 77, skipped, when it is not up):
  forward        a 2-rank forward job (jobs/submit -n 2 run) equals a direct mpiexec run
  campaign       a 3-point campaign: a job array and a gather job after it; one table
  preempt        an optimization job stopped by scancel --signal=USR1 --batch is requeued,
                 resumes, and ends at the design of an uninterrupted run (--reference, 1e-8)
  preempt_forward, preempt_adjoint
                 the same for a forward run (fields and history equal an uninterrupted run's)
                 and a gradient job (the same gradient)
  missing        jobs/submit with a missing case file submits nothing (exit 2); the script
                 submitted directly fails at once with exit 2, not requeued
  launch_failure srun exits 0 without starting the tasks: the job fails (exit 1), not "done"
  cancel         scancel: flowgrad saves its state, the job ends CANCELLED, not requeued; a
                 resubmission with --resume continues from the checkpoint
  campaign_failure  a failing point: the gather runs anyway and fails; a resubmission resets the
                 points' states; another campaign under the same name is refused
  paths          spaces in the script, case and submission paths (plain sbatch)
"""
import argparse
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

SKIP = 77


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok:", msg, flush=True)


def run(cmd, env=None, cwd=None, timeout=300, code=None):
    print("$", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    print(r.stdout, end="", flush=True)
    if code is not None and r.returncode != code:
        fail(f"exit {r.returncode}, expected {code}: {' '.join(cmd)}")
    return r


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


class Ctx:
    def __init__(self, a):
        self.a = a
        self.repo = os.path.abspath(a.repo)
        self.jobs = os.path.join(self.repo, "jobs")
        self.py = sys.executable
        self.work = os.path.abspath(a.work)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.env = dict(os.environ, FLOWGRAD=os.path.abspath(a.flowgrad), FG_PYTHON=self.py)
        self.env.pop("SLURM_CONF", None)
        self.cavity = os.path.join(self.repo, "cases", "cavity", "cavity.yaml")

    def campaign(self, args, code=None, env=None):
        return run([self.py, os.path.join(self.jobs, "campaign"), *args], env=env or self.env,
                   cwd=self.work, code=code)

    # --- SLURM ---------------------------------------------------------------------------
    def slurm(self):
        state_file = os.path.join(self.a.cluster, "state")
        try:
            state = open(state_file).read().strip()
        except OSError:
            state = "not started (the fixture slurm_up did not run)"
        if state.startswith("skip:"):
            print(f"SKIP: SLURM tests: {state[5:].strip()}")
            sys.exit(SKIP)
        if state != "up":
            fail(f"the test SLURM is not up: {state_file}: {state}")
        self.env["SLURM_CONF"] = os.path.join(os.path.abspath(self.a.cluster), "etc", "slurm.conf")
        r = subprocess.run(["scontrol", "ping"], env=self.env, stdout=subprocess.PIPE, text=True)
        check(r.returncode == 0 and "UP" in r.stdout, "slurmctld answers")

    def sq(self, *args):
        r = subprocess.run(list(args), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return r.stdout

    def job(self, jid):
        """scontrol's record of a job: a dict of its key=value fields (first record)."""
        out = self.sq("scontrol", "-o", "show", "job", str(jid))
        line = out.splitlines()[0] if out.strip() else ""
        return dict(re.findall(r"(\w+)=(\S*)", line))

    def jobs_of(self, jid):
        out = self.sq("scontrol", "-o", "show", "job", str(jid))
        return [dict(re.findall(r"(\w+)=(\S*)", l)) for l in out.splitlines() if l.strip()]

    def wait(self, ids, timeout=240):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if not self.sq("squeue", "-h", "-j", ",".join(map(str, ids)), "-o", "%i").strip():
                return time.time() - t0
            time.sleep(0.5)
        print(self.sq("squeue"))
        fail(f"jobs {ids} did not end within {timeout} s")

    def njobs(self):
        return len([l for l in self.sq("scontrol", "-o", "show", "jobs").splitlines() if l.startswith("JobId=")])


def same_run(da, db, rtol):
    """Every field dataset and history column (but wall_time) of two run directories: the largest
    difference relative to the largest |value| of that dataset or column."""
    fa = sorted(os.path.basename(f) for f in glob.glob(os.path.join(da, "fields", "*.h5")))
    fb = sorted(os.path.basename(f) for f in glob.glob(os.path.join(db, "fields", "*.h5")))
    check(fa and fa == fb, f"the same field files ({len(fa)})")
    worst = 0.0
    for name in fa:
        with h5py.File(os.path.join(da, "fields", name), "r") as a, h5py.File(os.path.join(db, "fields", name), "r") as b:
            for k in a:
                if isinstance(a[k], h5py.Dataset):
                    x, y = a[k][...], b[k][...]
                    worst = max(worst, float(np.abs(x - y).max() / max(np.abs(x).max(), 1e-300)))
    ha, hb = read_rows(os.path.join(da, "history.csv")), read_rows(os.path.join(db, "history.csv"))
    check(len(ha) == len(hb) and len(ha) > 1, f"history rows {len(ha)} == {len(hb)}")
    for k in ha[0]:
        if k == "wall_time":
            continue
        x = np.array([float(r[k]) for r in ha])
        y = np.array([float(r[k]) for r in hb])
        worst = max(worst, float(np.abs(x - y).max() / max(np.abs(x).max(), 1e-300)))
    print(f"largest relative difference (fields and history): {worst:.3e}")
    check(worst <= rtol, f"SLURM run equals the mpiexec run to {rtol:g} (measured {worst:.3e})")


# --- scenarios without SLURM -------------------------------------------------------------------
def scenario_dryrun(c):
    # an sbatch that must not be called
    fake = os.path.join(c.work, "fakebin")
    os.makedirs(fake)
    marker = os.path.join(c.work, "sbatch-was-called")
    for tool in ("sbatch", "squeue", "scontrol"):
        with open(os.path.join(fake, tool), "w") as f:
            f.write(f"#!/bin/sh\necho called > {marker}\nexit 1\n")
        os.chmod(os.path.join(fake, tool), 0o755)
    env = dict(c.env, PATH=fake + os.pathsep + c.env["PATH"])
    r = c.campaign([c.cavity, "--sweep", "flow.re=100,200,400", "--set", "time.steps=20", "-n", "2",
                    "--name", "dry", "--sbatch", "-t 00:10:00 -p debug -A proj --qos=high", "--throttle", "2", "--dry-run"],
                   code=0, env=env)
    out = r.stdout
    cdir = os.path.join(c.work, "runs", "cavity", "dry")
    check(not os.path.exists(os.path.join(c.work, "runs")), "dry run writes nothing")
    check(not os.path.exists(marker), "dry run calls no SLURM command")
    for i, (name, re_) in enumerate((("p0-re100", 100), ("p1-re200", 200), ("p2-re400", 400))):
        check(re.search(rf"^\s+{i}\s+{name}\s+flow\.re={re_}$", out, re.M), f"point {i} listed: {name} flow.re={re_}")
    arr = [l for l in out.splitlines() if l.startswith("ARRAY_JOB_ID=$(sbatch ")]
    check(len(arr) == 1, "one array submission line")
    a = arr[0]
    for part in ("--array=0-2%2", "--ntasks=2", f"--output={cdir}/logs/point-%a-%A.out", " -t 00:10:00 -p debug ",
                 f"{c.jobs}/run.sbatch {c.cavity} --points {cdir}/points.tsv --set time.steps=20)"):
        check(part in a, f"array line has '{part}'")
    g = [l for l in out.splitlines() if l.startswith("sbatch ") and "--dependency=afterany:${ARRAY_JOB_ID}" in l]
    check(len(g) == 1, "one gather line, after the array (afterany)")
    check(g[0].endswith(f"{c.jobs}/postproc.sbatch --campaign {cdir}"), "the gather job runs postproc --campaign")
    check(" -p debug -A proj --qos=high " in g[0] and "-t 00:10:00" not in g[0],
          "the gather job gets the site options of --sbatch (partition, account, QOS), not the points' time limit")

    # a sweep file: zip mode, a list value, and explicit points
    sf = os.path.join(c.work, "sweep.yaml")
    with open(sf, "w") as f:
        f.write("mode: zip\nparameters:\n  flow.re: [100, 250.5]\n  grid.cells: [[32, 32], [48, 48]]\n")
    r = c.campaign([c.cavity, "--sweep-file", sf, "--job", "adjoint", "--dry-run"], code=0)
    check(re.search(r"^\s+0\s+p0-re100_cells32-32\s+flow\.re=100 grid\.cells=\[32,32\]$", r.stdout, re.M) and
          re.search(r"^\s+1\s+p1-re250\.5_cells48-48\s+flow\.re=250\.5 grid\.cells=\[48,48\]$", r.stdout, re.M),
          "zip sweep file: 2 points with list values")
    check("--array=0-1 " in r.stdout and "/adjoint.sbatch " in r.stdout, "adjoint job array of 2")
    with open(sf, "w") as f:
        f.write("points:\n  - {name: low, set: {flow.re: 50}}\n  - {name: high, set: {flow.re: 500, time.steps: 7}}\n")
    r = c.campaign([c.cavity, "--sweep-file", sf, "--dry-run"], code=0)
    check(re.search(r"^\s+1\s+high\s+flow\.re=500 time\.steps=7$", r.stdout, re.M), "explicit points by name")
    r = c.campaign([c.cavity, "--sweep", "flow.re=1,2", "--sweep", "time.steps=3,4,5", "--dry-run"], code=0)
    check("--array=0-5 " in r.stdout and re.search(r"^\s+5\s+p5-re2_steps5\s", r.stdout, re.M),
          "two --sweep keys: all 6 combinations")

    # bad sweeps: exit 2, a message, nothing written
    bad = [
        (["--sweep", "flow.re=1,2", "--sweep", "time.steps=3", "--zip"], "zip needs the same number of values"),
        (["--sweep", "flowre=1,2"], "'flowre' is not a case key"),
        (["--sweep", "flow.re=100,-5"], r"point p1-re-5 \(flow\.re=-5\): flowgrad info rejects it:\n.*flow\.re=-5: -5 is out of range"),
        (["--sweep", "flow.re=100", "--set", "output.dir=x"], "each point's run directory is set by the campaign"),
        ([], "no sweep"),
    ]
    for args, msg in bad:
        r = c.campaign([c.cavity, *args], code=2)
        check(re.search(msg, r.stdout), f"bad sweep {args}: exit 2 with '{msg}'")
    r = c.campaign([os.path.join(c.work, "nothere.yaml"), "--sweep", "flow.re=1"], code=2)
    check("nothere.yaml' does not exist" in r.stdout, "missing case file: exit 2")
    check(not os.path.exists(os.path.join(c.work, "runs")), "bad sweeps write nothing")


def scenario_local(c):
    r = c.campaign([c.cavity, "--sweep", "flow.re=100,200,400", "--set", "time.steps=20",
                    "--set", "grid.cells=[32,32]", "--local", "--name", "loc", "-n", "2"], code=0)
    cdir = os.path.join(c.work, "runs", "cavity", "loc")
    check_summary(c, cdir, {"p0-re100": "100", "p1-re200": "200", "p2-re400": "400"}, "kinetic_energy")


def check_summary(c, cdir, expect, metric):
    rows = read_rows(os.path.join(cdir, "summary.csv"))
    check([r["point"] for r in rows] == list(expect), f"summary.csv: one row per point ({len(rows)})")
    for r in rows:
        d = os.path.join(cdir, r["point"])
        check(r["status"] == "done" and r["rc"] == "0", f"{r['point']}: done, exit 0")
        check(r["flow.re"] == expect[r["point"]], f"{r['point']}: flow.re = {expect[r['point']]} in the table")
        resolved = open(os.path.join(d, "case.resolved.yaml")).read()
        check(re.search(rf"^\s+re: {expect[r['point']]}\b", resolved, re.M), f"{r['point']}: the run used flow.re = {expect[r['point']]}")
        last = read_rows(os.path.join(d, "history.csv"))[-1]
        check(float(r[metric]) == float(last[metric]), f"{r['point']}: {metric} {r[metric]} is the history's last row")
    vals = [float(r[metric]) for r in rows]
    check(len(set(vals)) == len(vals), "the points differ")
    png = os.path.join(cdir, "summary.png")
    check(os.path.getsize(png) > 5000, f"summary.png written ({os.path.getsize(png)} bytes)")


def scenario_local_errors(c):
    missing = os.path.join(c.work, "nothere.yaml")
    t0 = time.time()
    r = run(["bash", os.path.join(c.jobs, "submit"), "-n", "2", "run", missing], env=c.env, cwd=c.work, code=2)
    check(f"case file '{missing}' does not exist" in r.stdout, "jobs/submit: the message names the file")
    r = run(["bash", os.path.join(c.jobs, "run.sbatch"), missing, "--set", "flow.re=10"], env=c.env, cwd=c.work, code=2)
    check(f"case file '{missing}' does not exist" in r.stdout, "jobs/run.sbatch: the message names the file")
    check(time.time() - t0 < 20, f"both fail fast ({time.time() - t0:.1f} s)")
    check(not os.path.exists(os.path.join(c.work, "runs")), "no run directory is made")
    r = run(["bash", os.path.join(c.jobs, "submit"), "run", c.cavity, "--set", "flow.re=-1"], env=c.env, cwd=c.work, code=2)
    check("flow.re=-1: -1 is out of range" in r.stdout and "not submitted" in r.stdout,
          "jobs/submit: a case flowgrad info rejects is not submitted")
    r = run(["bash", os.path.join(c.jobs, "submit"), "frobnicate", c.cavity], env=c.env, cwd=c.work, code=2)
    check("unknown job kind 'frobnicate'" in r.stdout, "jobs/submit: unknown job kind")
    r = run(["bash", os.path.join(c.jobs, "submit"), "--mem-per-gpu", "4G", "run", c.cavity], env=c.env, cwd=c.work, code=2)
    check("write it as --mem-per-gpu=4G" in r.stdout, "jobs/submit: an unknown sbatch option's value: a hint")
    r = run(["bash", os.path.join(c.jobs, "submit"), "--dry-run", "-t", "00:04:00", "run", c.cavity, "--resume",
             "-poisson_ksp_rtol", "1e-8"], env=c.env, cwd=c.work, code=0)
    check("--resume -poisson_ksp_rtol 1e-8" in r.stdout, "jobs/submit: --resume and PETSc options pass the check and reach the job")
    check("--signal=B:USR1@48" in r.stdout, "a 4 min limit gets a 48 s signal lead instead of the script's 300 s")
    # a job requeued too often stops requeueing itself
    r = run(["bash", os.path.join(c.jobs, "run.sbatch"), c.cavity, "--out", os.path.join(c.work, "maxrq")],
            env=dict(c.env, SLURM_RESTART_COUNT="4", FG_MAX_REQUEUES="3"), cwd=c.work, code=75)
    check("requeued 4 times (FG_MAX_REQUEUES=3): giving up" in r.stdout, "FG_MAX_REQUEUES: exit 75, giving up")
    # flowgrad info (the check before submitting) leaves no directory behind
    for d in ("a/b/c", "x/../y/z", "./r/./s/"):
        run([c.a.flowgrad, "info", c.cavity, "--set", f"output.dir={d}"], env=c.env, cwd=c.work, code=0)
    left = sorted(set(os.listdir(c.work)) - {"maxrq"})
    check(left == [], f"flowgrad info created nothing ({left})")


def scenario_help_hook(c):
    # every script answers --help with its usage, exit 0, and writes nothing
    for script, usage in (("run.sbatch", "jobs/run.sbatch CASE.yaml"), ("adjoint.sbatch", "jobs/adjoint.sbatch CASE.yaml"),
                          ("optimize.sbatch", "jobs/optimize.sbatch CASE.yaml"), ("postproc.sbatch", "jobs/postproc.sbatch RUN_DIR"),
                          ("submit", "jobs/submit [sbatch options]"), ("campaign", "jobs/campaign [options] CASE.yaml")):
        cmd = [c.py if script == "campaign" else "bash", os.path.join(c.jobs, script)]
        for flag in ("--help", "-h"):
            r = run(cmd + [flag], env=c.env, cwd=c.work, code=0)
            check(usage in r.stdout, f"jobs/{script} {flag}: exit 0 and its usage ('{usage}')")
    r = run(["bash", os.path.join(c.jobs, "run.sbatch"), c.cavity, "--help"], env=c.env, cwd=c.work, code=0)
    check("jobs/run.sbatch CASE.yaml" in r.stdout, "--help after the case file: the usage, nothing run")
    check(os.listdir(c.work) == [], "--help writes nothing")

    # a site hook (FG_SITE_HOOK): sourced before the job starts, what it exports reaches the launch
    marker = os.path.join(c.work, "hook-ran")
    hook = os.path.join(c.work, "site hook.sh")
    with open(hook, "w") as f:
        f.write(f'echo "$FG_HOOK_TAG" >> "{marker}"\nexport FG_NP=2\n')
    env = dict(c.env, FG_SITE_HOOK=hook, FG_HOOK_TAG="tag-1")
    out = os.path.join(c.work, "hooked")
    r = run(["bash", os.path.join(c.jobs, "run.sbatch"), c.cavity, "--set", "time.steps=4", "--out", out], env=env, cwd=c.work, code=0)
    check(open(marker).read().split() == ["tag-1"], "run.sbatch sourced FG_SITE_HOOK once")
    check(f"site hook {hook}" in r.stdout and re.search(r"command: mpiexec -n 2 ", r.stdout),
          "the job log names the hook, and FG_NP=2 from the hook reaches the launcher")
    run(["bash", os.path.join(c.jobs, "submit"), "--dry-run", "run", c.cavity], env=env, cwd=c.work, code=0)
    check(open(marker).read().split() == ["tag-1", "tag-1"], "jobs/submit sources it too")
    # jobs/site.sh of a copy of jobs/ is the default hook
    copy = os.path.join(c.work, "jobs-copy")
    shutil.copytree(c.jobs, copy)
    with open(os.path.join(copy, "site.sh"), "w") as f:
        f.write(f'echo default >> "{marker}"\n')
    run(["bash", os.path.join(copy, "run.sbatch"), c.cavity, "--set", "time.steps=2", "--out", out], env=c.env, cwd=c.work, code=0)
    check(open(marker).read().split()[-1] == "default", "jobs/site.sh is sourced when FG_SITE_HOOK is not set")
    # a failing or missing hook stops the job at once: exit 2, the reason, nothing run
    with open(hook, "w") as f:
        f.write("module_that_is_not_there 2>/dev/null\n")
    for script in ("run.sbatch", "submit"):
        args = ["run", c.cavity] if script == "submit" else [c.cavity, "--out", os.path.join(c.work, "nothere")]
        r = run(["bash", os.path.join(c.jobs, script), *args], env=env, cwd=c.work, code=2)
        check(f"site hook {hook} failed (status 127)" in r.stdout, f"{script}: a failing hook: exit 2, named, with its status")
    r = run(["bash", os.path.join(c.jobs, "run.sbatch"), c.cavity], env=dict(c.env, FG_SITE_HOOK=hook + ".missing"),
            cwd=c.work, code=2)
    check(f"site hook '{hook}.missing' (FG_SITE_HOOK or jobs/site.sh) is not a readable file" in r.stdout,
          "a missing hook: exit 2, named")
    check(not os.path.exists(os.path.join(c.work, "nothere")) and not os.path.exists(os.path.join(c.work, "runs")),
          "no run directory after a hook failure")


# --- scenarios with SLURM ----------------------------------------------------------------------
def submit(c, args):
    r = run(["bash", os.path.join(c.jobs, "submit"), *args], env=c.env, cwd=c.work, code=0)
    return int(r.stdout.strip().splitlines()[-1])


def direct_run(c, kind, case, sets, job_dir):
    """The same flowgrad command run directly (mpiexec -n 2) into <work>/direct, with the FFT plans
    of the job's run (FFTW_MEASURE picks plans by timing them; another plan rounds differently)."""
    ref = os.path.join(c.work, "direct")
    os.makedirs(ref)
    shutil.copy(os.path.join(job_dir, "fftw.wisdom"), ref)
    mpi = [c.a.mpiexec, "-n", "2", *[f for f in c.a.mpiexec_flags.split(",") if f]]
    run([*mpi, c.a.flowgrad, kind, case, *sets, "--set", f"output.dir={ref}"], env=c.env, cwd=c.work, code=0)
    return ref


def scenario_forward(c):
    c.slurm()
    case = os.path.join(c.repo, "cases", "cylinder_re40", "cylinder_re40.yaml")
    sets = ["--set", "grid.cells=[96,48]", "--set", "time.steps=40", "--set", "output.fields_every=20"]
    jid = submit(c, ["-n", "2", "-t", "00:05:00", "run", case, *sets, "--name", "slurm"])
    dt = c.wait([jid])
    j = c.job(jid)
    out = os.path.join(c.work, "runs", "cylinder_re40", "run-slurm")
    check(j.get("JobState") == "COMPLETED" and j.get("ExitCode") == "0:0", f"job {jid} COMPLETED, exit 0:0 ({dt:.1f} s)")
    log = open(os.path.join(out, f"slurm-{jid}.out")).read()
    check("decomposition: slab, 2 ranks" in log and "srun " in log, "2 ranks started by srun")
    check(open(os.path.join(out, "job.status")).read().split()[2] == "state=done", "job.status: done")
    ref = direct_run(c, "run", case, sets, out)
    same_run(out, ref, 1e-13)


def scenario_campaign(c):
    c.slurm()
    r = c.campaign([c.cavity, "--sweep", "flow.re=100,200,400", "--set", "time.steps=30",
                    "--set", "grid.cells=[32,32]", "--name", "slurm", "--sbatch", "-t 00:05:00"], code=0)
    aid, gid = map(int, r.stdout.strip().splitlines()[-1].split())
    dt = c.wait([aid, gid])
    tasks = c.jobs_of(aid)
    check(len(tasks) == 3 and all(t.get("JobState") == "COMPLETED" for t in tasks),
          f"array {aid}: 3 tasks COMPLETED ({dt:.1f} s)")
    g = c.job(gid)
    check(g.get("JobState") == "COMPLETED", f"gather job {gid} COMPLETED")
    last_end = max(t["EndTime"] for t in tasks)
    check(g["StartTime"] >= last_end, f"the gather job started ({g['StartTime']}) after the last task ended ({last_end})")
    cdir = os.path.join(c.work, "runs", "cavity", "slurm")
    check_summary(c, cdir, {"p0-re100": "100", "p1-re200": "200", "p2-re400": "400"}, "kinetic_energy")
    glog = open(glob.glob(os.path.join(cdir, "logs", f"gather-{gid}.out"))[0]).read()
    check("3 points, 3 done" in glog, "the gather log reports 3 of 3 points done")


def preempt(c, kind, case, args, ready, what, then=None):
    """Submit a 2-rank job, wait until ready(run_dir) holds, stop it with scancel --signal=USR1
    --batch (the preemption signal, to the batch shell), wait for it to be requeued, to resume and
    to end; check the job's record and logs. Returns the run directory, its log text, the job id."""
    stem = os.path.splitext(os.path.basename(case))[0]
    jid = submit(c, ["-n", "2", "-t", "00:10:00", kind, case, *args, "--name", "preempt"])
    out = os.path.join(c.work, "runs", stem, f"{kind}-preempt")
    if then:
        then(jid, out)
    t0 = time.time()
    while not ready(out):
        if time.time() - t0 > 180:
            fail(f"job {jid} did not reach '{what}' within 180 s")
        state = c.job(jid).get("JobState")
        if state not in ("PENDING", "RUNNING", "CONFIGURING"):
            fail(f"job {jid} ended before it could be preempted: {state}")
        time.sleep(0.2)
    print(f"{what}: sending USR1 to the batch shell of job {jid}", flush=True)
    run(["scancel", "--signal=USR1", "--batch", str(jid)], env=c.env, code=0)
    dt = c.wait([jid], timeout=400)
    j = c.job(jid)
    check(j.get("JobState") == "COMPLETED" and j.get("ExitCode") == "0:0", f"job {jid} COMPLETED after the requeue ({dt:.1f} s)")
    check(j.get("Restarts") == "1", f"requeued once (Restarts={j.get('Restarts')})")
    log = open(os.path.join(out, f"slurm-{jid}.out")).read()
    check("SIGUSR1 received" in log and "flowgrad exited with 75" in log and f"requeueing job {jid}" in log,
          "the batch shell forwarded USR1, flowgrad exited 75, the job requeued itself")
    check(re.search(r"restart 1\b", log) and log.count(f"flowgrad {kind} job") == 2, "the log holds both runs (appended)")
    status = open(os.path.join(out, "job.log")).read()
    check("state=requeued rc=75" in status and status.strip().splitlines()[-1].split()[2] == "state=done",
          "job.log: requeued, then done")
    return out, log, jid


def log_has(out, pattern):
    logs = glob.glob(os.path.join(out, "slurm-*.out"))
    return bool(logs) and re.search(pattern, open(logs[0]).read(), re.M) is not None


def scenario_preempt(c):
    """An optimization (tests/optim/shape.yaml), preempted after its 3rd evaluation."""
    c.slurm()
    case = os.path.join(c.repo, "tests", "optim", "shape.yaml")
    ref = os.path.abspath(c.a.reference)
    check(os.path.exists(os.path.join(ref, "optimization", "result.csv")), f"reference run {ref}")
    evals = lambda out: glob.glob(os.path.join(out, "optimization", "evaluations", "eval_*.h5"))
    post = []
    # a postprocessing job chained after it (afterok): it must wait through the requeue
    then = lambda jid, out: post.append(submit(c, ["--after", str(jid), "postproc", out]))
    out, log, jid = preempt(c, "optimize", case, [], lambda out: len(evals(out)) >= 3, "3 evaluations logged", then)
    m = re.search(r"resuming: replaying (\d+) logged evaluations", log)
    check(m and int(m.group(1)) >= 3, f"the rerun replayed the logged evaluations ({m.group(1) if m else 'none'})")
    run([c.py, os.path.join(c.repo, "tests", "optim", "check_optimization.py"), "same", out, ref, "--rtol", "1e-8"],
        env=c.env, code=0)
    c.wait(post, timeout=120)
    p, o = c.job(post[0]), c.job(jid)
    check(p.get("JobState") == "COMPLETED" and p["StartTime"] >= o["EndTime"],
          f"the chained postproc job {post[0]} ran after the optimization's final end ({p['StartTime']} >= {o['EndTime']})")
    plog = open(os.path.join(out, f"slurm-{post[0]}.out")).read()
    final = read_rows(os.path.join(out, "optimization.csv"))[-1]["J"]
    check(re.search(rf"^  J = {re.escape(repr(float(final)))}$", plog, re.M), f"its summary shows the final J = {final}")
    check(os.path.getsize(os.path.join(out, "optimization", "history.png")) > 5000, "its history plot")


def scenario_preempt_forward(c):
    """A forward run preempted at step >= 500 of 3000 resumes from its checkpoint and ends with the
    fields and history of an uninterrupted run (the same FFT plans: bit for bit expected)."""
    c.slurm()
    case = os.path.join(c.repo, "cases", "cylinder_re40", "cylinder_re40.yaml")
    sets = ["--set", "grid.cells=[256,128]", "--set", "time.steps=3000", "--set", "output.monitor_every=100",
            "--set", "output.fields_every=1000"]
    out, log, _ = preempt(c, "run", case, sets, lambda out: log_has(out, r"^step\s+(5|6|7|8|9)00/3000"), "step 500")
    m = re.search(r"resuming from \S+: step (\d+)", log)
    check(m and 500 <= int(m.group(1)) < 3000, f"the rerun resumed from the checkpoint at step {m.group(1) if m else '?'}")
    ref = direct_run(c, "run", case, sets, out)
    same_run(out, ref, 1e-13)


def scenario_preempt_adjoint(c):
    """A gradient job preempted in its forward run (step >= 300 of 1000) resumes from the state file
    and gives the gradient of an uninterrupted run."""
    c.slurm()
    case = os.path.join(c.repo, "tests", "adjoint", "cylinder.yaml")
    sets = ["--set", "time.steps=1000", "--set", "grid.cells=[128,64]", "--set", "output.monitor_every=100"]
    out, log, _ = preempt(c, "adjoint", case, sets,
                       lambda out: log_has(out, r"^adjoint: forward step\s+(3|4|5|6|7|8|9)00 "), "forward step 300")
    m = re.search(r"adjoint: resuming the forward run at step (\d+)", log)
    check(m and 300 <= int(m.group(1)) < 1000, f"the rerun resumed the forward run at step {m.group(1) if m else '?'}")
    ref = direct_run(c, "adjoint", case, sets, out)
    run([c.py, os.path.join(c.repo, "tests", "adjoint", "compare_gradients.py"), "--rtol", "1e-13", "--fields",
         ref, out], env=c.env, code=0)


def scenario_missing(c):
    c.slurm()
    missing = os.path.join(c.work, "nothere.yaml")
    before = c.njobs()
    t0 = time.time()
    r = run(["bash", os.path.join(c.jobs, "submit"), "-n", "2", "run", missing], env=c.env, cwd=c.work, code=2)
    check(f"case file '{missing}' does not exist" in r.stdout, "jobs/submit names the missing file")
    check(c.njobs() == before, f"nothing submitted ({before} job records before and after)")
    # the script submitted directly (no jobs/submit): it fails as soon as it starts, not requeued
    r = run(["sbatch", "--parsable", "-n", "1", "-t", "00:02:00", f"--output={c.work}/direct-%j.out",
             os.path.join(c.jobs, "run.sbatch"), missing], env=c.env, cwd=c.work, code=0)
    jid = int(r.stdout.strip().split(";")[0])
    c.wait([jid], timeout=60)
    j = c.job(jid)
    check(j.get("JobState") == "FAILED" and j.get("ExitCode") == "2:0" and j.get("Restarts") == "0",
          f"direct sbatch: FAILED with exit 2, not requeued ({j.get('JobState')}, {j.get('ExitCode')}, restarts {j.get('Restarts')})")
    log = open(os.path.join(c.work, f"direct-{jid}.out")).read()
    check(f"case file '{missing}' does not exist" in log, "its log names the missing file")
    check(time.time() - t0 < 60, f"all within {time.time() - t0:.1f} s")


def scenario_cancel(c):
    """scancel (SIGTERM to the batch shell and the tasks) stops a running job for good: flowgrad
    saves its state (exit 75), the job is not requeued, and --resume continues it later."""
    c.slurm()
    case = os.path.join(c.repo, "cases", "cylinder_re40", "cylinder_re40.yaml")
    sets = ["--set", "grid.cells=[256,128]", "--set", "time.steps=3000", "--set", "output.monitor_every=100"]
    jid = submit(c, ["-n", "2", "-t", "00:10:00", "run", case, *sets, "--name", "cancel"])
    out = os.path.join(c.work, "runs", "cylinder_re40", "run-cancel")
    t0 = time.time()
    while not log_has(out, r"^step\s+[3-9]00/3000"):
        if time.time() - t0 > 120 or c.job(jid).get("JobState") not in ("PENDING", "RUNNING", "CONFIGURING"):
            fail(f"job {jid} did not reach step 300 while running")
        time.sleep(0.2)
    run(["scancel", str(jid)], env=c.env, code=0)
    c.wait([jid], timeout=120)
    time.sleep(3)  # a requeue, if any, would show by now
    j = c.job(jid)
    check(j.get("JobState") == "CANCELLED" and j.get("Restarts") == "0", f"job {jid} CANCELLED, not requeued ({j.get('JobState')}, restarts {j.get('Restarts')})")
    log = open(os.path.join(out, f"slurm-{jid}.out")).read()
    m = re.search(r"stopped on SIG\w+ at step (\d+)", log)
    check(m is not None, f"flowgrad saved a checkpoint at step {m.group(1) if m else '?'} and exited 75")
    check("not requeued by this script" in log and "state=stopped rc=75" in open(os.path.join(out, "job.status")).read(),
          "the job says it was not requeued; job.status: stopped, 75")
    jid2 = submit(c, ["-n", "2", "-t", "00:10:00", "run", case, *sets, "--name", "cancel", "--resume"])
    c.wait([jid2], timeout=180)
    check(c.job(jid2).get("JobState") == "COMPLETED", f"resubmitted with --resume: job {jid2} COMPLETED")
    log2 = open(os.path.join(out, f"slurm-{jid2}.out")).read()
    check(re.search(rf"resuming from \S+checkpoint_0*{m.group(1)}\.h5: step {m.group(1)}\b", log2),
          f"it resumed from step {m.group(1)}")


def scenario_campaign_failure(c):
    """A campaign with a failing point: the gather still runs (afterany), tabulates both points
    and fails (exit 1). Submitted again, the points' earlier states are not reported as done."""
    c.slurm()
    args = [c.cavity, "--sweep", "time.dt=0.002,0.5", "--set", "time.steps=50", "--set", "output.monitor_every=1",
            "--name", "fails", "--sbatch", "-t 00:05:00"]
    r = c.campaign(args, code=0)
    aid, gid = map(int, r.stdout.strip().splitlines()[-1].split())
    c.wait([aid, gid])
    tasks = sorted(c.jobs_of(aid), key=lambda t: t.get("ArrayTaskId", ""))
    check([t.get("JobState") for t in tasks] == ["COMPLETED", "FAILED"] and tasks[1].get("ExitCode") == "3:0",
          f"array: point 0 COMPLETED, point 1 FAILED with exit 3 ({[(t.get('JobState'), t.get('ExitCode')) for t in tasks]})")
    g = c.job(gid)
    check(g.get("JobState") == "FAILED" and g.get("ExitCode") == "1:0", f"the gather job ran anyway and failed (exit 1): {g.get('JobState')}")
    cdir = os.path.join(c.work, "runs", "cavity", "fails")
    rows = read_rows(os.path.join(cdir, "summary.csv"))
    check([(r["point"], r["status"], r["rc"]) for r in rows] == [("p0-dt0.002", "done", "0"), ("p1-dt0.5", "failed", "3")],
          f"summary.csv: {[(r['point'], r['status'], r['rc']) for r in rows]}")
    glog = open(os.path.join(cdir, "logs", f"gather-{gid}.out")).read()
    check("1 point(s) did not finish: p1-dt0.5" in glog, "the gather log names the failed point")
    # the same campaign again, held, then cancelled: its gather must not report the old results
    r = c.campaign(args[:-1] + ["-t 00:05:00 --hold"], code=0)
    aid2, gid2 = map(int, r.stdout.strip().splitlines()[-1].split())
    r = c.campaign(args[:-1] + ["-t 00:05:00 --hold"], code=2)
    check("still queued or running" in r.stdout, "a second submission while the first is queued is refused")
    run(["scancel", str(aid2)], env=c.env, code=0)
    c.wait([aid2, gid2])
    rows = read_rows(os.path.join(cdir, "summary.csv"))
    check([r["status"] for r in rows] == ["submitted", "submitted"] and c.job(gid2).get("JobState") == "FAILED",
          f"resubmitted and cancelled: both points 'submitted', not done; the gather fails ({[r['status'] for r in rows]})")
    r = c.campaign([c.cavity, "--sweep", "time.dt=0.002,0.5", "--set", "time.steps=60", "--name", "fails"], code=2)
    check("holds another campaign" in r.stdout, "another campaign (other --set) under the same name is refused")


def scenario_paths(c):
    """Spaces in the paths of the scripts, the case and the submission directory; plain sbatch."""
    c.slurm()
    top = os.path.join(c.work, "my runs")
    shutil.copytree(c.jobs, os.path.join(top, "my jobs"))
    case = os.path.join(top, "my case.yaml")
    shutil.copy(c.cavity, case)
    r = run(["sbatch", "--parsable", "-n", "2", "-t", "00:05:00", "my jobs/run.sbatch", "my case.yaml",
             "--set", "time.steps=20", "--name", "x1"], env=c.env, cwd=top, code=0)
    jid = int(r.stdout.strip().split(";")[0])
    c.wait([jid], timeout=60)
    j = c.job(jid)
    check(j.get("JobState") == "COMPLETED", f"job {jid} COMPLETED ({j.get('JobState')})")
    out = os.path.join(top, "runs", "my case", "run-x1")
    check(read_rows(os.path.join(out, "history.csv"))[-1]["step"] == "20", "its run directory 'runs/my case/run-x1' holds the run to step 20")
    check(os.path.exists(os.path.join(top, f"slurm-fg-run-{jid}.out")), "the script's default log name (slurm-%x-%j.out)")


def scenario_launch_failure(c):
    """srun exits 0 when its tasks cannot start (here: the PMIx plugin finds its directory taken).
    The job must not count that as done: flowgrad's own exit status is missing, so it fails."""
    c.slurm()
    jid = submit(c, ["-H", "-n", "2", "-t", "00:02:00", "run", c.cavity, "--set", "time.steps=10"])
    os.makedirs(os.path.join(os.path.abspath(c.a.cluster), "tmp", f"spmix_appdir_{os.getuid()}_{jid}.0"))
    run(["scontrol", "release", str(jid)], env=c.env, code=0)
    c.wait([jid], timeout=60)
    j = c.job(jid)
    out = os.path.join(c.work, "runs", "cavity", "run")
    log = open(os.path.join(out, f"slurm-{jid}.out")).read()
    check("launch failed" in log, "srun could not start the tasks")
    check("srun exited 0 but flowgrad never finished" in log, "the job says flowgrad never ran to the end")
    check(j.get("JobState") == "FAILED" and j.get("ExitCode") == "1:0", f"job FAILED with exit 1 ({j.get('JobState')}, {j.get('ExitCode')})")
    check("state=failed rc=1" in open(os.path.join(out, "job.status")).read(), "job.status: failed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--flowgrad", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--cluster", default="")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--mpiexec-flags", default="")
    ap.add_argument("--reference", default="")
    ap.add_argument("scenario")
    a = ap.parse_args()
    fn = globals().get("scenario_" + a.scenario)
    if fn is None:
        fail(f"unknown scenario {a.scenario}")
    fn(Ctx(a))
    print(f"PASS: {a.scenario}")


if __name__ == "__main__":
    main()
