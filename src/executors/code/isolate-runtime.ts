/** Name user code carries in stack traces inside the isolate. */
export const USER_CODE_FILENAME = 'tool.js';

/**
 * Plain JavaScript evaluated (via `evalClosure`) in every fresh context before user code. It is a
 * string rather than a TypeScript function because transpilers and coverage tools rewrite function
 * bodies, and this text must run in a bare V8 context with no host objects at all.
 *
 * `$0` holds the limits. It returns one dispatcher: `('start', code, argsJson)` compiles and starts
 * the user function; `('collect')` returns `{outcome, logs, droppedLogs}` (outcome undefined while
 * the user's Promise is still pending).
 *
 * Builtins are captured before user code runs, so a user who patches `JSON` or `Promise.prototype`
 * can only spoil the report of their own call, never reach the host.
 */
export const ISOLATE_RUNTIME_SOURCE = String.raw`
'use strict';
const { maxLogEntries, maxLogChars, maxMessageChars, maxOutputChars } = $0;
const global = globalThis;
const stringify = JSON.stringify;
const parse = JSON.parse;
const toText = String;
const toNumber = Number;
const apply = Reflect.apply;
const then = Promise.prototype.then;
const exec = RegExp.prototype.exec;
const slice = String.prototype.slice;
const ErrorType = Error;
const AsyncFunction = (async function () {}).constructor;
const linePattern = /${USER_CODE_FILENAME.replace('.', '\\.')}:(\d+):\d+/;

// These can schedule work that runs after the call has returned, outside any time limit, and
// WebAssembly memory is not counted against the isolate's memory limit.
delete global.WebAssembly;
delete global.FinalizationRegistry;
delete Atomics.waitAsync;

const clip = (text, max) => (text.length > max ? apply(slice, text, [0, max]) : text);
const show = (value) => {
  if (typeof value === 'string') return value;
  try {
    if (value instanceof ErrorType) return toText(value.name) + ': ' + toText(value.message);
  } catch {}
  try {
    const text = stringify(value);
    if (typeof text === 'string') return text;
  } catch {}
  try {
    return toText(value);
  } catch {
    return '[unprintable]';
  }
};

const logs = [];
let logChars = 0;
let droppedLogs = 0;
const write = (level, values) => {
  const room = maxLogChars - logChars;
  if (logs.length >= maxLogEntries || room <= 0) {
    droppedLogs++;
    return;
  }
  let message = '';
  for (let i = 0; i < values.length && message.length < room; i++) message += (i === 0 ? '' : ' ') + show(values[i]);
  message = clip(message, room);
  logChars += message.length;
  logs[logs.length] = { level, message };
};
global.console = {
  log: (...values) => write('log', values),
  info: (...values) => write('info', values),
  warn: (...values) => write('warn', values),
  error: (...values) => write('error', values),
  debug: (...values) => write('debug', values),
};

const describe = (error) => {
  try {
    if (error !== null && typeof error === 'object' && typeof error.message === 'string') {
      const name = typeof error.name === 'string' ? error.name : 'Error';
      return clip(name + ': ' + error.message, maxMessageChars);
    }
    return clip(show(error), maxMessageChars);
  } catch {
    return '[unprintable error]';
  }
};
const lineOf = (error) => {
  try {
    const stack = error !== null && typeof error === 'object' ? error.stack : undefined;
    const match = typeof stack === 'string' ? apply(exec, linePattern, [stack]) : null;
    // The Function constructor puts two header lines before the body.
    return match === null ? undefined : toNumber(match[1]) - 2;
  } catch {
    return undefined;
  }
};
const threw = (error) => ({ status: 'threw', message: describe(error), line: lineOf(error) });
const settle = (value) => {
  if (value === undefined) return { status: 'ok', json: 'null' };
  const type = typeof value;
  if (type === 'function' || type === 'symbol' || type === 'bigint') return { status: 'not_json', detail: type };
  let json;
  try {
    json = stringify(value);
  } catch (error) {
    return { status: 'not_json', detail: describe(error) };
  }
  if (typeof json !== 'string') return { status: 'not_json', detail: type };
  if (json.length > maxOutputChars) return { status: 'too_large', size: json.length };
  return { status: 'ok', json };
};

let outcome;
const start = (code, argsJson) => {
  let run;
  try {
    run = new AsyncFunction('args', code + '\n//# sourceURL=${USER_CODE_FILENAME}');
  } catch (error) {
    outcome = { status: 'syntax', message: describe(error) };
    return;
  }
  try {
    apply(then, run(parse(argsJson)), [(value) => { outcome = settle(value); }, (error) => { outcome = threw(error); }]);
  } catch (error) {
    outcome = threw(error);
  }
};
return (command, code, argsJson) => {
  if (command === 'start') return void start(code, argsJson);
  return { outcome, logs, droppedLogs };
};
`;
