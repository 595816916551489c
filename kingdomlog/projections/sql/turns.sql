-- One row per committed batch: who committed what, when, and whether it was later retracted.
CREATE VIEW turns AS
WITH retractions AS (
    SELECT campaign, seq AS retracted_by, unnest(from_json(json_extract(payload, '$.commit_ids'), '["VARCHAR"]')) AS commit_id
    FROM events
    WHERE type = 'core.turn_retracted'
)
SELECT
    e.campaign,
    e.commit_id,
    min(e.turn) AS turn,
    max(e.turn) AS last_turn,
    min(e.seq) AS first_seq,
    max(e.seq) AS last_seq,
    count(*) AS events,
    min(e.recorded_at) AS recorded_at,
    bool_or(e.type = 'core.turn_retracted') AS is_retraction,
    bool_or(e.type = 'core.note_added') AND count(*) = count(*) FILTER (WHERE e.type = 'core.note_added') AS is_note,
    any_value(r.retracted_by) IS NOT NULL AS retracted,
    any_value(r.retracted_by) AS retracted_by
FROM events e
LEFT JOIN retractions r ON r.campaign = e.campaign AND r.commit_id = e.commit_id
GROUP BY e.campaign, e.commit_id
ORDER BY e.campaign, first_seq;
