import request from 'supertest';
import type { App } from 'supertest/types';
import { bearer } from './test-app';

export interface NodeRunBody {
  node_id: string;
  node_type: string;
  status: string;
  output: Record<string, unknown> | null;
  error: string | null;
  tool_calls: Array<{
    call_id: string | null;
    tool_name: string;
    status: string;
    input: string;
    arguments?: unknown;
    model_arguments?: unknown;
    edited_by?: string | null;
    edited_at?: string;
    repair?: { kind: string };
  }>;
}

export interface RunBody {
  id: string;
  status: string;
  workflow_id: string | null;
  outputs: Record<string, unknown> | null;
  error: string | null;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; model_calls: number };
  stop_reason?: string | null;
  budgets?: Record<string, number> | null;
  created_at?: string;
  started_at?: string | null;
  finished_at?: string | null;
  nodes?: NodeRunBody[];
}

const FINISHED = ['succeeded', 'failed', 'cancelled'];
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The workflow and run endpoints as one API key sees them. */
export class WorkflowApi {
  constructor(
    private readonly http: App,
    private readonly key: string,
  ) {}

  createTool(body: Record<string, unknown>) {
    return request(this.http).post('/api/v1/tools').set(bearer(this.key)).send(body).expect(201);
  }

  runInline(definition: unknown, inputs: Record<string, unknown> = {}, wait = true) {
    return request(this.http)
      .post(`/api/v1/workflow-runs${wait ? '?wait=true' : ''}`)
      .set(bearer(this.key))
      .send({ definition, inputs });
  }

  /** Runs inline with ?wait=true and returns the finished run. */
  async run(definition: unknown, inputs: Record<string, unknown> = { question: 'Hi?' }): Promise<RunBody> {
    const response = await this.runInline(definition, inputs).expect(200);
    return response.body as RunBody;
  }

  async getRun(id: string): Promise<RunBody> {
    const response = await request(this.http).get(`/api/v1/runs/${id}`).set(bearer(this.key)).expect(200);
    return response.body as RunBody;
  }

  /** Polls GET /runs/:id until `predicate` holds (by default: the run ended). */
  async waitForRun(id: string, predicate: (run: RunBody) => boolean = (run) => FINISHED.includes(run.status)) {
    for (;;) {
      const run = await this.getRun(id);
      if (predicate(run)) return run;
      await pause(20);
    }
  }

  get(path: string) {
    return request(this.http).get(`/api/v1${path}`).set(bearer(this.key));
  }

  post(path: string, body?: unknown) {
    return request(this.http)
      .post(`/api/v1${path}`)
      .set(bearer(this.key))
      .send(body as object);
  }

  put(path: string, body: unknown) {
    return request(this.http)
      .put(`/api/v1${path}`)
      .set(bearer(this.key))
      .send(body as object);
  }

  patch(path: string, body: unknown) {
    return request(this.http)
      .patch(`/api/v1${path}`)
      .set(bearer(this.key))
      .send(body as object);
  }

  delete(path: string) {
    return request(this.http).delete(`/api/v1${path}`).set(bearer(this.key));
  }
}
