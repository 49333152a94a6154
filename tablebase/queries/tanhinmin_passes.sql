-- title: Tanhinmin: minimax passes of the winner and of the loser
-- needs: outcome score plies mover_passes opponent_passes
SELECT CASE WHEN outcome = 'N' THEN mover_passes ELSE opponent_passes END AS winner_passes,
       CASE WHEN outcome = 'N' THEN opponent_passes ELSE mover_passes END AS loser_passes,
       count(*) AS positions,
       arg_min(position, key) AS example
FROM {table}
WHERE outcome <> 'D' AND plies > 0
GROUP BY ALL
ORDER BY ALL;
