import {
  COMMON_QUERIES,
  FORBIDDEN_QUERIES,
  MYSQL_QUERIES,
  SQLITE_QUERIES,
} from '../../../../test/factories/query-corpus';
import { ToolForbiddenError } from '../../../shared/tool-errors';
import { assertSelectOnly } from './sql-guard';

describe(assertSelectOnly.name, () => {
  it.each([...COMMON_QUERIES, ...MYSQL_QUERIES].map(({ sql }) => sql))('should accept %j on MySQL', (sql) => {
    expect(() => assertSelectOnly(sql, 'mysql')).not.toThrow();
  });

  it.each([...COMMON_QUERIES, ...SQLITE_QUERIES].map(({ sql }) => sql))('should accept %j on SQLite', (sql) => {
    expect(() => assertSelectOnly(sql, 'sqlite')).not.toThrow();
  });

  it.each(FORBIDDEN_QUERIES)('should refuse %j on MySQL (%s)', (sql, reason) => {
    expect(() => assertSelectOnly(sql, 'mysql')).toThrow(ToolForbiddenError);
    expect(() => assertSelectOnly(sql, 'mysql')).toThrow(reason);
  });

  it.each(FORBIDDEN_QUERIES)('should refuse %j on SQLite', (sql) => {
    expect(() => assertSelectOnly(sql, 'sqlite')).toThrow(ToolForbiddenError);
  });

  it.each([
    ['SELECT * FROM orders INTO OUTFILE "/tmp/x"', 'SELECT … INTO is not allowed'],
    ['SELECT 1 INTO @a', 'SELECT … INTO is not allowed'],
    ['SELECT id FROM orders FOR UPDATE', 'locking clauses'],
    ['SELECT id FROM orders LOCK IN SHARE MODE', 'could not be parsed'],
    ['SELECT @a := 1', '"assign" is not allowed'],
    ['WITH x AS (SELECT 1) DELETE FROM orders', 'it is DELETE, not SELECT'],
    ['SELECT 1 FROM orders PROCEDURE ANALYSE()', 'could not be parsed'],
    ["SELECT LOAD_FILE('/etc/passwd')", 'LOAD_FILE() is not allowed'],
    ['SELECT 1 UNION SELECT SLEEP(1)', 'SLEEP() is not allowed'],
    ['SELECT 1 # comment\n, SLEEP(1)', 'SLEEP() is not allowed'],
    ['SELECT 1\u0000, SLEEP(1)', 'control characters'],
  ])('should refuse the MySQL-only form %j (%s)', (sql, reason) => {
    expect(() => assertSelectOnly(sql, 'mysql')).toThrow(reason);
  });

  it.each([
    ["SELECT load_extension('/tmp/evil')", 'LOAD_EXTENSION() is not allowed'],
    ["SELECT 1 # , load_extension('x')", '"#" is not allowed'],
    ["SELECT 'C:\\' AS path", 'backslashes are not allowed'],
    ['PRAGMA writable_schema = 1', 'could not be parsed'],
    ["SELECT 1; ATTACH 'x.db' AS x", 'could not be parsed'],
    ['SELECT zeroblob(1000000000)', 'ZEROBLOB() is not allowed'],
  ])('should refuse the SQLite form %j (%s)', (sql, reason) => {
    expect(() => assertSelectOnly(sql, 'sqlite')).toThrow(reason);
  });

  it('should accept allowed functions in any case and quoting', () => {
    expect(() =>
      assertSelectOnly('SELECT `upper`(name), Count(*) FROM customers GROUP BY name', 'mysql'),
    ).not.toThrow();
  });
});
