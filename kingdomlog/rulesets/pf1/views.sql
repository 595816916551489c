-- The pf1-kingmaker SQL views (read by Ruleset.sql_views: each view starts at a `-- view: <name>` line).

-- view: pf1_turns
-- pf1_turns: one row per campaign and month of a pf1-kingmaker campaign: the folded figures
-- (from `states`, whose columns are RULESET.summary()) next to what happened that month (from `events`,
-- without retracted batches: uses the core `turns` view).
SELECT
    s.campaign,
    s.turn,
    s.name,
    s.treasury_bp,
    s.unrest,
    s.size,
    s.control_dc,
    s.consumption,
    s.economy,
    s.loyalty,
    s.stability,
    s.population,
    s.fame,
    s.infamy,
    s.anarchy,
    s.armies,
    e.n_events,
    e.stability_d20,
    e.stability_outcome,
    e.income_bp,
    e.hexes_claimed,
    e.buildings_built,
    e.bp_spent_on_buildings,
    e.kingdom_event,
    e.special_edicts,
    e.battles_fought
FROM states AS s
LEFT JOIN (
    SELECT
        campaign,
        turn,
        count(*) AS n_events,
        max(CASE WHEN type = 'pf1.stability_check_rolled'
            THEN CAST(json_extract(payload, '$.check.d20') AS INTEGER) END) AS stability_d20,
        max(CASE WHEN type = 'pf1.stability_check_rolled'
            THEN json_extract_string(payload, '$.outcome') END) AS stability_outcome,
        coalesce(sum(CASE WHEN type = 'pf1.income_check_rolled'
            THEN CAST(json_extract(payload, '$.bp_gained') AS INTEGER) END), 0) AS income_bp,
        count(*) FILTER (WHERE type = 'pf1.hex_claimed') AS hexes_claimed,
        count(*) FILTER (WHERE type = 'pf1.building_constructed') AS buildings_built,
        coalesce(sum(CASE WHEN type = 'pf1.building_constructed'
            THEN CAST(json_extract(payload, '$.cost_bp') AS INTEGER) END), 0) AS bp_spent_on_buildings,
        coalesce(max(CASE WHEN type = 'pf1.kingdom_event_drawn'
                     THEN json_extract_string(payload, '$.event') END),
                 max(CASE WHEN type = 'pf1.uc_event_resolved'
                          AND NOT CAST(json_extract(payload, '$.continuing') AS BOOLEAN)
                     THEN json_extract_string(payload, '$.event') END)) AS kingdom_event,
        count(*) FILTER (WHERE type IN ('pf1.diplomatic_edict_resolved', 'pf1.trade_edict_issued',
                                        'pf1.exploration_edict_issued', 'pf1.vassalage_edict_issued'))
            AS special_edicts,
        count(*) FILTER (WHERE type = 'pf1.battle_ended') AS battles_fought
    FROM events AS ev
    WHERE type LIKE 'pf1.%'
      AND NOT EXISTS (SELECT 1 FROM turns AS t  -- retracted batches do not count (core.turn_retracted)
                      WHERE t.campaign = ev.campaign AND t.commit_id = ev.commit_id AND t.retracted)
    GROUP BY campaign, turn
) AS e ON e.campaign = s.campaign AND e.turn = s.turn
WHERE s.ruleset = 'pf1-kingmaker'
ORDER BY s.campaign, s.turn


-- view: pf1_battles
-- pf1_battles: one row per army per battle phase of a pf1-kingmaker campaign (UC mass combat): the tactic,
-- strategy, OM and DV it fought with, its Offense roll and damage, and its hit points before and after
-- (from pf1.battle_phase_resolved, without retracted batches).
SELECT
    ev.campaign,
    ev.turn,
    json_extract_string(ev.payload, '$.battle') AS battle,
    CAST(json_extract(ev.payload, '$.index') AS INTEGER) AS phase,
    json_extract_string(ev.payload, '$.kind') AS kind,
    json_extract_string(side.value, '$.army') AS army,
    json_extract_string(side.value, '$.tactic') AS tactic,
    json_extract_string(side.value, '$.strategy') AS strategy,
    CAST(json_extract(side.value, '$.om') AS INTEGER) AS om,
    CAST(json_extract(side.value, '$.dv') AS INTEGER) AS dv,
    CAST(json_extract(side.value, '$.offense.d20') AS INTEGER) AS d20,
    CAST(json_extract(side.value, '$.offense.total') AS INTEGER) AS offense,
    CAST(json_extract(side.value, '$.offense.damage') AS INTEGER) AS damage,
    CAST(json_extract(side.value, '$.hp_before') AS INTEGER) AS hp_before,
    CAST(json_extract(side.value, '$.hp_after') AS INTEGER) AS hp_after,
    json_extract_string(side.value, '$.status') AS status
FROM events AS ev, json_each(json_extract(ev.payload, '$.sides')) AS side
WHERE ev.type = 'pf1.battle_phase_resolved'
  AND NOT EXISTS (SELECT 1 FROM turns AS t
                  WHERE t.campaign = ev.campaign AND t.commit_id = ev.commit_id AND t.retracted)
ORDER BY ev.campaign, ev.turn, battle, phase, army
