-- title: values by kind: numbers, number + infinitesimal, switches (hot, numbers as options), other hot games
-- needs: value temperature
-- CGSuite's temperatures: negative for a number, 0 for a number plus an
-- infinitesimal, positive for a hot game.
SELECT CASE
         WHEN temperature < 0 THEN 'number'
         WHEN temperature = 0 THEN 'number + infinitesimal'
         WHEN regexp_full_match(value, '\+-[0-9/]+|\{-?[0-9/]+\|-?[0-9/]+\}') THEN 'switch'
         ELSE 'hot'
       END AS kind,
       count(*) AS positions,
       count(DISTINCT value) AS distinct_values,
       arg_min(position, key) AS example,
       arg_min(value, key) AS example_value
FROM {table}
GROUP BY kind
ORDER BY min(temperature);
