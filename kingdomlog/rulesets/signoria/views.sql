-- Signoria SQL views over the `events` and `states` tables (design §9).
-- Each view starts with a "-- view: <name>" line; the ruleset reads them from this file.

-- view: signoria_factions
-- One row per campaign x turn x faction: the four resources, provinces, kind, status (from the folded state).
SELECT
    s.campaign,
    s.turn,
    f.faction,
    json_extract_string(CAST(s.state_json AS JSON), '$.factions.' || f.faction || '.name') AS name,
    json_extract_string(CAST(s.state_json AS JSON), '$.factions.' || f.faction || '.kind') AS kind,
    json_extract_string(CAST(s.state_json AS JSON), '$.factions.' || f.faction || '.status') AS status,
    TRY_CAST(json_extract(CAST(s.state_json AS JSON), '$.factions.' || f.faction || '.power') AS INTEGER) AS power,
    TRY_CAST(json_extract(CAST(s.state_json AS JSON), '$.factions.' || f.faction || '.piety') AS INTEGER) AS piety,
    TRY_CAST(json_extract(CAST(s.state_json AS JSON), '$.factions.' || f.faction || '.wealth') AS INTEGER) AS wealth,
    TRY_CAST(json_extract(CAST(s.state_json AS JSON), '$.factions.' || f.faction || '.army') AS INTEGER) AS army,
    json_extract_string(CAST(s.state_json AS JSON), '$.season') AS season
FROM states AS s,
     unnest(json_keys(CAST(s.state_json AS JSON), '$.factions')) AS f(faction)
WHERE s.ruleset = 'signoria';

-- view: signoria_battles
-- One row per battle: where, who, who won, why, and each side's killed units.
SELECT
    e.campaign,
    e.turn,
    json_extract_string(CAST(e.payload AS JSON), '$.battle') AS battle,
    json_extract_string(CAST(e.payload AS JSON), '$.province') AS province,
    json_extract_string(CAST(e.payload AS JSON), '$.attacker') AS attacker,
    json_extract_string(CAST(e.payload AS JSON), '$.defender') AS defender,
    json_extract_string(CAST(e.payload AS JSON), '$.winner') AS winner,
    json_extract_string(CAST(e.payload AS JSON), '$.reason') AS reason,
    json_extract(CAST(e.payload AS JSON), '$.killed') AS killed
FROM events AS e
WHERE e.type = 'signoria.battle_ended';

-- view: signoria_actions
-- One row per resolved action: faction, order, action, stake, threshold, rerolls allowed, rolls, outcome.
SELECT
    e.campaign,
    e.turn,
    e.phase,
    json_extract_string(CAST(e.payload AS JSON), '$.faction') AS faction,
    json_extract_string(CAST(e.payload AS JSON), '$.order') AS order_id,
    json_extract_string(CAST(e.payload AS JSON), '$.action') AS action,
    json_extract_string(CAST(e.payload AS JSON), '$.stake') AS stake,
    TRY_CAST(json_extract(CAST(e.payload AS JSON), '$.threshold') AS INTEGER) AS threshold,
    TRY_CAST(json_extract(CAST(e.payload AS JSON), '$.rerolls_allowed') AS INTEGER) AS rerolls_allowed,
    json_extract(CAST(e.payload AS JSON), '$.rolls') AS rolls,
    json_extract_string(CAST(e.payload AS JSON), '$.outcome') AS outcome
FROM events AS e
WHERE e.type = 'signoria.action_resolved';
