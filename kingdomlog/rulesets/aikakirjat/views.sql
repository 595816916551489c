-- aikakirjat views for historians. Each "-- view: NAME" section is one SELECT over the
-- catalog's `events` (envelope columns, payload JSON text) and `states` (campaign, turn,
-- ruleset, the ruleset's summary() columns, state_json) tables. Retracted batches are left out.

-- view: aikakirjat_years
WITH live AS (
    SELECT e.*
    FROM events e
    WHERE e.type LIKE 'aikakirjat.%'
      AND NOT EXISTS (SELECT 1 FROM turns t
                      WHERE t.campaign = e.campaign AND t.commit_id = e.commit_id AND t.retracted)
),
per_year AS (
    SELECT
        campaign,
        turn,
        count(*) AS events,
        max(CASE WHEN type = 'aikakirjat.session_started'
                 THEN CAST(json_extract(payload, '$.audit.years_total') AS INTEGER) END) AS session_years_rolled,
        max(CASE WHEN type = 'aikakirjat.random_event_rolled'
                 THEN CAST(json_extract(payload, '$.audit.total') AS INTEGER) END) AS random_event_total,
        max(CASE WHEN type = 'aikakirjat.random_event_rolled'
                 THEN json_extract_string(payload, '$.audit.result_key') END) AS random_event,
        max(CASE WHEN type = 'aikakirjat.neighbour_event_rolled'
                 THEN json_extract_string(payload, '$.neighbour_id') || ':'
                      || json_extract_string(payload, '$.audit.result_key') END) AS neighbour_event,
        max(CASE WHEN type = 'aikakirjat.growth_rolled'
                 THEN CAST(json_extract(payload, '$.audit.dc') AS INTEGER) END) AS growth_dc_rolled,
        bool_or(type = 'aikakirjat.growth_rolled'
                AND json_extract_string(payload, '$.audit.success') = 'true') AS grew,
        string_agg(CASE WHEN type = 'aikakirjat.action_taken'
                        THEN json_extract_string(payload, '$.action') || '='
                             || coalesce(json_extract_string(payload, '$.audit.band'), '?') END,
                   ', ' ORDER BY seq) AS actions,
        string_agg(CASE WHEN type = 'aikakirjat.revolution_rolled'
                        THEN json_extract_string(payload, '$.cause') || ':'
                             || json_extract_string(payload, '$.audit.result_key') END,
                   ', ' ORDER BY seq) AS revolutions,
        string_agg(CASE WHEN type = 'aikakirjat.war_begun' THEN json_extract_string(payload, '$.war_id')
                        WHEN type = 'aikakirjat.action_taken'
                             AND json_extract_string(payload, '$.action') = 'declare_war'
                        THEN json_extract_string(payload, '$.audit.war_id') END,
                   ', ' ORDER BY seq) AS wars_begun,
        count(*) FILTER (WHERE type = 'aikakirjat.war_turn_resolved') AS war_turns,
        string_agg(CASE WHEN type = 'aikakirjat.war_ended'
                        THEN json_extract_string(payload, '$.war_id') || ':'
                             || json_extract_string(payload, '$.reason') || ':'
                             || coalesce(json_extract_string(payload, '$.winner'), 'none') END,
                   ', ' ORDER BY seq) AS wars_ended,
        coalesce(sum(CASE WHEN type = 'aikakirjat.fame_gained'
                          THEN CAST(json_extract(payload, '$.amount') AS INTEGER) END), 0) AS fame_from_events,
        string_agg(CASE WHEN type = 'aikakirjat.level_changed'
                        THEN json_extract_string(payload, '$.from_level') || '->'
                             || json_extract_string(payload, '$.to_level') END, ', ') AS level_changes
    FROM live
    GROUP BY campaign, turn
)
SELECT
    s.campaign,
    s.turn AS year,
    s.government,
    s.level,
    s.title,
    s.fame,
    s.population,
    s.militia,
    s.levy_dice,
    s.unrest,
    s.culture_score,
    s.economy_score,
    s.loyalty_score,
    s.stability_score,
    s.decadence_modifier,
    s.crime_modifier,
    s.corruption_modifier,
    s.decay_modifier,
    s.stored_advantages,
    s.at_war,
    s.session_no,
    y.session_years_rolled,
    y.random_event_total,
    y.random_event,
    y.neighbour_event,
    y.growth_dc_rolled,
    y.grew,
    y.actions,
    y.revolutions,
    y.wars_begun,
    y.war_turns,
    y.wars_ended,
    y.fame_from_events,
    y.level_changes,
    y.events
FROM states s
LEFT JOIN per_year y ON y.campaign = s.campaign AND y.turn = s.turn
WHERE s.ruleset = 'aikakirjat'
ORDER BY s.campaign, s.turn;
