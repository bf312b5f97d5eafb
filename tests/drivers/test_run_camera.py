"""`croupier run` with `[drivers.camera]`, as a process on a real broker: a
recorded shoe video played as the camera, the unreadable card saved with
--record and replayed with `croupier vision replay`, the end of the video
as a camera that stopped; a camera that is not there; a calibration that
cannot be used."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import cv2

from sim.camera.decks import cut_card, house_deck
from sim.camera.shoe import ShoeCamera
from tests.drivers.test_run import devices
from tests.service.conftest import BrokerProcess, Subscriber, broker, subscribe

__all__ = ["broker", "subscribe"]

CARDS: list[object] = ["7H", cut_card(), "KS"]


def write_video(path: Path, cards: list[object], seed: int = 3) -> None:
    """A shoe camera's footage of `cards`, as cv2.VideoWriter writes it."""
    cam = ShoeCamera(house_deck(), seed=seed)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (640, 480))
    assert writer.isOpened()
    for frame in cam.deal(cards):  # type: ignore[arg-type]
        writer.write(frame.image)
    writer.release()


def table_config(tmp: Path, url: str, camera: str) -> Path:
    path = tmp / "table.toml"
    path.write_text(f"""
[table]
id = "camrun"
[state]
dir = "{tmp / "state"}"
fsync = false
[mqtt]
broker = "{url}"
[cards]
camera_stale_after = 1.0
[drivers.camera]
{camera}
""")
    return path


def camera_alert(sub: Subscriber, words: str) -> bool:
    return any(
        m.payload["kind"] == "sensor_fault" and words in m.payload["message"]
        for m in sub.on("alerts")
    )


def croupier(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller", *args]


def stop(proc: subprocess.Popen[bytes], err: Path) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    assert proc.returncode == 0, err.read_text()[-3000:]
    assert "Traceback" not in err.read_text()


def test_run_reads_a_video_records_the_unreadable_card_and_says_it_ended(
    broker: BrokerProcess, subscribe: Callable[..., Subscriber], tmp_path: Path
) -> None:
    video = tmp_path / "shoe.avi"
    write_video(video, CARDS)
    clips = tmp_path / "clips"
    cfg = table_config(tmp_path, broker.url, f'device = "{video}"')
    sub = subscribe(broker.port, "camrun")
    err = tmp_path / "run.err"
    with open(err, "wb") as out:
        proc = subprocess.Popen(
            croupier("run", "--config", str(cfg), "--record", str(clips), "--log-level", "warning"),
            stderr=out,
        )
    try:
        sub.wait_for(
            lambda: any(m.payload["kind"] == "unreadable" for m in sub.on("alerts")),
            60,
            "the unreadable card",
        )
        # The video ends: the camera has stopped, an alert and the status say so.
        sub.wait_for(lambda: camera_alert(sub, "camera"), 60, "the camera alert")
        sub.wait_for(lambda: devices(sub).get("camera") is False, 30, "status: camera down")
        camera = [d for d in sub.on("status")[-1].payload["devices"] if d["device"] == "camera"]
        assert "video file ended" in camera[0]["detail"]
        figures = camera[0]["figures"]
        assert figures["frame_age_s"] > 0 and figures["dropped_frames"] == 0
        sub.wait_for(lambda: len(list(clips.glob("*.json"))) == 1, 30, "the saved clip")
    finally:
        stop(proc, err)
    note = json.loads(next(clips.glob("*.json")).read_text())
    assert note["reason"] == "no_index" and note["frames"] > 5
    # The clip, replayed, shows the card that was not read; the whole video, every card.
    clip = next(clips.glob("*.avi"))
    replay = subprocess.run(
        croupier("vision", "replay", str(clip)), capture_output=True, text=True, check=True
    )
    assert [line.split("\t")[1] for line in replay.stdout.splitlines()] == ["none"]
    whole = subprocess.run(
        croupier("vision", "replay", str(video)), capture_output=True, text=True, check=True
    )
    lines = [line.split("\t") for line in whole.stdout.splitlines()]
    assert [f[1] for f in lines] == ["7H", "none", "KS"]
    assert all(f[0].isdigit() and 0.0 <= float(f[2]) <= 1.0 for f in lines)


def test_run_says_a_missing_camera_at_once_and_runs_on(
    broker: BrokerProcess, subscribe: Callable[..., Subscriber], tmp_path: Path
) -> None:
    cfg = table_config(tmp_path, broker.url, f'device = "{tmp_path / "gone.avi"}"')
    sub = subscribe(broker.port, "camrun")
    err = tmp_path / "run.err"
    with open(err, "wb") as out:
        proc = subprocess.Popen(croupier("run", "--config", str(cfg)), stderr=out)
    try:
        sub.wait_for(lambda: devices(sub).get("camera") is False, 30, "status: no camera")
        sub.wait_for(lambda: camera_alert(sub, "no such video file"), 30, "the camera alert")
        text = err.read_text()
        assert "croupier run: camera: camera" in text and "no such video file" in text
        assert "cards are keyed in on the panel" in text
    finally:
        stop(proc, err)


def test_run_refuses_a_calibration_it_cannot_use(tmp_path: Path) -> None:
    cfg = table_config(
        tmp_path, "mqtt://127.0.0.1:1", f'calibration = "{tmp_path / "none.json"}"'
    )
    done = subprocess.run(
        croupier("run", "--config", str(cfg)), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "[drivers.camera] calibration" in done.stderr and "Traceback" not in done.stderr


def test_vision_replay_refuses_what_is_not_a_video(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a video")
    done = subprocess.run(
        croupier("vision", "replay", str(text)), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "not a video OpenCV can open" in done.stderr
