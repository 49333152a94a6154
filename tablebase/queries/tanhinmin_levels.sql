-- title: Tanhinmin: outcomes and draws per level
-- needs: outcome score plies mover_passes opponent_passes
SELECT level,
       count(*) AS positions,
       count(*) FILTER (WHERE outcome = 'N') AS n_positions,
       count(*) FILTER (WHERE outcome = 'P') AS p_positions,
       count(*) FILTER (WHERE outcome = 'D') AS draws,
       round(count(*) FILTER (WHERE outcome = 'N') / count(*), 4) AS n_share
FROM {table}
GROUP BY level
ORDER BY level;
