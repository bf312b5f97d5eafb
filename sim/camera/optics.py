"""What a real camera does to a picture, seeded: exposure steps, uneven light,
glare, defocus, motion blur, sensor noise and JPEG compression; plus placing
a card face in a frame under a slight perspective."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.vision.glyphs import Image

Points = npt.NDArray[np.float32]
FloatImage = npt.NDArray[Any]  # float32 working copy of a frame


@dataclass(frozen=True)
class Optics:
    """One frame's camera conditions."""

    gain: float = 1.0  # exposure step (1 = nominal)
    offset: float = 0.0
    light_slope: float = 0.0  # light falls off across the frame by this fraction
    glare: tuple[float, float, float, float] | None = None  # x, y, sigma, strength
    defocus: float = 0.0  # Gaussian sigma, pixels
    motion: float = 0.0  # blur length along the card's travel (down), pixels
    noise: float = 0.0  # sensor noise sigma, grey levels
    jpeg: int | None = None  # JPEG quality, None = raw


@dataclass(frozen=True)
class OpticsRange:
    """The range conditions are drawn from; the defaults are the product's
    test envelope for the shoe camera (LED-lit ramp, short exposure)."""

    gain: tuple[float, float] = (0.65, 1.35)
    offset: tuple[float, float] = (-12.0, 12.0)
    light_slope: tuple[float, float] = (-0.35, 0.35)
    glare_chance: float = 0.3
    glare_strength: tuple[float, float] = (50.0, 150.0)
    glare_sigma: tuple[float, float] = (10.0, 45.0)
    defocus: tuple[float, float] = (0.0, 1.4)
    motion: tuple[float, float] = (0.0, 6.0)
    noise: tuple[float, float] = (1.0, 7.0)
    jpeg_chance: float = 0.7
    jpeg: tuple[int, int] = (50, 95)

    def draw(
        self, rng: np.random.Generator, size: tuple[int, int], motion: float | None = None
    ) -> Optics:
        w, h = size

        def u(r: tuple[float, float]) -> float:
            return float(rng.uniform(r[0], r[1]))

        glare = None
        if rng.random() < self.glare_chance:
            glare = (u((0.0, w)), u((0.0, h)), u(self.glare_sigma), u(self.glare_strength))
        jpeg = None
        if rng.random() < self.jpeg_chance:
            jpeg = int(rng.integers(self.jpeg[0], self.jpeg[1] + 1))
        return Optics(
            gain=u(self.gain),
            offset=u(self.offset),
            light_slope=u(self.light_slope),
            glare=glare,
            defocus=u(self.defocus),
            motion=u(self.motion) if motion is None else motion,
            noise=u(self.noise),
            jpeg=jpeg,
        )


def place(frame: Image, face: Image, corners: Points, white: float = 0.87) -> None:
    """Draw a BGRA face into a BGR frame with its corners (clockwise from the
    face's top left) at `corners`; only the card's bounding box is warped.
    `white` scales the face: a camera exposed for the ramp shows card white
    below full scale (exposure steps then move it up and down)."""
    fh, fw = face.shape[:2]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [fw - 1, 0], [fw - 1, fh - 1], [0, fh - 1]], np.float32)
    m = cv2.getPerspectiveTransform(src, (corners - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(
        face,
        m,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_AREA,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    alpha = warped[:, :, 3:4].astype(np.float32) * (white / 255.0)
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    cover = alpha / white
    frame[y0:y1, x0:x1] = (warped[:, :, :3] * alpha + roi * (1.0 - cover)).astype(np.uint8)


def card_corners(
    cx: float,
    cy: float,
    width: float,
    height: float,
    angle_deg: float,
    jitter: Points | None = None,
) -> Points:
    """Corners of a card centred at (cx, cy), turned by angle, clockwise from
    its top left, each optionally moved by `jitter` (perspective)."""
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    half = (
        np.array(
            [[-width, -height], [width, -height], [width, height], [-width, height]], np.float32
        )
        / 2
    )
    pts = half @ rot.T + np.array([cx, cy], np.float32)
    if jitter is not None:
        pts = pts + jitter
    return pts.astype(np.float32)


_NOISE_BANK: dict[tuple[int, int, int], npt.NDArray[np.float32]] = {}


def _unit_noise(shape: tuple[int, int, int], rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """Unit Gaussian sensor noise. Drawing 900k normals per frame would be the
    slowest step of the renderer, so a fixed bank twice the frame size is
    made once (seeded) and a random window of it is used per frame."""
    h, w, c = shape
    bank = _NOISE_BANK.get(shape)
    if bank is None:
        bank = np.random.default_rng(12345).standard_normal((2 * h, 2 * w, c), np.float32)
        _NOISE_BANK[shape] = bank
    y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
    return bank[y : y + h, x : x + w]


def _add_glare(img: npt.NDArray[np.float32], glare: tuple[float, float, float, float]) -> None:
    gx, gy, sigma, strength = glare
    h, w = img.shape[:2]
    r = 3.0 * sigma
    x0, x1 = max(0, int(gx - r)), min(w, int(gx + r) + 1)
    y0, y1 = max(0, int(gy - r)), min(h, int(gy + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    xs = (np.arange(x0, x1, dtype=np.float32) - gx) ** 2
    ys = (np.arange(y0, y1, dtype=np.float32) - gy) ** 2
    spot = np.exp(-(ys[:, None] + xs[None, :]) / (2 * sigma * sigma)) * strength
    img[y0:y1, x0:x1] += spot[:, :, None]


def expose(frame: Image, optics: Optics, rng: np.random.Generator) -> Image:
    """Apply the camera conditions to a clean BGR frame."""
    h, w = frame.shape[:2]
    img: FloatImage = frame.astype(np.float32)
    light = 1.0 + optics.light_slope * (np.arange(w, dtype=np.float32) / w - 0.5)
    img *= (optics.gain * light)[None, :, None]
    if optics.glare is not None:
        _add_glare(img, optics.glare)
    img += optics.offset
    if optics.defocus > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), optics.defocus)
    if optics.motion >= 1.0:
        n = round(optics.motion)
        kernel = np.full((n, 1), 1.0 / n, np.float32)
        img = cv2.filter2D(img, -1, kernel)
    if optics.noise > 0:
        img += optics.noise * _unit_noise((h, w, 3), rng)
    out: Image = np.clip(img, 0, 255).astype(np.uint8)
    if optics.jpeg is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, optics.jpeg])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = decoded
    return out


def background(
    size: tuple[int, int], colour: tuple[int, int, int], seed: int, grain: float = 8.0
) -> Image:
    """A textured surface (felt, the shoe's ramp): colour plus soft blotches."""
    w, h = size
    rng = np.random.default_rng(seed)
    coarse = rng.normal(0.0, grain, (h // 8 + 1, w // 8 + 1)).astype(np.float32)
    noise = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    fine = rng.normal(0.0, grain / 3, (h, w)).astype(np.float32)
    img = np.array(colour, np.float32)[None, None, :] + (noise + fine)[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)
