import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { TICK_MS as PROC_TICK_MS } from '../../src/executors/code/process-usage';

interface ExecuteBody {
  success: boolean;
  data: unknown;
  error: string | null;
  metadata: Record<string, unknown>;
}

const python = (name: string, code: string, extra: Record<string, unknown> = {}) =>
  toolBody({ name, implementation_config: { language: 'python', code, ...extra } });

// Pyodide starts in a few seconds on a quiet machine, much later on a loaded one.
jest.setTimeout(300_000);

describe('Python code tools (e2e)', () => {
  let sut: TestApp;
  let key: string;
  let listener: Server;
  let connections = 0;

  const create = (body: Record<string, unknown>) => request(sut.http).post('/api/v1/tools').set(bearer(key)).send(body);
  const execute = async (name: string, args: Record<string, unknown>): Promise<ExecuteBody> =>
    (
      await request(sut.http)
        .post(`/api/v1/tools/${name}/execute`)
        .set(bearer(key))
        .send({ arguments: args })
        .expect(200)
    ).body as ExecuteBody;

  beforeAll(async () => {
    listener = createServer((_request, response) => {
      connections += 1;
      response.end('hello');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    sut = await startTestApp({ PYTHON_SANDBOX_PROCESSES: '1' });
    key = await sut.createUserKey('pat');
  });

  afterAll(async () => {
    await sut.close();
    listener.close();
  });

  it('should refuse a syntax error when the tool is saved, naming the line', async () => {
    const response = await create(python('py_broken', 'def main(args):\n    return (args["a"],\n')).expect(400);

    expect(JSON.stringify(response.body)).toMatch(/implementation_config\.code/);
    expect(JSON.stringify(response.body)).toMatch(/line 2/);
  });

  it('should refuse code without a main(args) function', async () => {
    const response = await create(python('py_no_main', 'x = 1\n')).expect(400);

    expect(JSON.stringify(response.body)).toMatch(/main\(args\)/);
  });

  it('should run main(args) and hand back its JSON value with what it printed', async () => {
    await create(
      python(
        'py_add',
        'import math\n\ndef main(args):\n    print("adding", args["a"], args["b"])\n    return {"sum": args["a"] + args["b"], "pi": round(math.pi, 2)}\n',
      ),
    ).expect(201);

    const body = await execute('py_add', { a: 2, b: 3 });

    expect(body).toMatchObject({ success: true, data: { sum: 5, pi: 3.14 } });
    expect(body.metadata.logs).toEqual([{ level: 'log', message: 'adding 2 3' }]);
  });

  it('should report an exception with its traceback as the tool error', async () => {
    await create(python('py_divide', 'def main(args):\n    total = args["a"]\n    return total / 0\n')).expect(201);

    const body = await execute('py_divide', { a: 1, b: 2 });

    expect(body.success).toBe(false);
    expect(body.error).toMatch(/line 3, in main/);
    expect(body.error).toMatch(/ZeroDivisionError: division by zero/);
  });

  it.each([
    [
      'a socket',
      'import socket\n\ndef main(args):\n    return socket.create_connection(("127.0.0.1", PORT), 2).recv(5).decode()\n',
    ],
    [
      "JavaScript's fetch through the bridge",
      'import js\n\nasync def main(args):\n    fetch = js.constructor.constructor("return fetch")()\n    return await (await fetch("http://127.0.0.1:PORT/")).text()\n',
    ],
  ])('should keep %s from reaching a server on this machine', async (_what, template) => {
    const { port } = listener.address() as AddressInfo;
    const name = `py_net_${Math.random().toString(36).slice(2, 8)}`;
    await create(python(name, template.replace('PORT', String(port)))).expect(201);

    const body = await execute(name, { a: 1, b: 2 });

    expect(body.success).toBe(false);
    expect(connections).toBe(0);
  });

  it.each([
    ['read /etc/passwd', 'def main(args):\n    return open("/etc/passwd").read()\n'],
    [
      'reach the host through the JavaScript bridge',
      'import js\n\ndef main(args):\n    host = js.constructor.constructor("return process")()\n    return host.getBuiltinModule("fs").readFileSync("/etc/passwd", "utf8")\n',
    ],
  ])('should refuse code that tries to %s', async (_what, code) => {
    const name = `py_escape_${Math.random().toString(36).slice(2, 8)}`;
    await create(python(name, code)).expect(201);

    const body = await execute(name, { a: 1, b: 2 });

    expect(body.success).toBe(false);
    expect(body.error).not.toMatch(/root:/);
  });

  it('should stop a call at its time limit, and serve the next call', async () => {
    await create(python('py_spin', 'def main(args):\n    while True:\n        pass\n', { timeout_ms: 300 })).expect(
      201,
    );

    const spun = await execute('py_spin', { a: 1, b: 2 });
    const next = await execute('py_add', { a: 1, b: 1 });

    expect(spun.success).toBe(false);
    expect(spun.error).toMatch(/time limit|wall-clock limit/);
    expect(spun.metadata.cpu_ms).toBeGreaterThan(0);
    expect(next).toMatchObject({ success: true, data: { sum: 2 } });
  });

  // Pyodide's time.sleep spins (Emscripten's nanosleep busy-waits on the main thread), so a nap is CPU time here:
  // on a quiet machine a 1 s nap reports about 900 ms of CPU, on a loaded one less. What must hold on any machine:
  // the figure is the process's CPU (some was used), never more than the call's wall time but for one tick of /proc
  // (CPU is read in 10 ms ticks over the message exchange, which starts just before and ends just after the
  // sandbox's own timing of main(): a quiet CI run reported 1020 ms of CPU for a 1019 ms call).
  it("should count a call's CPU time from its process, at most its wall time", async () => {
    await create(python('py_nap', 'import time\n\ndef main(args):\n    time.sleep(1)\n    return 1\n')).expect(201);

    const napped = await execute('py_nap', { a: 1, b: 2 });

    expect(napped).toMatchObject({ success: true, data: 1 });
    expect(napped.metadata.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(napped.metadata.cpu_ms).toBeGreaterThan(0);
    expect(napped.metadata.cpu_ms).toBeLessThanOrEqual((napped.metadata.duration_ms as number) + PROC_TICK_MS);
  });

  it('should fail a call that allocates past its memory limit inside Python, and serve the next call', async () => {
    // A count kept in a module (module state lives on in the process): it goes on only if the process does.
    const code = [
      'import builtins',
      '',
      'def main(args):',
      '    builtins.hog_calls = getattr(builtins, "hog_calls", 0) + 1',
      '    if args["a"] == 1:',
      '        block = b"a" * (512 * 1024 * 1024)',
      '    return builtins.hog_calls',
      '',
    ].join('\n');
    await create(python('py_hog', code, { memory_mb: 64 })).expect(201);

    const first = await execute('py_hog', { a: 0, b: 0 });
    const hog = await execute('py_hog', { a: 1, b: 2 });
    const next = await execute('py_hog', { a: 0, b: 0 });

    expect(first).toMatchObject({ success: true, data: 1 });
    expect(hog.success).toBe(false);
    expect(hog.error).toMatch(/memory limit of 64 MiB/);
    expect(hog.metadata.reason).toBe('memory');
    // The allocation was refused, not made and then punished by killing the process.
    expect(next).toMatchObject({ success: true, data: 3 });
  });

  it("should never let one user's module state reach another user's call", async () => {
    const other = await sut.createUserKey('quinn');
    await create(
      python('py_taint', 'import json\n\ndef main(args):\n    json.TAINT = "pat"\n    return True\n'),
    ).expect(201);
    const probe = python(
      'py_probe',
      'import json\n\ndef main(args):\n    return {"taint": getattr(json, "TAINT", None)}\n',
    );
    await request(sut.http).post('/api/v1/tools').set(bearer(other)).send(probe).expect(201);

    await execute('py_taint', { a: 1, b: 2 });
    const seen = await request(sut.http)
      .post('/api/v1/tools/py_probe/execute')
      .set(bearer(other))
      .send({ arguments: { a: 1, b: 2 } })
      .expect(200);

    expect(seen.body).toMatchObject({ success: true, data: { taint: null } });
  });

  it('should run inside a workflow', async () => {
    const response = await request(sut.http)
      .post('/api/v1/workflow-runs?wait=true')
      .set(bearer(key))
      .send({
        definition: {
          name: 'python_in_a_workflow',
          nodes: [
            { id: 'start', type: 'start', data: {} },
            { id: 'add', type: 'tool', data: { tool: 'py_add', arguments: { a: 40, b: 2 } } },
            { id: 'end', type: 'end', data: { outputs: { sum: '{{add.data.sum}}' } } },
          ],
          edges: [
            { source: 'start', target: 'add' },
            { source: 'add', target: 'end' },
          ],
        },
      })
      .expect(200);

    expect(response.body).toMatchObject({ status: 'succeeded', outputs: { sum: 42 } });
  });
});
