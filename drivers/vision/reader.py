"""What the shoe and frame modes ask of a reader: read corner patches.

Two readers: the learned one (drivers.vision.learned, the corner network,
uncalibrated) and the adapted one (drivers.vision.adapted, the network with
a house deck's head, from a calibration). Both read a corner CORNER_WIDTH
canonical pixels wide.
"""

from __future__ import annotations

from drivers.vision.adapted import AdaptedReader
from drivers.vision.corner import CornerPose, corner_patch
from drivers.vision.glyphs import Image
from drivers.vision.learned import CornerRead, LearnedReader

Model = LearnedReader | AdaptedReader

# Canonical corner position of the top left of a rank glyph: where a corner is
# placed from an index found by its ink (the medians of the designs learnt from
# are 11.7 and 10.4: drivers.vision.index_poses; the shoe's band search places
# a little inside them, its ink box being grown by a pixel or two).
RANK_ANCHOR = (8.0, 6.0)

__all__ = ["RANK_ANCHOR", "CornerRead", "Model", "patch_for"]


def patch_for(reader: Model, image: Image, pose: CornerPose) -> Image:
    """The corner patch at `pose` as this reader reads it."""
    return corner_patch(image, pose, reader.corner_width)
