-- title: remoteness: positions by the moves left in perfect play, per outcome
-- needs: outcome remoteness
SELECT remoteness,
       count(*) FILTER (WHERE outcome = 'P') AS p_positions,
       count(*) FILTER (WHERE outcome = 'N') AS n_positions
FROM {table}
GROUP BY remoteness
ORDER BY remoteness;
