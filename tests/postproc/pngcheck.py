"""Checks of written pictures, shared by the postproc tests.

  check_png(path, width=None, height=None, min_std=0.02, min_coloured=0.002)
      the file is a PNG of the expected pixel size (width x height, when given), not blank: its
      pixel values (RGB in [0, 1]) have a standard deviation of at least min_std, and at least a
      fraction min_coloured of its pixels are coloured (max - min of R, G, B above 0.1), which
      empty axes, titles, frames and a NaN-only image (black, white and grey) are not.
      Returns (w, h, std).
"""
import sys


def check_png(path, width=None, height=None, min_std=0.02, min_coloured=0.002):
    import matplotlib.image as mpimg
    with open(path, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            raise AssertionError(f"{path}: not a PNG file")
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    rgb = img[..., :3] if img.ndim == 3 else img
    std = float(rgb.std())
    if width is not None and w != width:
        raise AssertionError(f"{path}: {w} pixels wide, expected {width}")
    if height is not None and h != height:
        raise AssertionError(f"{path}: {h} pixels high, expected {height}")
    if std < min_std:
        raise AssertionError(f"{path}: blank (pixel standard deviation {std:.4f} < {min_std})")
    coloured = float(((rgb.max(axis=-1) - rgb.min(axis=-1)) > 0.1).mean()) if rgb.ndim == 3 else 0.0
    if coloured < min_coloured:
        raise AssertionError(f"{path}: nothing drawn (coloured pixels {coloured:.4f} < {min_coloured})")
    print(f"ok: {path}: {w} x {h} pixels, pixel std {std:.3f}, coloured pixels {coloured:.3f}")
    return w, h, std


if __name__ == "__main__":
    check_png(sys.argv[1], *(int(x) for x in sys.argv[2:4]))
