"""What the report tests share: running `postproc report`, reading the page back.

  run_report(postproc, run_dir, *opts)  -> CompletedProcess (python postproc report RUN_DIR ...)
  Page(path)        the page parsed with html.parser: .doctype, .title, .charset, .imgs (list of
                    attribute dicts), .tables (rows of cell texts), .text, .notes, .tags_ok
  check_page(path)  the structural checks every report page passes (HTML5, self-contained, the
                    <img> files exist with their width/height); returns the Page
  fnum(v)           a number as the page shows it (floats with 8 significant digits)
"""
import os
import re
import struct
import subprocess
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def run_report(postproc, run_dir, *opts):
    cmd = [sys.executable, postproc, "report", run_dir, *opts]
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, MPLBACKEND="Agg"))
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    return r


def fnum(v):
    if isinstance(v, int):
        return str(v)
    return f"{float(v):.8g}"


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    return struct.unpack(">II", head[16:24])


class Page(HTMLParser):
    def __init__(self, path):
        super().__init__(convert_charrefs=True)
        self.path = path
        self.doctype = None
        self.title = ""
        self.charset = None
        self.imgs, self.tables, self.notes = [], [], []
        self.scripts, self.external = 0, []
        self.stack, self.tags_ok, self.errors = [], True, []
        self._in_title = False
        self._row = None
        self._cell = None
        self._note = None
        self.text_parts = []
        with open(path, encoding="utf-8") as f:
            self.source = f.read()
        self.feed(self.source)
        self.close()
        if self.stack:
            self.tags_ok = False
            self.errors.append(f"unclosed: {self.stack}")
        self.text = " ".join(self.text_parts)

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and "charset" in a:
            self.charset = a["charset"]
        elif tag == "img":
            self.imgs.append(a)
        elif tag == "script":
            self.scripts += 1
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "p" and "note" in (a.get("class") or ""):
            self._note = []
        for k in ("src", "href"):
            v = a.get(k)
            if v and (re.match(r"^[a-z]+:", v) or v.startswith("//")):
                self.external.append(v)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.tags_ok = False
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()
        if tag == "title":
            self._in_title = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self.tables:
                self.tables[-1].append(self._row)
            self._row = None
        elif tag == "p" and self._note is not None:
            self.notes.append("".join(self._note).strip())
            self._note = None

    def handle_data(self, data):
        self.text_parts.append(data)
        if self._in_title:
            self.title += data
        if self._cell is not None:
            self._cell.append(data)
        if self._note is not None:
            self._note.append(data)

    def rows(self):
        """All table rows, keyed by their first cell."""
        return {r[0]: r[1:] for t in self.tables for r in t if r}


def check_page(path, title_contains=None):
    assert os.path.exists(path), f"{path}: not written"
    page = Page(path)
    d = os.path.dirname(path)
    assert page.doctype and page.doctype.lower() == "doctype html", f"doctype: {page.doctype!r}"
    assert page.source.startswith("<!DOCTYPE html>"), "the page does not start with <!DOCTYPE html>"
    assert page.charset and page.charset.lower() == "utf-8", f"charset: {page.charset!r}"
    assert page.title.strip(), "empty <title>"
    if title_contains:
        assert title_contains in page.title, f"title {page.title!r} lacks {title_contains!r}"
    assert page.tags_ok, f"tags not balanced: {page.errors[:5]}"
    assert page.scripts == 0, "the page has <script> elements"
    assert not page.external, f"external resources: {page.external}"
    assert "<style>" in page.source, "no inline CSS"
    for im in page.imgs:
        src = im.get("src", "")
        assert src.startswith("img/") and src.endswith(".png"), f"img src {src!r}: not img/NAME.png"
        assert im.get("alt"), f"img {src}: no alt text"
        f = os.path.join(d, src)
        assert os.path.exists(f), f"img {src}: {f} does not exist"
        w, h = png_size(f)
        assert (im.get("width"), im.get("height")) == (str(w), str(h)), \
            f"img {src}: width/height {im.get('width')}x{im.get('height')}, the PNG is {w}x{h}"
    left = [f for f in os.listdir(d) if ".tmp" in f]
    assert not left, f"temporary files left: {left}"
    print(f"ok: {path}: valid page '{page.title}', {len(page.imgs)} images, {len(page.tables)} tables, "
          f"{len(page.notes)} notes")
    return page
