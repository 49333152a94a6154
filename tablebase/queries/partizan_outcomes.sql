-- title: outcome classes per level (L: Left wins, R: Right wins, N: the player to move, P: the other)
-- needs: outcome value temperature
SELECT level,
       count(*) AS positions,
       count(*) FILTER (WHERE outcome = 'L') AS l_positions,
       count(*) FILTER (WHERE outcome = 'R') AS r_positions,
       count(*) FILTER (WHERE outcome = 'N') AS n_positions,
       count(*) FILTER (WHERE outcome = 'P') AS p_positions
FROM {table}
GROUP BY level
ORDER BY level;
