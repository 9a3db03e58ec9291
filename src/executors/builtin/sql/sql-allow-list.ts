const words = (list: string): ReadonlySet<string> => new Set(list.trim().split(/\s+/));

/**
 * Functions a query may call, on MySQL/MariaDB and SQLite. An allow-list on purpose: anything not
 * here (SLEEP, BENCHMARK, LOAD_FILE, GET_LOCK, LOAD_EXTENSION, USER(), VERSION() …) is refused.
 */
export const ALLOWED_FUNCTIONS = words(`
  count sum avg min max group_concat total bit_and bit_or bit_xor std stddev stddev_pop stddev_samp
  variance var_pop var_samp json_arrayagg json_objectagg json_group_array json_group_object
  row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
  concat concat_ws length char_length character_length octet_length bit_length lower upper lcase ucase
  substring substr substring_index left right trim ltrim rtrim lpad rpad replace reverse repeat space
  instr locate position strcmp format insert char ascii ord hex unhex field find_in_set elt quote
  soundex printf unicode like glob regexp_like regexp_replace regexp_substr regexp_instr
  abs ceil ceiling floor round truncate mod pow power sqrt exp ln log log2 log10 sign pi sin cos tan
  asin acos atan atan2 cot degrees radians greatest least rand random conv crc32
  now curdate current_date curtime current_time current_timestamp utc_date utc_time utc_timestamp
  sysdate localtime localtimestamp date time year month day dayofmonth dayofweek dayofyear dayname
  monthname hour minute second microsecond week weekday weekofyear quarter yearweek date_add date_sub
  adddate subdate addtime subtime datediff timediff timestampdiff timestampadd date_format time_format
  str_to_date from_unixtime unix_timestamp makedate maketime last_day to_days from_days sec_to_time
  time_to_sec convert_tz period_add period_diff strftime julianday datetime unixepoch
  if ifnull nullif coalesce isnull iif typeof cast convert exists any all some database schema
  json_extract json_unquote json_object json_array json_length json_keys json_contains json_type
  json_valid json_value json_array_length json_quote json
`);

/**
 * AST node types (node-sql-parser) a SELECT may contain. Unknown constructs are refused rather than
 * trusted, so a parser upgrade that adds a node type cannot open a hole.
 */
export const ALLOWED_NODE_TYPES = words(`
  select column_ref star number bool null boolean
  single_quote_string double_quote_string backticks_quote_string natural_string
  hex_string full_hex_string bit_string regex_string
  binary_expr unary_expr expr_list function aggr_func cast case when else interval extract
  window datatype expr default origin asc desc rows range dual
`);

/**
 * Bare words the parser keeps as `origin` nodes: placeholders, date units, window frames, TRIM
 * and parenthesis-free date functions.
 */
export const ALLOWED_KEYWORDS = words(`
  ? microsecond second minute hour day week month quarter year second_microsecond minute_microsecond
  minute_second hour_microsecond hour_second hour_minute day_microsecond day_second day_minute day_hour
  year_month current_date current_time current_timestamp localtime localtimestamp utc_date utc_time
  utc_timestamp rows range unbounded preceding following current row both leading trailing from for
`);
