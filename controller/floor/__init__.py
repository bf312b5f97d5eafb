"""The floor: a central record of every table in PostgreSQL.

`recorder` subscribes to every table and writes what they publish (events,
outcomes, alerts) into PostgreSQL once each, repairing gaps in a table's
`seq` with `cmd/republish`; `gaps` is its per-table bookkeeping; `schema`
applies the migrations; `report` reads the floor views; `compare` checks the
record against a table's own journal. Only this package and its CLI import
psycopg (the `floor` extra): a table's Pi never needs it.
"""
