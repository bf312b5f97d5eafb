"""GPIO drivers on the RPi.GPIO API: bet presence sensors and the dealer's panel."""
