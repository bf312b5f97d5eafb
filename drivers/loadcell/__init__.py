"""The load-cell board: one HX711 per betting spot on a microcontroller, over serial."""
