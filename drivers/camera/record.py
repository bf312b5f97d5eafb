"""Saving the shoe camera's frames around each unreadable card
(`croupier run --record DIR`), so a house can replay what the camera saw
(`croupier vision replay CLIP`) and report what went wrong.

The driver hands every frame to `keep` (a ring of the last `frames`); when a
read comes back without a card, `save` writes the frames of that pass, with
a few before it, as a Motion-JPEG AVI and a JSON note beside it. Writing
runs on a thread of its own: the reader never waits for the disk.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import deque
from pathlib import Path

import cv2

from drivers.camera.capture import Frame
from drivers.vision import shoe

log = logging.getLogger("croupier.camera")

BEFORE = 10  # frames kept before the pass began: the ramp as it was


class Recorder:
    def __init__(self, folder: Path, frames: int = 60, fps: float = 30.0) -> None:
        self.folder = folder
        self.fps = fps
        self._ring: deque[Frame] = deque(maxlen=frames)
        self._jobs: queue.SimpleQueue[tuple[str, list[Frame], dict[str, object]] | None] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._after = -1  # the last frame of the last card read: a clip starts after it
        self.saved: list[Path] = []  # clips written (the status counts them)
        self.error: str | None = None

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._run, name="camera-record", daemon=True)
        self._thread.start()

    def keep(self, frame: Frame) -> None:
        self._ring.append(frame)

    def passed(self, read: shoe.ShoeRead) -> None:
        """A card's pass ended (read or not): the next clip holds none of it."""
        self._after = max(self._after, read.last_frame)

    def save(self, read: shoe.ShoeRead) -> None:
        """The pass of an unreadable card, and up to BEFORE frames of the empty ramp
        ahead of it (none of the card before: replayed, the clip is this card alone)."""
        start = max(read.first_frame - BEFORE, self._after + 1)
        frames = [f for f in self._ring if start <= f.index <= read.last_frame]
        if not frames:
            return
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        note: dict[str, object] = {
            "at": stamp,
            "reason": read.reason,
            "confidence": read.confidence,
            "first_frame": read.first_frame,
            "last_frame": read.last_frame,
            "clip_first_frame": frames[0].index,
            "frames": len(frames),
            "dropped_in_clip": frames[-1].index - frames[0].index + 1 - len(frames),
        }
        self._jobs.put((f"{stamp}-frame{read.first_frame}", frames, note))

    def stop(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            name, frames, note = job
            try:
                self.saved.append(self._write(name, frames, note))
                self.error = None
            except Exception as exc:  # a full disk must not stop the reader
                self.error = f"recording failed: {exc}"
                log.warning("camera: %s", self.error)

    def _write(self, name: str, frames: list[Frame], note: dict[str, object]) -> Path:
        clip = self.folder / f"{name}.avi"
        h, w = frames[0].image.shape[:2]
        writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"MJPG"), self.fps, (w, h))
        if not writer.isOpened():
            raise OSError(f"{clip}: cannot write a video here")
        try:
            for frame in frames:
                writer.write(frame.image)
        finally:
            writer.release()
        (self.folder / f"{name}.json").write_text(json.dumps(note, indent=1) + "\n")
        log.info("camera: saved %d frames around an unreadable card to %s", len(frames), clip)
        return clip
