-- SQL views of the pf2e-kingmaker ruleset; each starts at a line "-- view: <name>".

-- pf2e_turns: one row per campaign and turn of every pf2e-kingmaker campaign, read from the folded
-- state kept in the `states` table (state_json is the ruleset's state as JSON).
-- view: pf2e_turns
SELECT
    campaign,
    turn,
    CAST(json_extract_string(state_json, '$.turn') AS INTEGER)            AS kingdom_turn,
    CAST(json_extract_string(state_json, '$.level') AS INTEGER)           AS level,
    CAST(json_extract_string(state_json, '$.xp') AS INTEGER)              AS xp,
    CAST(json_extract_string(state_json, '$.size') AS INTEGER)            AS size,
    CAST(json_extract_string(state_json, '$.control_dc') AS INTEGER)      AS control_dc,
    CAST(json_extract_string(state_json, '$.unrest') AS INTEGER)          AS unrest,
    CAST(json_extract_string(state_json, '$.unrest_penalty') AS INTEGER)  AS unrest_penalty,
    CAST(json_extract_string(state_json, '$.anarchy') AS BOOLEAN)         AS anarchy,
    CAST(json_extract_string(state_json, '$.ruin.corruption.points') AS INTEGER)  AS corruption,
    CAST(json_extract_string(state_json, '$.ruin.corruption.penalty') AS INTEGER) AS corruption_penalty,
    CAST(json_extract_string(state_json, '$.ruin.crime.points') AS INTEGER)       AS crime,
    CAST(json_extract_string(state_json, '$.ruin.crime.penalty') AS INTEGER)      AS crime_penalty,
    CAST(json_extract_string(state_json, '$.ruin.decay.points') AS INTEGER)       AS decay,
    CAST(json_extract_string(state_json, '$.ruin.decay.penalty') AS INTEGER)      AS decay_penalty,
    CAST(json_extract_string(state_json, '$.ruin.strife.points') AS INTEGER)      AS strife,
    CAST(json_extract_string(state_json, '$.ruin.strife.penalty') AS INTEGER)     AS strife_penalty,
    CAST(json_extract_string(state_json, '$.rp') AS INTEGER)              AS rp,
    CAST(json_extract_string(state_json, '$.commodities.food') AS INTEGER)     AS food,
    CAST(json_extract_string(state_json, '$.commodities.lumber') AS INTEGER)   AS lumber,
    CAST(json_extract_string(state_json, '$.commodities.luxuries') AS INTEGER) AS luxuries,
    CAST(json_extract_string(state_json, '$.commodities.ore') AS INTEGER)      AS ore,
    CAST(json_extract_string(state_json, '$.commodities.stone') AS INTEGER)    AS stone,
    CAST(json_extract_string(state_json, '$.fame') AS INTEGER)            AS fame
FROM states
WHERE ruleset = 'pf2e-kingmaker'
ORDER BY campaign, turn;
