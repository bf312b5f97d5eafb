"""Serial devices: the line format they share, the link that keeps a port open,
and the three devices (load-cell board, card shoe, keypad)."""
