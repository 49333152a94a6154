-- title: longest games: the most remote positions of each outcome
-- needs: outcome remoteness
SELECT outcome, remoteness, position, level, best_move
FROM (
    SELECT *, row_number() OVER (PARTITION BY outcome ORDER BY remoteness DESC, key) AS rank
    FROM {table}
)
WHERE rank <= 5
ORDER BY outcome, remoteness DESC, key;
