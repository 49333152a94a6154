-- title: plies: positions by the moves left in best play, per outcome
-- needs: outcome plies
SELECT plies,
       count(*) FILTER (WHERE outcome = 'N') AS n_positions,
       count(*) FILTER (WHERE outcome = 'P') AS p_positions,
       count(*) FILTER (WHERE outcome = 'D') AS draws
FROM {table}
GROUP BY plies
ORDER BY plies;
