"""The reference pit display: static pages (pit display, floor overview,
dealer's screen) that subscribe to the MQTT contract over WebSockets, and
the small HTTP server `croupier display` serves them with.

The pages are plain files under `static/` and need nothing from the server
but the files: any static host can serve them, with the broker and tables
in the URL's query string (docs/display.md).
"""

from controller.display.server import DisplayConfig, make_server

__all__ = ["DisplayConfig", "make_server"]
