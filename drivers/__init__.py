"""The only code that touches hardware. `drivers.interfaces` is the contract
every card source, bet sensor and dealer panel implements; `drivers.fakes`
are test tools behind the same contract; `sim/` has the simulated twins."""
