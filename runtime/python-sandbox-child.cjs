'use strict';
/*
 * One Python sandbox process (see src/executors/code/python-sandbox.ts). Plain CommonJS, no transpiler: it starts
 * under Node's permission model, which lets it read only this file and the Pyodide package, inside its own user,
 * network and PID namespaces. It runs one call at a time; the parent enforces CPU time and memory from outside
 * and kills the process when a call passes them.
 *
 * argv[2]: the path of Pyodide's pyodide.js. Messages: see python-sandbox-protocol.ts.
 */
const fsConstants = require('node:fs').constants;

// Pyodide's NODEFS reads the fs constants through process.binding, which the permission model refuses.
process.binding = (name) => {
  if (name === 'constants') return { fs: fsConstants };
  throw new Error('process.binding is not available in the sandbox');
};

const MAX_LOG_ENTRIES = 100;
const MAX_LOG_CHARS = 20000;

const RUNNER = `
import ast, inspect, json, os, shutil, sys, traceback

_FILENAME = "<tool>"

def _clear_scratch():
    os.chdir("/")
    for root in ("/tmp", "/home/pyodide"):
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root, exist_ok=True)
    os.chdir("/tmp")

def _tool_frames(error):
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == _FILENAME]
    lines = "".join(traceback.format_list(frames))
    return ("Traceback (most recent call last):\\n" + lines if lines else "") + "".join(
        traceback.format_exception_only(type(error), error))

def _check(code):
    try:
        tree = ast.parse(code, _FILENAME)
    except SyntaxError as error:
        return {"line": error.lineno, "message": f"SyntaxError: {error.msg} (line {error.lineno}, column {error.offset})"}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "main":
            return None
    return {"line": None, "message": "the code must define a top-level function main(args)"}

async def _run(code, args_json):
    _clear_scratch()
    problem = _check(code)
    if problem:
        return {"status": "syntax", "message": problem["message"]}
    scope = {"__name__": "__tool__"}
    try:
        exec(compile(code, _FILENAME, "exec"), scope)
        value = scope["main"](json.loads(args_json))
        if inspect.isawaitable(value):
            value = await value
    except BaseException as error:
        return {"status": "threw", "message": _tool_frames(error)}
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    try:
        return {"status": "ok", "json": json.dumps(value, allow_nan=False, ensure_ascii=False)}
    except (TypeError, ValueError) as error:
        return {"status": "not_json", "detail": str(error)}

def _check_json(code):
    return json.dumps(_check(code))
`;

const send = (message) => process.send(message);

const main = async () => {
  const { loadPyodide } = require(process.argv[2]);
  let logs = [];
  let logChars = 0;
  let dropped = 0;
  const capture = (level) => (line) => {
    if (logs.length >= MAX_LOG_ENTRIES || logChars + line.length > MAX_LOG_CHARS) {
      dropped += 1;
      return;
    }
    logChars += line.length;
    logs.push({ level, message: line });
  };
  // jsglobals: the Python `js` module sees an empty object, not this process's globals.
  const pyodide = await loadPyodide({ jsglobals: {}, env: { HOME: '/home/pyodide' } });
  pyodide.setStdout({ batched: capture('log') });
  pyodide.setStderr({ batched: capture('error') });
  pyodide.runPython(RUNNER);
  const run = pyodide.globals.get('_run');
  const check = pyodide.globals.get('_check_json');

  process.on('message', async (message) => {
    if (!message || typeof message.id !== 'number') return;
    if (message.type === 'check') {
      send({ type: 'checked', id: message.id, problem: JSON.parse(check(message.code)) });
      return;
    }
    if (message.type !== 'run') return;
    logs = [];
    logChars = 0;
    dropped = 0;
    const started = performance.now();
    const proxy = await run(message.code, message.args);
    const outcome = proxy.toJs({ dict_converter: Object.fromEntries });
    proxy.destroy();
    if (dropped > 0) logs.push({ level: 'warn', message: `${dropped} more output lines were dropped` });
    send({ type: 'done', id: message.id, outcome, logs, durationMs: performance.now() - started });
  });
  send({ type: 'ready' });
};

main().catch((error) => {
  process.stderr.write(`python sandbox failed to start: ${error && error.stack}\n`);
  process.exit(1);
});
