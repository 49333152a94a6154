-- title: misère play against normal play
-- needs: outcome misere_outcome
SELECT outcome AS normal, misere_outcome AS misere,
       count(*) AS positions,
       arg_min(position, key) AS example
FROM {table}
GROUP BY ALL
ORDER BY ALL;
