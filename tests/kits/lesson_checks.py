"""What the lesson tests share: a PNG check that decodes the file, not just its name."""

from __future__ import annotations

from pathlib import Path

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def assert_valid_png(path: Path, min_side: int = 100) -> None:
    """The file exists, starts with the PNG signature, and decodes to an image of a sane size."""
    from matplotlib.image import imread

    path = Path(path)
    assert path.is_file(), f"{path} was not written"
    assert path.read_bytes()[:8] == PNG_MAGIC, f"{path} is not a PNG"
    image = imread(path)  # raises on a truncated or corrupt file
    assert image.ndim == 3 and min(image.shape[:2]) >= min_side, f"{path}: odd image shape {image.shape}"
    assert image.std() > 0, f"{path} is a blank image"
