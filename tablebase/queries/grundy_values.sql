-- title: Grundy values: how often each occurs, with its first position
-- needs: grundy
SELECT grundy,
       count(*) AS positions,
       arg_min(position, key) AS example
FROM {table}
GROUP BY grundy
ORDER BY grundy;
