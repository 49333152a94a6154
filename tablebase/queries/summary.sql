-- title: summary
-- needs: grundy remoteness
SELECT count(*) AS positions,
       count(DISTINCT level) AS levels,
       count(*) FILTER (WHERE outcome = 'P') AS p_positions,
       max(grundy) AS max_grundy,
       max(remoteness) AS max_remoteness
FROM {table};
