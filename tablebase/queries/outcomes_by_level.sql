-- title: outcomes per level
-- needs: outcome grundy
SELECT level,
       count(*) AS positions,
       count(*) FILTER (WHERE outcome = 'P') AS p_positions,
       count(*) FILTER (WHERE outcome = 'N') AS n_positions,
       round(count(*) FILTER (WHERE outcome = 'P') / count(*), 4) AS p_share
FROM {table}
GROUP BY level
ORDER BY level;
