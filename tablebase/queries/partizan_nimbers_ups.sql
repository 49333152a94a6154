-- title: the nimbers and ups that occur (with stars and numbers added), how often, first example
-- needs: value temperature
SELECT value,
       count(*) AS positions,
       min(level) AS first_level,
       arg_min(position, key) AS example
FROM {table}
WHERE regexp_full_match(value, '-?[0-9/]*(\*[0-9]*|[\^v]+[0-9]*\*?[0-9]*)')
GROUP BY value
ORDER BY count(*) DESC, value;
