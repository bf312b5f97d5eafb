-- The floor's record: what every table published, each message once.
-- Money is NUMERIC (exact, as the tables' decimal strings); the payloads are kept whole
-- as JSONB, so nothing the contract adds later is lost.

CREATE TABLE floor_tables (
    table_id text PRIMARY KEY,
    -- Every events seq from 1 to this is held, or recorded in floor_lost: where a
    -- restarted recorder resumes its gap detection.
    contiguous_seq bigint NOT NULL DEFAULT 0,
    highest_seq bigint NOT NULL DEFAULT 0,
    info jsonb,  -- the table's newest `info`: rules, boxes, limits, versions
    first_seen timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE floor_events (
    table_id text NOT NULL,
    seq bigint NOT NULL,
    event_id text NOT NULL UNIQUE,
    round integer NOT NULL,
    type text NOT NULL,
    payload jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX floor_events_recorded ON floor_events (recorded_at);
-- The report counts these per table and shift; the rest is read by seq.
CREATE INDEX floor_events_corrections ON floor_events (table_id, recorded_at)
    WHERE type IN ('mistaken_card', 'card_corrected');

CREATE TABLE floor_outcomes (
    outcome_id text PRIMARY KEY,
    table_id text NOT NULL,
    round integer NOT NULL,
    seq bigint NOT NULL,
    voided boolean NOT NULL,
    staked numeric NOT NULL,     -- every player's stakes, doubles and splits included
    insured numeric NOT NULL,    -- insurance stakes
    house_net numeric NOT NULL,  -- the house's win (+) or loss (-) in the round
    payload jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (table_id, round)
);
CREATE INDEX floor_outcomes_recorded ON floor_outcomes (recorded_at);

CREATE TABLE floor_alerts (
    alert_id text PRIMARY KEY,
    table_id text NOT NULL,
    kind text NOT NULL,
    round integer,
    payload jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX floor_alerts_recorded ON floor_alerts (table_id, recorded_at);

-- Each cmd/republish the recorder sent for a gap, and the table's answer.
CREATE TABLE floor_repairs (
    transaction text PRIMARY KEY,
    table_id text NOT NULL,
    from_seq bigint NOT NULL,
    asked_at timestamptz NOT NULL DEFAULT now(),
    answered_at timestamptz,
    ok boolean,
    to_seq bigint,
    error text
);

-- Events the table no longer keeps (older than its outbox): a loss, said once.
CREATE TABLE floor_lost (
    table_id text NOT NULL,
    from_seq bigint NOT NULL,
    to_seq bigint NOT NULL,
    reason text NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, from_seq)
);
