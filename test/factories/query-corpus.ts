/** A small shop schema and queries a model legitimately writes; valid on SQLite and MySQL/MariaDB alike. */
export const QUERY_CORPUS_SCHEMA = [
  'CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(50), city VARCHAR(50))',
  'CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, total INTEGER, created DATE)',
  'CREATE TABLE items (id INTEGER PRIMARY KEY, order_id INTEGER, sku VARCHAR(20), qty INTEGER)',
  "INSERT INTO customers VALUES (1, 'Ada', 'Paris'), (2, 'Bob', 'Rome'), (3, 'Cy', 'Paris')",
  "INSERT INTO orders VALUES (1, 1, 10, '2024-01-05'), (2, 1, 25, '2024-02-10'), (3, 2, 40, '2024-02-11'), " +
    "(4, 3, 5, '2024-03-01'), (5, 2, 60, '2024-03-15')",
  "INSERT INTO items VALUES (1, 1, 'a', 1), (2, 1, 'b', 2), (3, 2, 'a', 1), (4, 3, 'c', 5), (5, 5, 'a', 3)",
];

export interface CorpusQuery {
  sql: string;
  params?: (string | number)[];
  rowCount: number;
}

export const COMMON_QUERIES: CorpusQuery[] = [
  {
    sql: 'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.city = ? ORDER BY o.id',
    params: ['Paris'],
    rowCount: 3,
  },
  {
    sql:
      'SELECT c.name, COUNT(o.id) AS n, SUM(o.total) AS spent FROM customers c LEFT JOIN orders o ' +
      'ON o.customer_id = c.id GROUP BY c.name HAVING COUNT(o.id) >= 2 ORDER BY c.name',
    rowCount: 2,
  },
  {
    sql:
      'WITH big AS (SELECT * FROM orders WHERE total > 20) ' +
      'SELECT customer_id, COUNT(*) AS n FROM big GROUP BY customer_id ORDER BY customer_id',
    rowCount: 2,
  },
  { sql: 'WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10) SELECT x FROM n', rowCount: 10 },
  {
    sql:
      'SELECT id, customer_id, total, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY total DESC) AS rn, ' +
      'SUM(total) OVER (ORDER BY id) AS running FROM orders ORDER BY id',
    rowCount: 5,
  },
  {
    sql: 'SELECT id, RANK() OVER (ORDER BY total DESC) AS r, LAG(total) OVER (ORDER BY id) AS prev FROM orders',
    rowCount: 5,
  },
  {
    sql:
      'SELECT id FROM orders WHERE total > (SELECT AVG(total) FROM orders) AND id IN (SELECT order_id FROM items) ' +
      'AND EXISTS (SELECT 1 FROM customers WHERE customers.id = orders.customer_id)',
    rowCount: 2,
  },
  {
    sql: 'SELECT t.customer_id, t.n FROM (SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id) AS t WHERE t.n > 1',
    rowCount: 2,
  },
  { sql: 'SELECT id FROM orders ORDER BY id LIMIT 2 OFFSET 1', rowCount: 2 },
  {
    sql: "SELECT name FROM customers WHERE city = 'Paris' UNION SELECT name FROM customers WHERE city = 'Rome'",
    rowCount: 3,
  },
  {
    sql:
      "SELECT items.id, CASE WHEN total >= 40 THEN 'big' ELSE 'small' END AS size, UPPER(sku) AS sku, " +
      'LENGTH(sku) AS len, ROUND(qty * 1.5, 1) AS q, ABS(-qty) AS a, COALESCE(NULL, sku) AS s, ' +
      'CAST(total AS CHAR) AS t FROM items JOIN orders ON orders.id = items.order_id',
    rowCount: 5,
  },
  {
    sql: 'SELECT COUNT(*) AS n FROM orders WHERE created >= ? AND created < ?',
    params: ['2024-02-01', '2024-03-01'],
    rowCount: 1,
  },
  { sql: "SELECT DISTINCT city FROM customers WHERE name LIKE 'A%' OR id BETWEEN 2 AND 3", rowCount: 2 },
  { sql: "SELECT 'DELETE FROM t; DROP TABLE t' AS text, 'it''s' AS quoted", rowCount: 1 },
  { sql: 'SELECT 1 AS one /* a comment */ -- trailing comment\n', rowCount: 1 },
  { sql: 'select min(total), max(total), avg(total) from orders;', rowCount: 1 },
];

export const MYSQL_QUERIES: CorpusQuery[] = [
  {
    sql: 'SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name',
    rowCount: 3,
  },
  { sql: 'SELECT 1 AS one FROM DUAL', rowCount: 1 },
  { sql: 'SELECT id FROM orders WHERE total > ALL (SELECT total FROM orders WHERE customer_id = 1)', rowCount: 2 },
  {
    sql: "SELECT DATE_FORMAT(created, '%Y-%m') AS month, COUNT(*) AS n FROM orders GROUP BY DATE_FORMAT(created, '%Y-%m')",
    rowCount: 3,
  },
  { sql: "SELECT GROUP_CONCAT(sku ORDER BY sku SEPARATOR ',') AS skus FROM items", rowCount: 1 },
  {
    sql:
      "SELECT IF(total > 20, 'y', 'n') AS big, DATE_ADD(created, INTERVAL 1 DAY) AS next, YEAR(created) AS y, " +
      'TIMESTAMPDIFF(DAY, created, CURRENT_DATE) AS age, CONVERT(total, CHAR) AS t FROM orders',
    rowCount: 5,
  },
];

export const SQLITE_QUERIES: CorpusQuery[] = [
  { sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name", rowCount: 3 },
  {
    sql: "SELECT strftime('%Y-%m', created) AS month, COUNT(*) AS n FROM orders GROUP BY month ORDER BY month",
    rowCount: 3,
  },
  { sql: "SELECT group_concat(sku, ',') AS skus, total(qty) AS q FROM items", rowCount: 1 },
  {
    sql: "SELECT IIF(total > 20, 'y', 'n') AS big, date(created, '+1 day') AS next, typeof(total) AS t FROM orders",
    rowCount: 5,
  },
];

/** Bypasses of the old text guard (issue 7 item 2) and other ways out of a plain SELECT. */
export const FORBIDDEN_QUERIES: [sql: string, reason: string][] = [
  ['SELECT `sleep`(2)', 'SLEEP() is not allowed'],
  ['SELECT 1 /*M!, SLEEP(2) */', 'executable comments'],
  ["SELECT CAST(`load_file`('/etc/passwd') AS CHAR)", 'LOAD_FILE() is not allowed'],
  ["SELECT * FROM orders /*M! INTO OUTFILE '/tmp/x' */", 'executable comments'],
  ['SELECT 1 /*!50000 , SLEEP(2) */', 'executable comments'],
  ['SELECT /*+ MAX_EXECUTION_TIME(1) */ 1', 'optimizer hints'],
  ['SELECT BENCHMARK(100000000, MD5(1))', 'BENCHMARK() is not allowed'],
  ["SELECT GET_LOCK('x', 10)", 'GET_LOCK() is not allowed'],
  ['SELECT id FROM orders WHERE id IN (SELECT SLEEP(2))', 'SLEEP() is not allowed'],
  ['SELECT id FROM orders ORDER BY SLEEP(1)', 'SLEEP() is not allowed'],
  ['SELECT mysql.upper(name) FROM customers', 'qualified function names'],
  ['SELECT USER()', 'USER() is not allowed'],
  ['SELECT 1 --1, SLEEP(2)\n', 'write "-- " (with a space)'],
  ["SELECT 'a\\' , SLEEP(2) -- '", 'backslashes are not allowed'],
  ['DELETE FROM orders', 'it is DELETE, not SELECT'],
  ['INSERT INTO orders (id) VALUES (9)', 'it is INSERT, not SELECT'],
  ['SELECT 1; DELETE FROM orders', 'multiple statements'],
  ['SELECT 1; SELECT 2', 'multiple statements'],
  ['SELECT @@version', 'variables are not allowed'],
  ['SELECT id FROM orders WHERE id = @x', 'variables are not allowed'],
  ['SHOW TABLES', 'SHOW'],
  ['   ', 'it is empty'],
];
