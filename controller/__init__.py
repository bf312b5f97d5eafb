"""croupier: the controller of a physical blackjack table."""

__version__ = "0.1.0"
