-- title: Tanhinmin: score distribution (cards the loser keeps, + when the mover wins)
-- needs: outcome score plies mover_passes opponent_passes
SELECT score,
       count(*) AS positions,
       round(avg(plies), 2) AS mean_plies,
       arg_min(position, key) AS example
FROM {table}
GROUP BY score
ORDER BY score;
