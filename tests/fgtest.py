"""Helpers shared by the test and validation scripts under tests/ (the Python side of fgtest.h)."""
import csv
import os


def read_gradient(run_dir):
    """J and {name: dJ/dp} from the gradient.csv of a `flowgrad adjoint` run (J: nan if absent)."""
    with open(os.path.join(run_dir, "gradient.csv")) as f:
        lines = f.readlines()
    J = float("nan")
    for ln in lines:
        if ln.startswith("# J = "):
            J = float(ln.split("=")[1])
    grad = {g["name"]: float(g["gradient"]) for g in csv.DictReader(ln for ln in lines if not ln.startswith("#"))}
    return J, grad
