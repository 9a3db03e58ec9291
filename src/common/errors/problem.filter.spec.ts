import type { ArgumentsHost } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { DomainError } from './domain-error';
import { ProblemFilter } from './problem.filter';

/** Just enough of an Express response to see what the filter sends. */
class RecordedResponse {
  statusCode = 200;
  headersSent = false;
  readonly headers: Record<string, string> = {};
  contentType = '';
  body: Record<string, unknown> | null = null;

  status(code: number) {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
    return this;
  }
  type(value: string) {
    this.contentType = value;
    return this;
  }
  send(text: string) {
    this.body = JSON.parse(text) as Record<string, unknown>;
    return this;
  }
  end() {
    return this;
  }
}

const handle = (exception: unknown): RecordedResponse => {
  const response = new RecordedResponse();
  const host = {
    switchToHttp: () => ({ getRequest: () => ({ originalUrl: '/api/v1/runs' }), getResponse: () => response }),
  } as unknown as ArgumentsHost;
  new ProblemFilter().catch(exception, host);
  return response;
};

describe(ProblemFilter.name, () => {
  it('should answer 503 database unavailable with Retry-After when the database refuses connections', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });

    const sut = handle(new QueryFailedError('SELECT 1', [], refused));

    expect(sut.statusCode).toBe(503);
    expect(sut.contentType).toBe('application/problem+json');
    expect(sut.headers['retry-after']).toMatch(/^\d+$/);
    expect(sut.body).toMatchObject({ status: 503, detail: 'database unavailable', instance: '/api/v1/runs' });
    expect(JSON.stringify(sut.body)).not.toContain('127.0.0.1');
  });

  it('should send the Retry-After a domain error asks for', () => {
    const sut = handle(DomainError.tooManyRequests('The run queue is full', 7));

    expect(sut.statusCode).toBe(429);
    expect(sut.headers['retry-after']).toBe('7');
    expect(sut.body).toMatchObject({ status: 429, title: 'Too Many Requests', detail: 'The run queue is full' });
  });

  it('should answer 500 without internals for an unexpected error', () => {
    const sut = handle(new TypeError("Cannot read properties of undefined (reading 'secret')"));

    expect(sut.statusCode).toBe(500);
    expect(sut.headers['retry-after']).toBeUndefined();
    expect(sut.body).toMatchObject({ status: 500, detail: 'An unexpected error occurred' });
    expect(JSON.stringify(sut.body)).not.toContain('secret');
  });
});
