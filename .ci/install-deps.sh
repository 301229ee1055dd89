#!/usr/bin/env bash
# Install flowgrad's build and run dependencies from Debian 12's packages.
#
#   .ci/install-deps.sh              # build, run and postprocessing dependencies
#   .ci/install-deps.sh --tests      # and what only the tests use: SLURM + munge (tests/slurm/
#                                    # start a private single-node SLURM of their own),
#                                    # Chromium (the report page's headless screenshot test) and
#                                    # ParaView (pvbatch opens the XDMF sidecars: io_paraview;
#                                    # pvpython renders them on an Xvfb display: io_paraview_outputs)
#
# Root, non-interactive and idempotent: when every package is already present it
# makes no network access and returns in well under a second.
set -euo pipefail

PKGS=(
  # toolchain and build
  gcc make cmake pkg-config
  # MPI, PETSc (with TAO, HDF5, hypre), parallel HDF5, FFTW (+ MPI), libyaml
  openmpi-bin libopenmpi-dev
  petsc-dev
  libhdf5-openmpi-dev hdf5-tools
  libfftw3-dev libfftw3-mpi-dev
  libyaml-dev
  # tests and postprocessing (run with /usr/bin/python3, not a pyenv python)
  python3 python3-numpy python3-h5py python3-matplotlib python3-scipy
  # jobs/campaign --sweep-file
  python3-yaml
)
case "${1:-}" in
  "") ;;
  --tests) PKGS+=(munge slurmctld slurmd slurm-client chromium paraview python3-paraview xvfb xauth) ;;
  *) echo "install-deps: unknown option '$1' (usage: install-deps.sh [--tests])" >&2; exit 2 ;;
esac

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run this script as root (or install them with apt-get)" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -q
apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: done"
