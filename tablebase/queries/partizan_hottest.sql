-- title: the hottest positions of each size, with an example
-- needs: value temperature
-- chart: temperature by level
WITH hottest AS (
  SELECT level, max(temperature) AS temperature FROM {table} GROUP BY level
)
SELECT p.level,
       h.temperature,
       count(*) AS positions,
       arg_min(p.position, p.key) AS example,
       arg_min(p.value, p.key) AS value,
       arg_min(p.mean, p.key) AS mean
FROM {table} p JOIN hottest h ON p.level = h.level AND p.temperature = h.temperature
GROUP BY p.level, h.temperature
ORDER BY p.level;
