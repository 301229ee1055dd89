#!/usr/bin/python3
"""The report page of a small optimization, opened in headless Chromium.

  test_report_chromium.py POSTPROC OPTIM_RUN_DIR

Copies OPTIM_RUN_DIR to a temporary directory, writes its report, then:
  1. chromium --dump-dom of the page: exits 0, logs no console message at warning/error level
     and no failed load (net::ERR_, "Failed to load resource"); the DOM holds the <img> elements
     (at least one), each naming a file that exists.
  2. a probe page next to it (written by this test; the report has no scripts) loads the same
     image sources and logs each one's naturalWidth x naturalHeight to the console: every image
     loads in Chromium, at the PNG's own size.
  3. screenshots (1200 x 1600) of the page, and of the page with its img/ directory moved away:
     the first is not blank (pngcheck.check_png), has coloured pixels (the plots), and differs
     from the second (the pictures are drawn, not only the text and the alt texts).
Exits 77 (CTest SKIP_RETURN_CODE) when Chromium is not installed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from report_common import Page, check_page, png_size, run_report  # noqa: E402

TIMEOUT = 90


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        p = shutil.which(name)
        if p:
            return p
    return None


def chromium(exe, home, url, *flags):
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--no-default-browser-check", "--disable-extensions",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={os.path.join(home, 'profile')}",
           "--enable-logging=stderr", "--v=0", *flags, url]
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_CACHE_HOME=os.path.join(home, ".cache"))
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    return r


def console_lines(stderr):
    """(level, message) of the page's console messages in Chromium's log."""
    out = []
    for line in stderr.splitlines():
        m = re.search(r":(INFO|WARNING|ERROR|VERBOSE\d*):CONSOLE(?:\(\d+\)|:\d+)\] \"(.*)\", source:", line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def page_problems(stderr, page_dir):
    bad = []
    for level, msg in console_lines(stderr):
        if level in ("WARNING", "ERROR"):
            bad.append(f"console {level}: {msg}")
    for line in stderr.splitlines():
        if "Failed to load resource" in line or ("net::ERR_" in line and "file://" in line) \
                or ("CONSOLE" in line and page_dir in line and "rror" in line):
            bad.append(line)
    return bad


def coloured_fraction(path, sat=0.2):
    import matplotlib.image as mpimg
    rgb = mpimg.imread(path)[..., :3]
    s = rgb.max(axis=2) - rgb.min(axis=2)
    return float((s > sat).mean()), rgb


def main():
    postproc, src = sys.argv[1], os.path.abspath(sys.argv[2])
    exe = find_chromium()
    if not exe:
        print("SKIP: chromium not installed (bash .ci/install-deps.sh --tests installs it)")
        return 77
    if not os.path.isdir(src):
        sys.exit(f"test_report_chromium: {src}: no such directory (run the fixture first)")
    from pngcheck import check_png
    tmp = tempfile.mkdtemp(prefix="fg_report_chromium_")
    try:
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        d = os.path.join(tmp, "run")
        shutil.copytree(src, d)
        r = run_report(postproc, d)
        assert r.returncode == 0, f"postproc report: exit {r.returncode}"
        rep = os.path.join(d, "report")
        index = os.path.join(rep, "index.html")
        check_page(index)
        url = "file://" + index

        # 1. the DOM as Chromium loaded it
        r = chromium(exe, home, url, "--dump-dom")
        assert r.returncode == 0, f"chromium --dump-dom: exit {r.returncode}\n{r.stderr[-3000:]}"
        bad = page_problems(r.stderr, rep)
        assert not bad, "chromium reports problems with the page:\n" + "\n".join(bad)
        dom = os.path.join(tmp, "dom.html")
        with open(dom, "w") as f:
            f.write(r.stdout)
        imgs = Page(dom).imgs
        assert imgs, "no <img> in the DOM Chromium loaded"
        for im in imgs:
            assert os.path.exists(os.path.join(rep, im["src"])), f"<img src={im['src']}>: no such file"
        print(f"ok: chromium loaded the page: {len(imgs)} <img> elements, their files exist, no console errors")

        # 2. every image loads, at its own size
        probe = os.path.join(rep, "probe_images.html")
        tags = "\n".join(f'<img src="{im["src"]}" alt="" onload="console.log(\'IMG_OK \' + this.getAttribute(\'src\') '
                         f'+ \' \' + this.naturalWidth + \' \' + this.naturalHeight)" '
                         f'onerror="console.log(\'IMG_FAIL \' + this.getAttribute(\'src\'))">' for im in imgs)
        with open(probe, "w") as f:
            f.write(f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>probe</title></head><body>\n{tags}\n</body></html>\n')
        r = chromium(exe, home, "file://" + probe, "--dump-dom")
        assert r.returncode == 0, f"chromium (probe): exit {r.returncode}"
        msgs = [m for _, m in console_lines(r.stderr)]
        loaded = {}
        for m in msgs:
            if m.startswith("IMG_FAIL "):
                raise AssertionError(f"chromium could not load {m[9:]}")
            if m.startswith("IMG_OK "):
                s, w, h = m[7:].rsplit(" ", 2)
                loaded[s] = (int(w), int(h))
        for im in imgs:
            want = png_size(os.path.join(rep, im["src"]))
            assert loaded.get(im["src"]) == want, f"{im['src']}: loaded as {loaded.get(im['src'])}, the PNG is {want}"
        os.remove(probe)
        print(f"ok: chromium loaded every image at its size: {loaded}")

        # 3. screenshots: with the pictures, and without them (img/ moved away)
        shot = os.path.join(tmp, "with.png")
        r = chromium(exe, home, url, "--window-size=1200,1600", f"--screenshot={shot}")
        assert r.returncode == 0 and os.path.exists(shot), f"chromium --screenshot: exit {r.returncode}"
        w, h, std = check_png(shot, 1200, 1600, min_std=0.05)
        os.rename(os.path.join(rep, "img"), os.path.join(rep, "img.away"))
        shot0 = os.path.join(tmp, "without.png")
        r = chromium(exe, home, url, "--window-size=1200,1600", f"--screenshot={shot0}")
        os.rename(os.path.join(rep, "img.away"), os.path.join(rep, "img"))
        assert r.returncode == 0 and os.path.exists(shot0), f"chromium --screenshot (no img/): exit {r.returncode}"
        c1, a = coloured_fraction(shot)
        c0, b = coloured_fraction(shot0)
        import numpy as np
        changed = float((np.abs(a - b).max(axis=2) > 0.1).mean())
        print(f"screenshot: coloured pixels {100 * c1:.2f} % with the pictures, {100 * c0:.2f} % without; "
              f"{100 * changed:.1f} % of the pixels differ")
        # (measured: 0.46 % coloured with the pictures, 0.02 % without, 2.1 % of the pixels differ:
        # the plots are white with thin coloured lines)
        assert c1 >= 0.002, f"the screenshot has {100 * c1:.2f} % coloured pixels: the plots are not drawn"
        assert c1 >= 5 * c0 + 0.001, "hardly more colour with the pictures than without"
        assert changed >= 0.01, f"only {100 * changed:.1f} % of the pixels differ with and without the pictures"
        print("ok: the screenshot shows the pictures")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS: report in chromium")
    return 0


if __name__ == "__main__":
    sys.exit(main())
