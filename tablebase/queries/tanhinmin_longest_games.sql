-- title: Tanhinmin: longest games (most plies) for each outcome
-- needs: outcome score plies mover_passes opponent_passes
SELECT outcome, plies, score, mover_passes, opponent_passes, position, best_move
FROM (
    SELECT *, row_number() OVER (PARTITION BY outcome ORDER BY plies DESC, key) AS rank
    FROM {table}
)
WHERE rank <= 5
ORDER BY outcome, plies DESC, position;
