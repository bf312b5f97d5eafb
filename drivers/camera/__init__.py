"""The card camera: capture (USB, the Pi's camera, a video file) and the
driver that feeds its frames to the shoe's reader (drivers.vision) and the
reads to the table service."""
