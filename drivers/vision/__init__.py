"""Reading cards in images: pure image code, images in and reads out.

The shoe's reader (`shoe`: one read per card across frames), frame mode
(`frame`: every card in a still image), the corner network (`learned`) and a
house deck's calibration of it (`adapted`, `vision_file`). No capture, no
threads, no hardware: the camera driver (drivers.camera) feeds it frames,
and the simulator, the calibration tools and the benchmarks feed it images.

A frame is read on one thread. The BLAS libraries that numpy and OpenCV
each bring (OpenBLAS, two copies) otherwise split the readers' small
matrix products (a calibration's discriminant) over every core, and wait
for a thread whose core another process has: with
both cores of the development machine busy, p99 per shoe frame was 40-85
ms on the default threads against 17-25 ms on one (400 svg-cards frames,
measured with the glyph reader this package had before the network). At the table the
service shares the Pi with the broker and the displays.
"""

import cv2  # noqa: F401  (both loaded first: the limit applies to the
import numpy as np  # noqa: F401  libraries loaded when it is set)
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1, user_api="blas")
