"""flowgrad postprocessing: plots and tables from flowgrad's output directories.

The command line is postproc/postproc (one entry point, a subcommand per kind of picture); each
subcommand lives in its own module here and registers itself in SUBCOMMANDS (postproc/postproc).
Run with /usr/bin/python3 (Debian's numpy, h5py, matplotlib).
"""
