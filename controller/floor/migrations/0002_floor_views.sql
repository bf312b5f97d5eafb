-- The floor's queries, per table and shift. A round counts at the time the recorder
-- recorded its outcome (the contract's messages carry no clock of their own; see
-- docs/deploy.md, "The floor's record").

-- The floor's shifts: each runs from its start to the next one's, in floor_settings'
-- time zone. Change the rows to the floor's own roster.
CREATE TABLE floor_shifts (
    name text PRIMARY KEY,
    starts time NOT NULL UNIQUE
);
INSERT INTO floor_shifts (name, starts) VALUES ('day', '06:00'), ('swing', '14:00'),
    ('night', '22:00');

CREATE TABLE floor_settings (
    key text PRIMARY KEY,
    value text NOT NULL
);
INSERT INTO floor_settings (key, value) VALUES ('time_zone', 'UTC');

-- The shift a moment falls in, and the day that shift began (a night shift that starts
-- at 22:00 keeps its day after midnight).
CREATE FUNCTION floor_shift(at timestamptz, OUT shift_day date, OUT shift text)
LANGUAGE sql STABLE AS $$
    WITH here AS (
        SELECT at AT TIME ZONE (SELECT value FROM floor_settings WHERE key = 'time_zone') AS t
    )
    SELECT CASE WHEN started.name IS NULL THEN here.t::date - 1 ELSE here.t::date END,
           coalesce(started.name, latest.name)
    FROM here
    LEFT JOIN LATERAL (
        SELECT name FROM floor_shifts WHERE starts <= here.t::time ORDER BY starts DESC LIMIT 1
    ) started ON true
    LEFT JOIN LATERAL (
        SELECT name FROM floor_shifts ORDER BY starts DESC LIMIT 1
    ) latest ON true
$$;

CREATE VIEW floor_rounds AS
SELECT o.table_id, s.shift_day, s.shift, o.round, o.voided, o.staked, o.insured,
       o.house_net, o.recorded_at
FROM floor_outcomes o, LATERAL floor_shift(o.recorded_at) s;

CREATE VIEW floor_alert_counts AS
SELECT a.table_id, s.shift_day, s.shift, a.kind, count(*) AS alerts
FROM floor_alerts a, LATERAL floor_shift(a.recorded_at) s
GROUP BY 1, 2, 3, 4;

-- Rounds corrected at the table: the dealer's mistaken card (the panel) and the pit's
-- correct_card.
CREATE VIEW floor_corrections AS
SELECT e.table_id, s.shift_day, s.shift,
       count(*) FILTER (WHERE e.type = 'mistaken_card') AS mistaken_cards,
       count(*) FILTER (WHERE e.type = 'card_corrected') AS card_corrections
FROM floor_events e, LATERAL floor_shift(e.recorded_at) s
WHERE e.type IN ('mistaken_card', 'card_corrected')
GROUP BY 1, 2, 3;

-- One row per table and shift. `dropped` is what the players staked (insurance
-- included; the table sees stakes, not the cash drop box), `won` the house's net, so
-- `hold` = won / dropped. Pace: rounds after the first per hour between the first and
-- the last round of the shift.
CREATE VIEW floor_table_shifts AS
WITH rounds AS (
    SELECT table_id, shift_day, shift,
           count(*) FILTER (WHERE NOT voided) AS rounds,
           count(*) FILTER (WHERE voided) AS voided_rounds,
           min(recorded_at) AS first_round,
           max(recorded_at) AS last_round,
           coalesce(sum(staked + insured) FILTER (WHERE NOT voided), 0) AS dropped,
           coalesce(sum(house_net), 0) AS won
    FROM floor_rounds GROUP BY 1, 2, 3
), alerts AS (
    SELECT table_id, shift_day, shift,
           sum(alerts) FILTER (WHERE kind = 'unreadable') AS unreadable_cards,
           sum(alerts) FILTER (WHERE kind = 'card_while_waiting') AS card_while_waiting,
           sum(alerts) FILTER (WHERE kind = 'foreign_card') AS foreign_card,
           sum(alerts) FILTER (WHERE kind = 'late_bet') AS late_bet,
           sum(alerts) FILTER (WHERE kind = 'pinched_bet') AS pinched_bet,
           sum(alerts) FILTER (WHERE kind = 'sensor_fault') AS sensor_fault,
           sum(alerts) FILTER (WHERE kind = 'refused') AS refused,
           sum(alerts) FILTER (WHERE kind NOT IN ('unreadable', 'card_while_waiting',
               'foreign_card', 'late_bet', 'pinched_bet', 'sensor_fault', 'refused'))
               AS other_alerts
    FROM floor_alert_counts GROUP BY 1, 2, 3
), keys AS (
    SELECT table_id, shift_day, shift FROM rounds
    UNION SELECT table_id, shift_day, shift FROM alerts
    UNION SELECT table_id, shift_day, shift FROM floor_corrections
)
SELECT k.table_id, k.shift_day, k.shift,
       coalesce(r.rounds, 0) AS rounds,
       coalesce(r.voided_rounds, 0) AS voided_rounds,
       r.first_round, r.last_round,
       CASE WHEN r.rounds > 1 AND r.last_round > r.first_round
            THEN round((r.rounds - 1) * 3600
                       / extract(epoch FROM r.last_round - r.first_round), 1)
       END AS rounds_per_hour,
       coalesce(r.dropped, 0) AS dropped,
       coalesce(r.won, 0) AS won,
       CASE WHEN r.dropped > 0 THEN r.won / r.dropped END AS hold,
       coalesce(a.unreadable_cards, 0) AS unreadable_cards,
       coalesce(a.card_while_waiting, 0) AS card_while_waiting,
       coalesce(a.foreign_card, 0) AS foreign_card,
       coalesce(a.late_bet, 0) AS late_bet,
       coalesce(a.pinched_bet, 0) AS pinched_bet,
       coalesce(a.sensor_fault, 0) AS sensor_fault,
       coalesce(a.refused, 0) AS refused,
       coalesce(a.other_alerts, 0) AS other_alerts,
       coalesce(c.mistaken_cards, 0) AS mistaken_cards,
       coalesce(c.card_corrections, 0) AS card_corrections
FROM keys k
LEFT JOIN rounds r USING (table_id, shift_day, shift)
LEFT JOIN alerts a USING (table_id, shift_day, shift)
LEFT JOIN floor_corrections c USING (table_id, shift_day, shift);
